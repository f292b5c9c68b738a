"""Curation in the item area (issue 8 item 4): the audit chain, retraction, review marks, the derived badge.

A curated memory is planted through the public API: a diary entry with an
owner and a source conversation, an item promoted from it, an item resting
on that item (depth 2), a derived entry and the echo promoted from it, an
item whose evidence is missing, and one that only links to the promoted
item. The tests drive the app with keys and assert on the screen and on
the files (and journal) on disk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import TS, make_app, make_backend, open_item, record_toasts, screen_text, started, wait_for
from pane_harness import PaneApp, item_area
from textual.widgets import Static

from wikimem import Linter, MemoryStore, draft_promotion, mark_derived, mark_for_review, review_reasons
from wikimem_tui.common.messages import OpenDiaryDay
from wikimem_tui.item.audit import AuditScreen
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.item.retract import RetractScreen
from wikimem_tui.item.item_view import ItemView

BERLIN = "Alice moved to Berlin."
REASON = "retracted: diary 2026-07-21 10:00"


def curated(root: Path) -> None:
    """The planted evidence graph (on top of the shared sample memory)."""
    store = MemoryStore(root)
    diary = store.diary
    moved = diary.append(BERLIN, date="2026-07-21", time="10:00", owner="user:x", source_conv="conv_7", ts=TS)
    echo = diary.append(mark_derived("Alice prefers oat milk, says the recall answer."), date="2026-07-21",
                        time="11:00", owner="agent", ts=TS)
    draft = draft_promotion([moved])
    store.add("people", "Alice-city", draft.content, owner="user:x", source_conv="conv_7", ts=TS)
    store.add("notes", "trip", "Visit Alice in Berlin.\n(evidence: [[people:Alice-city]])", owner="agent", ts=TS)
    store.add("notes", "oat", draft_promotion([echo]).content, owner="agent", ts=TS)
    store.add("notes", "ghost", "Something happened.\n(evidence: diary 2026-07-01 09:00, owner agent)",
              owner="agent", ts=TS)
    store.add("notes", "pointer", "See [[people:Alice-city]].", owner="agent", ts=TS)


def get(root: Path, file: str, name: str) -> Any:
    return MemoryStore(root).get(file, name)


def journal(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / "journal.jsonl").read_text(encoding="utf-8").splitlines()]


def wiki_bytes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "wiki").glob("*.md"))}


def wiki_items(root: Path) -> set[Any]:
    """Every item with its content and provenance (order aside: an undone delete puts the item back last)."""
    return {(i.file, i.name, i.content, i.owner, i.source_conv, i.ts) for i in MemoryStore(root).items()}


async def open_day(pilot: Any, date: str, time: str | None = None) -> None:
    """Show a diary day in the item view, as the calendar, the tree or the queue would."""
    pilot.app.post_message(OpenDiaryDay(date, time))
    await wait_for(pilot)


async def audit_screen(pilot: Any) -> AuditScreen:
    await pilot.press("A")
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, AuditScreen) and pilot.app.screen.loaded)
    await wait_for(pilot)
    return pilot.app.screen


async def retract_screen(pilot: Any) -> RetractScreen:
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, RetractScreen) and pilot.app.screen.loaded)
    await wait_for(pilot)
    return pilot.app.screen


def rows(screen: RetractScreen) -> dict[str, str]:
    return {f"{c.item.file}:{c.item.name}": c.action for c in screen.candidates}


# -- the audit chain ----------------------------------------------------------------------------


async def test_A_shows_what_an_item_rests_on_with_owner_time_source_and_status(memory_dir: Path) -> None:
    curated(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "people", "Alice-city")
        await audit_screen(pilot)
        text = screen_text(pilot.app)
    assert "✓ independent" in text and "diary 2026-07-21 10:00" in text
    assert "owner user:x · source conv_7" in text and BERLIN in text  # the cited entry, its owner and conversation
    rests_on_it = text[text.index("Rests on it"):]
    assert "cites it" in rests_on_it and "[[notes:trip]]" in rests_on_it
    assert "links to it" in rests_on_it and "[[notes:pointer]]" in rests_on_it


async def test_audit_marks_derived_and_missing_evidence(memory_dir: Path) -> None:
    curated(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "notes", "oat")
        await audit_screen(pilot)
        assert "↺ derived" in screen_text(pilot.app) and "✓ independent" not in screen_text(pilot.app)
        await pilot.press("escape")
        await open_item(pilot, "notes", "ghost")
        await audit_screen(pilot)
        text = screen_text(pilot.app)
    assert "✗ missing" in text and "no diary entry at that minute" in text
    assert "no wiki item cites it as evidence or links to it" in text


async def test_enter_on_an_audit_row_opens_its_place(memory_dir: Path) -> None:
    curated(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "notes", "trip")
        screen = await audit_screen(pilot)
        assert screen.rows[screen.query_one("OptionList").highlighted].place == ("item", "people", "Alice-city")
        await pilot.press("enter")
        await wait_for(pilot)
        view = pilot.app.query_one(ItemView)
        assert await wait_for(pilot, lambda: view.current == ("people", "Alice-city"))
        await audit_screen(pilot)  # the first row now is the diary entry it cites
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: view.shown == ("day", "2026-07-21", "10:00"))


async def test_A_on_a_diary_day_lists_what_cites_each_entry_transitively(memory_dir: Path) -> None:
    curated(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_day(pilot, "2026-07-21")
        await audit_screen(pilot)
        text = screen_text(pilot.app)
    at_ten = text[text.index("diary 2026-07-21 10:00"):text.index("diary 2026-07-21 11:00")]
    assert "cites it" in at_ten and "[[people:Alice-city]]" in at_ten
    assert "through [[people:Alice-city]]" in at_ten and "[[notes:trip]]" in at_ten  # depth 2
    assert "no wiki item cites it yet" in text[text.index("diary 2026-07-21 09:15"):]


async def test_the_audit_key_is_in_the_footer_and_needs_something_open(memory_dir: Path) -> None:
    async with started(make_app(make_backend(memory_dir)), (120, 40), notifications=True) as pilot:
        said = record_toasts(pilot.app)
        assert "A Audit" in screen_text(pilot.app)
        await pilot.press("A")
        await wait_for(pilot)
        assert not isinstance(pilot.app.screen, AuditScreen)
        assert said == ["open an item or a diary day first (t tree, g go to, c calendar)"]


# -- retraction ------------------------------------------------------------------------------------


async def test_retracting_an_entry_marks_everything_resting_on_it_and_lint_reports_them(memory_dir: Path) -> None:
    curated(memory_dir)
    diary_before = (memory_dir / "diary" / "2026-07-21.md").read_bytes()
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_day(pilot, "2026-07-21", "10:00")
        await pilot.press("X")
        await wait_for(pilot)
        screen = await retract_screen(pilot)
        assert rows(screen) == {"people:Alice-city": "mark", "notes:trip": "mark"}  # transitive; the link-only one not
        text = screen_text(pilot.app)
        assert "append-only" in text and "through [[people:Alice-city]]" in text
        assert "no independent evidence left" in text
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: not isinstance(pilot.app.screen, RetractScreen))
        await wait_for(pilot)
    for file, name in (("people", "Alice-city"), ("notes", "trip")):
        assert review_reasons(get(memory_dir, file, name).content) == [REASON]
    assert get(memory_dir, "notes", "pointer").content == "See [[people:Alice-city]]."
    assert (memory_dir / "diary" / "2026-07-21.md").read_bytes() == diary_before  # the diary is append-only
    marked = {(f.location.item) for f in Linter(memory_dir).run().findings if f.code == "marked-for-review"}
    assert marked == {"Alice-city", "trip"}
    assert {line["detail"] for line in journal(memory_dir)[-2:]} == {f"retraction of diary 2026-07-21 10:00"}


async def test_one_undo_takes_a_whole_retraction_back_exactly(memory_dir: Path) -> None:
    curated(memory_dir)
    before = wiki_items(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        said = record_toasts(pilot.app)
        await open_item(pilot, "people", "Alice-city")
        await pilot.press("X")
        await retract_screen(pilot)
        await pilot.press("D")  # every dependent: delete; the item itself stays "mark"
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: any("retraction of [[people:Alice-city]]" in s for s in said))
        assert get(memory_dir, "notes", "trip") is None
        assert review_reasons(get(memory_dir, "people", "Alice-city").content) == ["retracted: people:Alice-city"]
        assert get(memory_dir, "people", "Alice-city").links == []  # the reason names it without linking to it
        pilot.app.query_one(ItemView).focus()
        await pilot.press("ctrl+z")
        assert await wait_for(pilot, lambda: wiki_items(memory_dir) == before)


async def test_per_item_choices_delete_the_retracted_item_and_keep_a_dependent(memory_dir: Path) -> None:
    curated(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "people", "Alice-city")
        await pilot.press("X")
        await wait_for(pilot)
        screen = await retract_screen(pilot)
        await pilot.click("#retract-links")  # also the items that only link to it
        assert await wait_for(pilot, lambda: screen.loaded and "notes:pointer" in rows(screen))
        screen.query_one("#retract-rows").focus()
        await pilot.press("d", "down", "k", "down", "m")  # itself: delete, trip: keep, pointer: mark
        await wait_for(pilot)
        assert rows(screen) == {"people:Alice-city": "delete", "notes:trip": "keep", "notes:pointer": "mark"}
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: get(memory_dir, "people", "Alice-city") is None)
    assert review_reasons(get(memory_dir, "notes", "trip").content) == []
    assert review_reasons(get(memory_dir, "notes", "pointer").content) == ["retracted: people:Alice-city"]


async def test_an_item_changed_on_disk_after_the_listing_writes_nothing(memory_dir: Path) -> None:
    curated(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "notes", "trip")
        await open_day(pilot, "2026-07-21", "10:00")
        await pilot.press("X")
        await wait_for(pilot)
        screen = await retract_screen(pilot)
        MemoryStore(memory_dir).add("notes", "trip", "Visit Alice in Berlin in May.\n(evidence: [[people:Alice-city]])",
                                    owner="agent")  # the agent, meanwhile
        before = wiki_bytes(memory_dir)
        await pilot.press("ctrl+s")
        await wait_for(pilot)
        error = screen.query_one("#retract-error", Static)
        assert await wait_for(pilot, lambda: "changed on disk since it was listed" in str(error.render()))
        assert wiki_bytes(memory_dir) == before  # not even the unchanged item was marked
        assert await wait_for(pilot, lambda: screen.loaded)  # read again: applying now writes on the new text
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: not isinstance(pilot.app.screen, RetractScreen))
        await wait_for(pilot)
    assert get(memory_dir, "notes", "trip").content.startswith("Visit Alice in Berlin in May.")
    assert review_reasons(get(memory_dir, "notes", "trip").content) == [REASON]


async def test_retracting_from_a_day_with_several_entries_asks_which(memory_dir: Path) -> None:
    curated(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_day(pilot, "2026-07-21")
        await pilot.press("X")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, AuditScreen) and pilot.app.screen.loaded)
        await wait_for(pilot)
        picker = pilot.app.screen
        assert "Retract which entry" in screen_text(pilot.app)
        options = picker.query_one("OptionList")
        options.highlighted = next(i for i, r in enumerate(picker.rows) if r.minute == ("2026-07-21", "11:00"))
        await pilot.press("X")
        await wait_for(pilot)
        screen = await retract_screen(pilot)
        assert screen.subject == ("entry", "2026-07-21", "11:00")
        assert rows(screen) == {"notes:oat": "mark"}


async def test_retract_is_disabled_read_only_and_nothing_is_written(memory_dir: Path) -> None:
    curated(memory_dir)
    before = wiki_bytes(memory_dir)
    async with started(make_app(make_backend(memory_dir, read_only=True)), (120, 40)) as pilot:
        said = record_toasts(pilot.app)
        await open_item(pilot, "people", "Alice-city")
        await pilot.press("X")
        await wait_for(pilot)
        assert not isinstance(pilot.app.screen, RetractScreen)
        assert said and said[0].startswith("read-only (--read-only): Retract would write")
        await audit_screen(pilot)  # reading still works
    assert wiki_bytes(memory_dir) == before


# -- review marks ---------------------------------------------------------------------------------


async def test_a_marked_item_shows_its_mark_and_the_health_pane_updates_live(memory_dir: Path) -> None:
    curated(memory_dir)
    backend = make_backend(memory_dir)
    async with started(make_app(backend), (120, 40)) as pilot:
        await pilot.press("h")
        assert await wait_for(pilot, lambda: "evidence-missing" in screen_text(pilot.app))
        assert "marked-for-review" not in screen_text(pilot.app)
        await open_item(pilot, "notes", "trip")
        await pilot.press("X")
        await retract_screen(pilot)
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: "⚑ marked for review: retracted: notes:trip" in screen_text(pilot.app))
        await pilot.press("h")
        assert await wait_for(pilot, lambda: "marked-for-review" in screen_text(pilot.app))


async def test_c_in_the_audit_clears_review_marks_as_an_undoable_edit(memory_dir: Path) -> None:
    curated(memory_dir)
    store = MemoryStore(memory_dir)
    item = store.get("notes", "trip")
    store.add("notes", "trip", mark_for_review(item.content, "check the date"), owner="agent", ts=TS)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "notes", "trip")
        assert "⚑ marked for review: check the date" in screen_text(pilot.app)
        await audit_screen(pilot)
        assert "Marked for review" in screen_text(pilot.app)
        await pilot.press("c")
        assert await wait_for(pilot, lambda: review_reasons(get(memory_dir, "notes", "trip").content) == [])
        cleared = get(memory_dir, "notes", "trip")
        assert (cleared.content, cleared.owner, cleared.ts) == (item.content, "agent", TS)  # checked, not new knowledge
        assert journal(memory_dir)[-1]["detail"] == "review of notes:trip"
        assert await wait_for(pilot, lambda: "marked for review" not in screen_text(pilot.app))
        pilot.app.query_one(ItemView).focus()
        await pilot.press("ctrl+z")
        assert await wait_for(pilot, lambda: review_reasons(get(memory_dir, "notes", "trip").content) == ["check the date"])


async def test_clearing_marks_of_an_item_changed_since_the_audit_writes_nothing(memory_dir: Path) -> None:
    curated(memory_dir)
    store = MemoryStore(memory_dir)
    store.add("notes", "trip", mark_for_review(store.get("notes", "trip").content, "check"), owner="agent", ts=TS)
    async with started(make_app(make_backend(memory_dir)), (120, 40), notifications=True) as pilot:
        said = record_toasts(pilot.app)
        await open_item(pilot, "notes", "trip")
        await audit_screen(pilot)
        changed = mark_for_review("Visit Alice in Berlin in June.\n(evidence: [[people:Alice-city]])", "check")
        store.add("notes", "trip", changed, owner="agent", ts=TS)  # the agent, while the curator reads
        await pilot.press("c")
        assert await wait_for(pilot, lambda: any("changed on disk since it was shown" in s for s in said))
    assert get(memory_dir, "notes", "trip").content == changed  # not reviewed as shown: the mark stays


def test_curate_keeps_owner_source_and_ts_of_a_marked_item(memory_dir: Path) -> None:
    curated(memory_dir)
    backend = make_backend(memory_dir)
    item = backend.store.get("people", "Alice-city")
    write = backend.curate([item], reason="why", what="test")
    after = backend.store.get("people", "Alice-city")
    assert (after.owner, after.source_conv, after.ts) == (item.owner, item.source_conv, item.ts)
    assert write.changes[0].before == item and backend.last_write is write
    backend.curate([after], reason="why", what="again")  # the same reason twice adds no second line
    assert review_reasons(backend.store.get("people", "Alice-city").content) == ["why"]


# -- derived badge, one promotion -------------------------------------------------------------------


async def test_derived_items_and_entries_carry_the_badge_in_the_item_and_day_view(memory_dir: Path) -> None:
    curated(memory_dir)
    MemoryStore(memory_dir).add("notes", "said", mark_derived("From a recall answer."), owner="agent", ts=TS)
    async with PaneApp(make_backend(memory_dir), item_area, catalogue=True).run_test(size=(120, 40)) as pilot:
        await open_item(pilot, "notes", "said")
        title = str(pilot.app.query_one("#item-title").render())
        assert "notes:said" in title and "↺ derived" in title
        await open_item(pilot, "notes", "trip")
        assert "↺ derived" not in str(pilot.app.query_one("#item-title").render())
        await open_day(pilot, "2026-07-21")
        body = str(pilot.app.query_one("#item-body").render()).splitlines()
    headings = [line for line in body if line.startswith("## ")]
    assert headings == ["## 09:15", "## 10:00", "## 11:00  ↺ derived"]


async def test_day_view_promotion_is_the_librarys_draft_with_its_provenance_rule_and_undo(memory_dir: Path) -> None:
    curated(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_day(pilot, "2026-07-21", "10:00")
        await pilot.press("p")
        await wait_for(pilot)
        await pilot.press(*"places", "enter", *"berlin", "enter")
        await wait_for(pilot)
        view = pilot.app.query_one(ItemView)
        assert await wait_for(pilot, lambda: view.current == ("places", "berlin"))
        item = get(memory_dir, "places", "berlin")
        # The library's draft: the entry's source is kept in the evidence line and as the item's source,
        # and a new item belongs to the entries' owner (the reconcile queue's rule), not to the app.
        assert item.content == f"{BERLIN}\n(evidence: diary 2026-07-21 10:00, owner user:x, source conv_7)"
        assert (item.owner, item.source_conv) == ("user:x", "conv_7")
        assert journal(memory_dir)[-1]["detail"] == "promoted from diary 2026-07-21 10:00"
        view.focus()
        await pilot.press("ctrl+z")
        assert await wait_for(pilot, lambda: get(memory_dir, "places", "berlin") is None)


async def test_day_view_promotion_warns_when_every_entry_is_derived(memory_dir: Path) -> None:
    curated(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_day(pilot, "2026-07-21", "11:00")
        await pilot.press("p")
        assert await wait_for(pilot, lambda: "every selected entry is derived" in screen_text(pilot.app))
        assert "↺ derived" in screen_text(pilot.app)


def test_the_backend_has_one_promotion_only() -> None:
    import wikimem_tui.core.backend as backend

    assert not hasattr(backend.Backend, "promote")
    for gone in ("evidence_line", "promotion_content", "promotion_detail"):
        assert not hasattr(backend, gone)



def test_the_audit_snapshot_re_reads_a_file_a_store_change_names_even_when_its_stat_is_unchanged(
        memory_dir: Path) -> None:
    import os

    from wikimem_tui.core.curation_reads import CurationReader
    from wikimem_tui.core.changes import StoreChange

    curated(memory_dir)
    reader = CurationReader(memory_dir)
    assert [d.name for d in reader.audit("people", "Alice-city").rests_on_it] == ["trip", "pointer"]
    path = memory_dir / "wiki" / "notes.md"
    stat = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace("[[people:Alice-city]]", "[[people:Alice-town]]"),
                    encoding="utf-8")  # same length, and the time put back: an editor that keeps the mtime
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert [d.name for d in reader.audit("people", "Alice-city").rests_on_it] == ["trip", "pointer"]  # stale
    reader.changed(StoreChange(frozenset({"notes"})))
    assert reader.audit("people", "Alice-city").rests_on_it == []
