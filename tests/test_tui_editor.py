"""The editor: save goes through store.add, bad input writes nothing, conflicts are never silent."""

from __future__ import annotations

import json

from conftest import make_app, notices, open_item, screen_text, started, wait_for
from wikimem import MemoryStore
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.item.conflict import ConflictScreen
from wikimem_tui.item.editor import ItemEditor


def journal(root) -> list[dict]:  # type: ignore[no-untyped-def]
    return [json.loads(line) for line in (root / "journal.jsonl").read_text(encoding="utf-8").splitlines()]


def tea_on_disk(memory_dir) -> str:  # type: ignore[no-untyped-def]
    """What the file holds for preferences:tea, read fresh."""
    return MemoryStore(memory_dir).get("preferences", "tea").content


async def start_editing(pilot, file: str = "preferences", name: str = "tea") -> ItemEditor:  # type: ignore[no-untyped-def]
    await open_item(pilot, file, name)
    await pilot.press("e")
    await wait_for(pilot)
    assert pilot.app.editing
    return pilot.app.query_one(ItemEditor)


async def test_editing_content_alone_keeps_owner_and_source_and_journals_who_edited(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        editor = await start_editing(pilot, "preferences", "coffee")  # owner agent, source conv-1
        editor.area.load_text("Green tea, no milk.")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: not pilot.app.editing)
        assert "Green tea, no milk." in screen_text(pilot.app)
    item = MemoryStore(memory_dir).get("preferences", "coffee")
    assert item.content == "Green tea, no milk."
    assert (item.owner, item.source_conv, item.ts) == ("agent", "conv-1", "2026-07-21T10:00:00+00:00")
    last = journal(memory_dir)[-1]
    assert (last["action"], last["item"], last["owner"], last["by"]) == ("update", "coffee", "agent", "tui:test")


async def test_owner_and_source_change_only_through_their_fields(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        editor = await start_editing(pilot, "preferences", "coffee")
        assert (editor.query_one("#editor-owner").value, editor.query_one("#editor-source").value) == ("agent", "conv-1")
        editor.query_one("#editor-owner").value = "user:xnne"
        editor.query_one("#editor-source").value = ""
        assert editor.dirty
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: not pilot.app.editing)
    item = MemoryStore(memory_dir).get("preferences", "coffee")
    assert (item.owner, item.source_conv) == ("user:xnne", None)
    assert item.content.startswith("Oat milk flat white")


async def test_typing_in_the_editor_does_not_trigger_letter_bindings(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        editor = await start_editing(pilot)
        await pilot.press("end", *" dqn")
        await wait_for(pilot)
        assert pilot.app.editing and pilot.app.is_running
        assert editor.text.endswith(" dqn")


async def test_invalid_content_shows_the_error_inline_and_writes_nothing(backend, memory_dir) -> None:
    before = (memory_dir / "wiki" / "preferences.md").read_bytes()
    async with started(make_app(backend)) as pilot:
        editor = await start_editing(pilot)
        editor.area.load_text("first line\n## not allowed")
        await pilot.press("ctrl+s")
        await wait_for(pilot)
        assert pilot.app.editing
        assert "not saved:" in screen_text(pilot.app)
        assert editor.text == "first line\n## not allowed"
    assert (memory_dir / "wiki" / "preferences.md").read_bytes() == before


async def test_escape_with_unsaved_edits_asks_before_discarding(backend, memory_dir) -> None:
    before = (memory_dir / "wiki" / "preferences.md").read_bytes()
    async with started(make_app(backend)) as pilot:
        editor = await start_editing(pilot)
        editor.area.load_text("changed")
        await pilot.press("escape")
        await wait_for(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await wait_for(pilot)
        assert not pilot.app.editing
    assert (memory_dir / "wiki" / "preferences.md").read_bytes() == before


async def test_save_after_an_external_change_opens_the_conflict_screen_and_writes_nothing(backend, memory_dir) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        editor = await start_editing(pilot)
        MemoryStore(memory_dir).add("preferences", "tea", "Disk version.", owner="agent")
        editor.area.load_text("My version.")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConflictScreen))
        await wait_for(pilot)
        text = screen_text(pilot.app)
        assert "My version." in text and "Disk version." in text
    assert tea_on_disk(memory_dir) == "Disk version."


async def conflict(pilot, memory_dir) -> None:  # type: ignore[no-untyped-def]
    editor = await start_editing(pilot)
    MemoryStore(memory_dir).add("preferences", "tea", "Disk version.", owner="agent")
    editor.area.load_text("My version.")
    await pilot.press("ctrl+s")
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConflictScreen))
    await wait_for(pilot)


async def test_conflict_keep_mine_writes_the_draft(backend, memory_dir) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await conflict(pilot, memory_dir)
        await pilot.click("#keep")
        await wait_for(pilot)
    assert tea_on_disk(memory_dir) == "My version."


async def test_conflict_take_disk_drops_the_draft(backend, memory_dir) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await conflict(pilot, memory_dir)
        await pilot.click("#disk-btn")
        await wait_for(pilot)
        assert not pilot.app.editing
        assert "Disk version." in screen_text(pilot.app)
    assert tea_on_disk(memory_dir) == "Disk version."


async def test_conflict_merge_by_hand_writes_the_merged_text(backend, memory_dir) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await conflict(pilot, memory_dir)
        pilot.app.screen.query_one("#merge").load_text("Merged version.")
        await pilot.click("#merge-btn")
        await wait_for(pilot)
    assert tea_on_disk(memory_dir) == "Merged version."


async def test_save_merge_with_the_draft_untouched_asks_for_a_real_choice(backend, memory_dir) -> None:
    """A reflex ctrl+s on the conflict screen would replace the agent's version: it says so instead."""
    async with started(make_app(backend), (120, 40)) as pilot:
        await conflict(pilot, memory_dir)
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: "still holds your draft unchanged" in screen_text(pilot.app))
        assert isinstance(pilot.app.screen, ConflictScreen)
        assert tea_on_disk(memory_dir) == "Disk version."
        await pilot.press("ctrl+k")  # the explicit choice still works
        assert await wait_for(pilot, lambda: tea_on_disk(memory_dir) == "My version.")


async def test_conflict_back_returns_to_the_editor_with_the_draft(backend, memory_dir) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await conflict(pilot, memory_dir)
        await pilot.press("escape")
        await wait_for(pilot)
        assert pilot.app.editing
        assert pilot.app.query_one(ItemEditor).text == "My version."
    assert tea_on_disk(memory_dir) == "Disk version."


async def test_quit_with_unsaved_edits_asks_first(backend) -> None:
    async with started(make_app(backend)) as pilot:
        editor = await start_editing(pilot)
        editor.area.load_text("draft")
        pilot.app.query_one("#topic-tree").focus()
        await pilot.press("q")
        await wait_for(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("n")
        await wait_for(pilot)
        assert pilot.app.is_running and pilot.app.editing


async def test_conflict_keys_work_while_the_merge_box_has_focus(backend, memory_dir) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await conflict(pilot, memory_dir)
        pilot.app.screen.query_one("#merge").focus()
        await pilot.press("ctrl+k")
        await wait_for(pilot)
    assert tea_on_disk(memory_dir) == "My version."


async def test_f4_round_trips_the_item_through_editor_and_saves(backend, memory_dir, monkeypatch) -> None:
    import contextlib

    from wikimem_tui.app import WikimemApp

    monkeypatch.setattr(WikimemApp, "suspend", lambda self: contextlib.nullcontext())
    monkeypatch.setenv("EDITOR", "sed -i s/Jasmine/Green/")
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("f4")
        await wait_for(pilot)
    assert tea_on_disk(memory_dir) == "Green tea in the afternoon."


async def test_f4_with_no_change_writes_nothing(backend, memory_dir, monkeypatch) -> None:
    import contextlib

    from wikimem_tui.app import WikimemApp

    before = (memory_dir / "wiki" / "preferences.md").read_bytes()
    monkeypatch.setattr(WikimemApp, "suspend", lambda self: contextlib.nullcontext())
    monkeypatch.setenv("EDITOR", "true")
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("f4")
        await wait_for(pilot)
        assert "unchanged: nothing written" in notices(pilot.app)
    assert (memory_dir / "wiki" / "preferences.md").read_bytes() == before


async def test_promoting_diary_entries_writes_an_item_with_evidence_lines(backend, memory_dir) -> None:
    from wikimem_tui.common.messages import OpenDiaryDay

    async with started(make_app(backend), (120, 40)) as pilot:
        pilot.app.post_message(OpenDiaryDay("2026-07-20", "08:30"))
        await wait_for(pilot)
        await pilot.press("p")
        await wait_for(pilot)
        await pilot.press(*"people", "enter", *"Alice", "enter")
        assert await wait_for(pilot, lambda: pilot.app.query_one("ItemView").current == ("people", "Alice"))
    item = MemoryStore(memory_dir).get("people", "Alice")
    assert item.content.startswith("Colleague. Likes [[preferences:coffee]]")
    assert item.content.endswith("Met Alice for coffee.\n(evidence: diary 2026-07-20 08:30, owner agent)")
    assert item.owner == "agent"  # an existing item keeps its owner; the journal says who promoted
    last = journal(memory_dir)[-1]
    assert (last["by"], last["detail"]) == ("tui:test", "promoted from diary 2026-07-20 08:30")


async def test_promote_needs_a_diary_day_on_screen(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("p")
        await wait_for(pilot)
        assert any("open a diary day first" in n for n in notices(pilot.app))


async def test_after_saving_the_app_keys_work_again_without_clicking(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        editor = await start_editing(pilot)
        editor.area.load_text("Green tea, no milk.")
        await pilot.press("ctrl+s")
        await wait_for(pilot)
        await pilot.press("a")  # a dialog restores focus to where it was when it closes
        await wait_for(pilot)
        await pilot.press("escape")
        await wait_for(pilot)
        await pilot.press("slash")  # must open the query box, not type into a text field
        await wait_for(pilot)
        assert pilot.app.focused is not None and pilot.app.focused.id == "query-input"
