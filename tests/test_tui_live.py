"""Live updates: writes by other processes show up; the app's own writes do not echo back."""

from __future__ import annotations

import asyncio
from pathlib import Path

from conftest import make_app, make_backend, notices, open_item, screen_text, started, wait_for, wait_until
from wikimem import MemoryStore
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.item.conflict import ConflictScreen
from wikimem_tui.core.watch import OwnWrites, classify
from wikimem_tui.item.editor import ItemEditor


def live(notes: list[str], needle: str) -> bool:
    return any(n.startswith("changed on disk") and needle in n for n in notes)


async def watching(pilot) -> None:  # type: ignore[no-untyped-def]
    """Wait until the app's watcher is armed: a write from now on is seen."""
    assert await wait_for(pilot, lambda: pilot.app.watcher_ready)


async def draft_with_watcher(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    """preferences:tea in the editor holding ``text``, with the watcher armed."""
    await open_item(pilot, "preferences", "tea")
    await watching(pilot)
    await pilot.press("e")
    await wait_for(pilot)
    pilot.app.query_one(ItemEditor).area.load_text(text)


# -- classification (no app) -------------------------------------------------------------


def test_classify_names_recall_files_days_and_the_journal(tmp_path: Path) -> None:
    paths = [tmp_path / "wiki" / "people.md", tmp_path / "diary" / "2026-07-21.md", tmp_path / "journal.jsonl"]
    change = classify(tmp_path, paths)
    assert change == StoreChange(frozenset({"people"}), frozenset({"2026-07-21"}), journal=True)


def test_classify_ignores_temp_lock_and_unknown_files(tmp_path: Path) -> None:
    paths = [tmp_path / "wiki" / ".people.md.tmp123", tmp_path / "wiki" / "x.lock", tmp_path / "notes.md",
             tmp_path / "diary" / "not-a-day.md"]
    assert classify(tmp_path, paths) is None


def test_own_writes_are_ignored_until_someone_else_writes(tmp_path: Path) -> None:
    path = tmp_path / "wiki" / "people.md"
    path.parent.mkdir()
    path.write_text("# people\n", encoding="utf-8")
    own = OwnWrites()
    own.record([path])
    assert classify(tmp_path, [path], own) is None
    path.write_text("# people\n\n## x\n\ny\n", encoding="utf-8")
    assert classify(tmp_path, [path], own) is not None


# -- the running app ---------------------------------------------------------------------------


async def test_external_write_is_noticed_and_the_tree_updates(backend, memory_dir) -> None:
    app = make_app(backend, watch=True)
    async with started(app) as pilot:
        await watching(pilot)
        MemoryStore(memory_dir).add("projects", "apollo", "Launch in [[people:Alice]]'s team.", owner="agent")
        assert await wait_for(pilot, lambda: "projects (1)" in screen_text(app))
        assert live(notices(app), "wiki: projects")


async def test_external_diary_append_is_noticed(backend, memory_dir) -> None:
    app = make_app(backend, watch=True)
    async with started(app) as pilot:
        await watching(pilot)
        MemoryStore(memory_dir).diary.append("Swam at dawn.", date="2026-07-22", time="06:00", owner="agent")
        assert await wait_for(pilot, lambda: live(notices(app), "diary: 2026-07-22"))
        assert await wait_for(pilot, lambda: "diary (3 days)" in screen_text(app))


async def test_open_item_refreshes_when_changed_on_disk(backend, memory_dir) -> None:
    app = make_app(backend, watch=True)
    async with started(app) as pilot:
        await open_item(pilot, "preferences", "tea")
        await watching(pilot)
        MemoryStore(memory_dir).add("preferences", "tea", "Oolong now.", owner="agent")
        assert await wait_for(pilot, lambda: "Oolong now." in screen_text(app))


async def test_the_apps_own_save_does_not_come_back_as_an_external_change(backend, memory_dir) -> None:
    app = make_app(backend, watch=True)
    async with started(app) as pilot:
        await draft_with_watcher(pilot, "Saved by the app.")
        echoes = app.own_echoes
        await pilot.press("ctrl+s")
        # The watcher saw the save's files and dropped them as the app's own (this wait fails if it did not).
        assert await wait_for(pilot, lambda: app.own_echoes > echoes)
        assert not any(n.startswith("changed on disk") for n in notices(app))
        # …while a later external write still is noticed.
        MemoryStore(memory_dir).add("preferences", "tea", "Then the agent.", owner="agent")
        assert await wait_for(pilot, lambda: live(notices(app), "wiki: preferences"))


async def test_an_own_write_the_watcher_hears_before_it_is_recorded_is_still_the_apps_own(backend, memory_dir) -> None:
    """A slow disk: the file's rename reaches the watcher while the write is still finishing (journal, fsyncs).

    The write's record is held back until the watcher has a batch in hand
    (or acted on one), which is the slow disk's interleaving made certain:
    the batch must wait for the write, judge it the app's own, and leave
    the index to the write chain (no re-read of the file, no "changed on
    disk" toast about the user's own edit).
    """
    own = backend.own_writes
    reread: list[list[str]] = []
    refresh_files = backend.index.refresh_files
    backend.index.refresh_files = lambda files, **options: (reread.append(sorted(files)), refresh_files(files, **options))[1]
    record = own.record

    def late_record(paths):  # type: ignore[no-untyped-def]
        wait_until(lambda: own.waited or reread, "the watcher holding a batch (or re-reading the file)")
        record(paths)

    own.record = late_record  # type: ignore[method-assign]
    app = make_app(backend, watch=True)
    async with started(app) as pilot:
        await watching(pilot)
        echoes = app.own_echoes
        tea = backend.store.get("preferences", "tea")
        await asyncio.to_thread(backend.save, "preferences", "tea", "Saved on a slow disk.", expected=tea.content)
        assert await wait_for(pilot, lambda: app.own_echoes > echoes or reread, "the watcher judging the save")
        assert reread == [] and app.own_echoes > echoes and not any(n.startswith("changed on disk") for n in notices(app))
        assert "preferences:tea" in {f"{e.item.file}:{e.item.name}" for e in backend.index.retrieve("slow disk").items}


async def test_external_change_under_unsaved_edits_opens_the_conflict_screen(backend, memory_dir) -> None:
    app = make_app(backend, watch=True)
    async with started(app, (120, 40)) as pilot:
        await draft_with_watcher(pilot, "My unsaved draft.")
        MemoryStore(memory_dir).add("preferences", "tea", "Agent rewrote it.", owner="agent")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await wait_for(pilot)
        text = screen_text(app)
        assert "My unsaved draft." in text and "Agent rewrote it." in text
    assert MemoryStore(memory_dir).get("preferences", "tea").content == "Agent rewrote it."


async def test_external_change_without_edits_reloads_the_editor(backend, memory_dir) -> None:
    app = make_app(backend, watch=True)
    async with started(app, (120, 40)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await watching(pilot)
        await pilot.press("e")
        await wait_for(pilot)
        editor = app.query_one(ItemEditor)
        assert await wait_for(pilot, lambda: app.editing and editor.text.strip() != "")
        MemoryStore(memory_dir).add("preferences", "tea", "Agent rewrote it.", owner="agent")
        assert await wait_for(pilot, lambda: editor.text == "Agent rewrote it.")
        assert not isinstance(app.screen, ConflictScreen)


async def test_a_failing_index_build_is_reported_not_fatal(backend) -> None:
    def broken(progress=None):  # type: ignore[no-untyped-def]
        raise OSError("disk on fire")

    backend.index.build = broken
    app = make_app(backend)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: any("disk on fire" in n for n in notices(app)))
        assert app.is_running
        assert "index: failed" in screen_text(app)


def test_day_files_need_ascii_digits(tmp_path: Path) -> None:
    arabic_indic = "\u0662\u0660\u0662\u0666-\u0660\u0667-\u0662\u0661"  # ٢٠٢٦-٠٧-٢١: \\d matches it, names.py does not
    assert classify(tmp_path, [tmp_path / "diary" / f"{arabic_indic}.md"]) is None
    assert classify(tmp_path, [tmp_path / "diary" / "2026-07-21.md"]) is not None


async def test_an_own_write_echo_check_can_fail(backend, memory_dir) -> None:
    """Without the own-write record the same save comes back as "changed on disk": the check above has teeth."""
    backend.own_writes.record = lambda paths: None  # type: ignore[method-assign]
    app = make_app(backend, watch=True)
    async with started(app) as pilot:
        await draft_with_watcher(pilot, "Saved by the app.")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: live(notices(app), "wiki: preferences"))
        assert app.own_echoes == 0


async def test_a_change_arriving_while_the_app_shuts_down_reaches_no_pane(memory_dir: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Textual's harness stops the app's pump, then prunes the panes while messages still arrive (a crash once)."""
    from wikimem_tui.query.query_panel import QueryPanel

    async with started(make_app(make_backend(memory_dir))) as pilot:
        app = pilot.app
        heard: list[StoreChange | None] = []
        monkeypatch.setattr(app.query_one(QueryPanel), "refresh_from_store", heard.append)
        change = StoreChange(frozenset({"preferences"}), external=False)
        app.sync.changed(change)
        assert heard == [change]  # running: the panes hear it
        monkeypatch.setattr(app, "_running", False)  # what App._shutdown does first
        app.sync.changed(change)
        assert heard == [change]  # shutting down: nobody


async def test_an_external_diary_append_reaches_the_whole_diary_index(backend, memory_dir) -> None:
    app = make_app(backend, watch=True)
    async with started(app) as pilot:
        await watching(pilot)
        index = app.backend.index
        assert await wait_for(pilot, lambda: index.ready)
        assert index.retrieve("kayak", search_diary=True).items == []  # the diary's index is built now
        MemoryStore(memory_dir).diary.append("Kayak lesson.", date="2026-07-22", time="06:00", owner="agent")

        def found() -> bool:
            return [str(r.entry_id) for r in index.retrieve("kayak", search_diary=True).items] == ["2026-07-22 06:00"]

        assert await wait_for(pilot, found)
