"""Trust (issue 7): one checked writer, provenance kept, undo, delete that knows its backlinks, read-only.

Every test asserts on what is on disk (files and journal) after driving the
app with keys, not on private state.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from conftest import (SAFETY_NET, make_app, make_backend, notices, open_item, record_toasts, screen_text, started,
                      wait_for, wait_until)
from wikimem import ConflictError, MemoryStore
from wikimem_tui.core.backend import ReadOnlyError
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.item.conflict import ConflictScreen
from wikimem_tui.item.editor import ItemEditor
from wikimem_tui.item.item_view import ItemView

REPO = Path(__file__).resolve().parents[1]


def journal(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "journal.jsonl").read_text(encoding="utf-8").splitlines()]


def get(root: Path, file: str, name: str):  # type: ignore[no-untyped-def]
    return MemoryStore(root).get(file, name)


async def edit_and_save(pilot, file: str, name: str, text: str) -> None:  # type: ignore[no-untyped-def]
    await open_item(pilot, file, name)
    await pilot.press("e")
    await wait_for(pilot)
    pilot.app.query_one(ItemEditor).area.load_text(text)
    await pilot.press("ctrl+s")
    assert await wait_for(pilot, lambda: not pilot.app.editing)


async def undo(pilot) -> str:  # type: ignore[no-untyped-def]
    """Press ctrl+z in the item view; what the app said about it."""
    said = record_toasts(pilot.app)
    pilot.app.query_one(ItemView).focus()
    await pilot.press("ctrl+z")
    assert await wait_for(pilot, lambda: bool(said))
    await wait_for(pilot)
    return said[0]


# -- undo -------------------------------------------------------------------------------


async def test_undo_of_an_edit_restores_the_item_exactly_and_journals_what_it_undid(backend, memory_dir) -> None:
    original = get(memory_dir, "preferences", "coffee")
    async with started(make_app(backend)) as pilot:
        await edit_and_save(pilot, "preferences", "coffee", "Black, no milk.")
        assert get(memory_dir, "preferences", "coffee").content == "Black, no milk."
        assert await undo(pilot) == "undid the edit of preferences:coffee (journaled)"
        assert await wait_for(pilot, lambda: "Oat milk flat white" in screen_text(pilot.app))
    assert get(memory_dir, "preferences", "coffee") == original  # content, owner, source and ts
    last = journal(memory_dir)[-1]
    assert (last["action"], last["item"], last["detail"], last["by"]) == (
        "update", "coffee", "undo of edit of preferences:coffee", "tui:test")


async def test_undo_repeats_back_through_the_sessions_writes(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await edit_and_save(pilot, "preferences", "tea", "Green tea.")
        await edit_and_save(pilot, "preferences", "tea", "White tea.")
        await undo(pilot)
        assert get(memory_dir, "preferences", "tea").content == "Green tea."
        await undo(pilot)
        assert get(memory_dir, "preferences", "tea").content == "Jasmine tea in the afternoon."
        assert await undo(pilot) == "nothing to undo: the app has written nothing this session"


async def test_undo_from_the_command_palette(backend, memory_dir) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await edit_and_save(pilot, "preferences", "tea", "Green tea.")
        said = record_toasts(pilot.app)
        await pilot.press("ctrl+p")
        await wait_for(pilot)
        await pilot.press(*"undo")
        assert await wait_for(pilot, lambda: "Undo the app's last write" in screen_text(pilot.app))
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: bool(said))
        assert said[0] == "undid the edit of preferences:tea (journaled)"
    assert get(memory_dir, "preferences", "tea").content == "Jasmine tea in the afternoon."


async def test_ctrl_z_in_the_tree_filter_does_not_undo(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await edit_and_save(pilot, "preferences", "tea", "Green tea.")
        await pilot.click("#tree-filter")
        await pilot.press("ctrl+z")
        await wait_for(pilot)
    assert get(memory_dir, "preferences", "tea").content == "Green tea."


async def test_undo_of_a_new_item_removes_it(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("n")
        await wait_for(pilot)
        await pilot.press(*"hobbies", "enter", *"chess", "enter")
        await wait_for(pilot)
        await pilot.press(*"Plays chess.", "ctrl+s")
        assert await wait_for(pilot, lambda: get(memory_dir, "hobbies", "chess") is not None)
        await undo(pilot)
    assert get(memory_dir, "hobbies", "chess") is None
    assert journal(memory_dir)[-1]["detail"] == "undo of new item hobbies:chess"


async def test_undo_of_a_delete_brings_the_item_back_with_its_provenance(backend, memory_dir) -> None:
    original = get(memory_dir, "preferences", "coffee")
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        await pilot.press("d")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: get(memory_dir, "preferences", "coffee") is None)
        await undo(pilot)
    assert get(memory_dir, "preferences", "coffee") == original


async def test_undo_of_a_rename_puts_back_the_item_and_the_links_it_rewrote(backend, memory_dir) -> None:
    zhang_before = get(memory_dir, "people", "张伟")
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("r", "end", *" green", "enter")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.press("y")  # rewrite the link in people:张伟
        assert await wait_for(pilot, lambda: get(memory_dir, "preferences", "tea green") is not None)
        assert "[[preferences:tea green]]" in get(memory_dir, "people", "张伟").content
        await undo(pilot)
        assert await wait_for(pilot, lambda: pilot.app.query_one(ItemView).current == ("preferences", "tea"))
    assert get(memory_dir, "preferences", "tea green") is None
    assert get(memory_dir, "preferences", "tea").content == "Jasmine tea in the afternoon."
    assert get(memory_dir, "people", "张伟") == zhang_before
    undos = [e for e in journal(memory_dir) if (e.get("detail") or "").startswith("undo of move")]
    assert len(undos) == 3  # the old address back, the new one gone, the rewritten link restored


async def test_undo_of_a_promotion_restores_the_item_it_extended(backend, memory_dir) -> None:
    from wikimem_tui.common.messages import OpenDiaryDay

    alice = get(memory_dir, "people", "Alice")
    async with started(make_app(backend), (120, 40)) as pilot:
        pilot.app.post_message(OpenDiaryDay("2026-07-20", "08:30"))
        await wait_for(pilot)
        await pilot.press("p")
        await wait_for(pilot)
        await pilot.press(*"people", "enter", *"Alice", "enter")
        assert await wait_for(pilot, lambda: "evidence" in get(memory_dir, "people", "Alice").content)
        await undo(pilot)
    assert get(memory_dir, "people", "Alice") == alice


async def test_undo_refuses_when_the_item_changed_on_disk_since_and_writes_nothing(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await edit_and_save(pilot, "preferences", "tea", "Green tea.")
        MemoryStore(memory_dir).add("preferences", "tea", "The agent's tea.", owner="agent")
        before = (memory_dir / "wiki" / "preferences.md").read_bytes(), len(journal(memory_dir))
        said = await undo(pilot)
        assert said.startswith("cannot undo the edit of preferences:tea: preferences:tea changed on disk since")
        assert said.endswith("nothing written")
    assert ((memory_dir / "wiki" / "preferences.md").read_bytes(), len(journal(memory_dir))) == before


async def test_undo_after_a_diary_append_says_the_diary_is_append_only(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await edit_and_save(pilot, "preferences", "tea", "Green tea.")
        await pilot.press("a")
        await wait_for(pilot)
        pilot.app.screen.query_one("TextArea").load_text("Wrote the tests.")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: any(n.startswith("appended diary") for n in notices(pilot.app)))
        assert "the diary is append-only, so it is not undone" in await undo(pilot)
        assert any(e.content == "Wrote the tests." for e in MemoryStore(memory_dir).diary.day("2026-07-21"))
        await undo(pilot)  # …and the write before it is next
        assert get(memory_dir, "preferences", "tea").content == "Jasmine tea in the afternoon."


async def test_ctrl_z_in_the_editor_is_the_text_areas_own_undo(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await edit_and_save(pilot, "preferences", "coffee", "Black.")
        await pilot.press("e")
        await wait_for(pilot)
        await pilot.press("end", "!", "ctrl+z")
        await wait_for(pilot)
        assert pilot.app.query_one(ItemEditor).text == "Black."
    assert get(memory_dir, "preferences", "coffee").content == "Black."  # the app's undo did not run


# -- one writer, checked -------------------------------------------------------------------


async def test_a_diary_append_is_recorded_as_an_own_write_once(backend, memory_dir) -> None:
    calls: list[object] = []
    record = backend.own_writes.record
    backend.own_writes.record = lambda paths: (calls.append(paths), record(paths))  # type: ignore[method-assign]
    async with started(make_app(backend)) as pilot:
        await pilot.press("a")
        await wait_for(pilot)
        pilot.app.screen.query_one("TextArea").load_text("Once.")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: any(n.startswith("appended diary") for n in notices(pilot.app)))
    assert len(calls) == 1


def test_the_backend_refuses_every_write_when_read_only_and_says_what_it_would_have_done(memory_dir) -> None:
    backend = make_backend(memory_dir, read_only=True)
    for write in (lambda: backend.save("preferences", "tea", "x", expected="Jasmine tea in the afternoon."),
                  lambda: backend.delete("preferences", "tea", expected="Jasmine tea in the afternoon."),
                  lambda: backend.append_diary("x"), lambda: backend.undo()):
        try:
            write()
        except ReadOnlyError as exc:
            assert str(exc).startswith("read-only: would have ") and str(exc).endswith("; nothing written")
        else:
            raise AssertionError("a read-only backend wrote")


def test_backend_save_is_checked_under_the_lock(backend, memory_dir) -> None:
    MemoryStore(memory_dir).add("preferences", "tea", "Changed by the agent.", owner="agent")
    before = (memory_dir / "wiki" / "preferences.md").read_bytes()
    try:
        backend.save("preferences", "tea", "Mine.", expected="Jasmine tea in the afternoon.")
    except ConflictError as exc:
        assert exc.current == "Changed by the agent."
    else:
        raise AssertionError("a stale save went through")
    assert (memory_dir / "wiki" / "preferences.md").read_bytes() == before


async def test_a_delete_of_an_item_changed_since_it_was_shown_writes_nothing(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("d")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await wait_for(pilot)
        MemoryStore(memory_dir).add("preferences", "tea", "The agent just wrote this.", owner="agent")
        await pilot.press("y")
        assert await wait_for(pilot, lambda: any("changed on disk since it was shown" in n for n in notices(pilot.app)))
    assert get(memory_dir, "preferences", "tea").content == "The agent just wrote this."


# -- delete knows its backlinks ----------------------------------------------------------------


async def test_delete_lists_the_items_linking_to_it_and_leaves_their_links_dangling(backend, memory_dir) -> None:
    store = MemoryStore(memory_dir)
    for i in range(15):  # more than fit: the list scrolls
        store.add("links", f"fan {i:02d}", f"Points at [[preferences:coffee]] ({i}).", owner="agent")
    async with started(make_app(backend), (120, 40)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        await pilot.press("d")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await wait_for(pilot)
        text = screen_text(pilot.app)
        assert "16 items link to it; their links will dangle (shown as missing)" in text
        assert "people:Alice" in text and "Delete, leave links dangling (y)" in text
        details = pilot.app.screen.query_one("#confirm-details")
        assert details.max_scroll_y > 0  # scrollable: all 16 are there, not cut
        await pilot.press("y")
        assert await wait_for(pilot, lambda: get(memory_dir, "preferences", "coffee") is None)
        await open_item(pilot, "people", "Alice")
        assert await wait_for(pilot, lambda: "preferences:coffee  (missing)" in screen_text(pilot.app))


async def test_delete_cancel_from_the_backlinks_dialog_writes_nothing(backend, memory_dir) -> None:
    before = (memory_dir / "wiki" / "preferences.md").read_bytes()
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        await pilot.press("d")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_for(pilot)
    assert (memory_dir / "wiki" / "preferences.md").read_bytes() == before


# -- read-only creates nothing --------------------------------------------------------------------


def listing(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(root.rglob("*"))}


async def test_read_only_writes_no_byte_whatever_the_user_does(memory_dir) -> None:
    before = listing(memory_dir)
    app = make_app(make_backend(memory_dir, read_only=True), watch=True)
    async with started(app, (120, 40)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        said = record_toasts(app)
        for keys in (["e"], ["d"], ["r"], ["m"], ["n"], ["N"], ["a"], ["ctrl+z"], ["f4"], ["slash", *"coffee"],
                     ["escape", "h"], ["j"], ["c"], ["t"]):
            await pilot.press(*keys)
            await wait_for(pilot)
            while len(app.screen_stack) > 1:
                await pilot.press("escape")
                await wait_for(pilot)
        assert any("Edit would write to the memory; nothing written" in n for n in said)
        assert any("Undo would write to the memory; nothing written" in n for n in said)
    assert listing(memory_dir) == before  # no lock file, no cache, no journal line, nothing


def test_read_only_never_offers_to_create_a_missing_directory(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from wikimem_tui.__main__ import main

    assert main([str(tmp_path / "no-such-dir"), "--read-only"]) == 2
    err = capsys.readouterr().err
    assert "memory directory not found" in err and "--read-only creates nothing" in err
    assert not (tmp_path / "no-such-dir").exists()


def test_read_only_in_a_terminal_asks_nothing_and_creates_nothing(tmp_path) -> None:
    """Under a pseudo-terminal (where the prompt would appear): exit 2, no question, no directory."""
    import pty

    target = tmp_path / "no-such-dir"
    code = f"import sys; from wikimem_tui.__main__ import main; sys.exit(main([{str(target)!r}, '--read-only']))"
    pid, fd = pty.fork()
    if pid == 0:  # the child: stdin/stdout are the pty
        os.execve(sys.executable, [sys.executable, "-c", code], {**os.environ, "PYTHONPATH": str(REPO)})
    output = b""
    while True:
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 2
    assert b"Create" not in output and b"--read-only creates nothing" in output
    assert not target.exists()


# -- the race: another process writing every ~50 ms while the app saves ---------------------------------

WRITER = textwrap.dedent('''
    import pathlib, sys, time
    from wikimem import MemoryStore
    store, stop = MemoryStore(sys.argv[1]), pathlib.Path(sys.argv[1]).parent / "stop-writer"
    i = 0
    while not stop.exists() and i < 2000:
        store.add("preferences", sys.argv[2], f"{sys.argv[3]} {i}", owner="agent")
        i += 1
        time.sleep(0.05)
''')


class Writer:
    """Another process writing ``preferences:<name>`` every ~50 ms until stopped (the agent)."""

    def __init__(self, root: Path, name: str, prefix: str) -> None:
        self.root, self.name, self.prefix = root, name, prefix
        self.journal_before = len(journal(root))
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.process = subprocess.Popen([sys.executable, "-c", WRITER, str(root), name, prefix], env=env)

    def stop(self) -> int:
        """Stop it; how many writes it made (each one journaled)."""
        (self.root.parent / "stop-writer").touch()
        assert self.process.wait(timeout=SAFETY_NET) == 0
        return sum(1 for e in journal(self.root)[self.journal_before:]
                   if e.get("item") == self.name and e.get("owner") == "agent" and "by" not in e)


async def test_an_agent_writing_the_same_file_every_50ms_loses_nothing_while_the_app_saves(backend, memory_dir) -> None:
    writer = Writer(memory_dir, "coffee", "agent write")
    try:
        async with started(make_app(backend)) as pilot:
            assert await wait_for(pilot, lambda: "agent write" in get(memory_dir, "preferences", "coffee").content)
            for round_ in range(5):
                await edit_and_save(pilot, "preferences", "tea", f"App save {round_}.")
                assert not isinstance(pilot.app.screen, ConflictScreen)  # another item: never a conflict
    finally:
        writes = writer.stop()
    assert writes > 0 and get(memory_dir, "preferences", "coffee").content == f"agent write {writes - 1}"
    assert get(memory_dir, "preferences", "tea").content == "App save 4."
    assert sum(1 for e in journal(memory_dir) if e.get("item") == "tea" and e.get("by") == "tui:test") == 5


async def test_an_agent_rewriting_the_item_being_edited_is_never_overwritten(backend, memory_dir) -> None:
    writer = Writer(memory_dir, "tea", "agent tea")
    try:
        async with started(make_app(backend), (120, 40)) as pilot:
            assert await wait_for(pilot, lambda: "agent tea" in get(memory_dir, "preferences", "tea").content)
            await open_item(pilot, "preferences", "tea")
            await pilot.press("e")
            await wait_for(pilot)
            editor = pilot.app.query_one(ItemEditor)
            editor.area.load_text("My careful edit.")
            # The agent writes between the read and the save (what the check must catch).
            assert await wait_for(pilot, lambda: get(memory_dir, "preferences", "tea").content != editor.base)
            await pilot.press("ctrl+s")
            assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConflictScreen))
    finally:
        writes = writer.stop()
    assert get(memory_dir, "preferences", "tea").content == f"agent tea {writes - 1}"
    assert not any(e.get("by") == "tui:test" for e in journal(memory_dir))  # the app wrote nothing over it


WINDOW_AGENT = textwrap.dedent('''
    import pathlib, sys, time
    from wikimem import MemoryStore
    root = pathlib.Path(sys.argv[1])
    go, trying, done = root.parent / "go", root.parent / "trying", root.parent / "done"
    store = MemoryStore(root)
    (root.parent / "agent-ready").touch()
    while not go.exists():
        time.sleep(0.005)
    trying.touch()
    store.add("preferences", "tea", "The agent wrote in the window.", owner="agent")
    done.touch()
''')


async def test_no_write_lands_between_the_apps_check_and_its_write(backend, memory_dir) -> None:
    """The agent is let in right after the save reads the item: it must wait for the store lock.

    A check-then-write (read, compare, then an unchecked add) lets it in and
    then overwrites it; the checked write holds the lock from the read to the
    write, so the agent's write lands after the app's and nothing is lost.
    """
    go, trying, done = memory_dir.parent / "go", memory_dir.parent / "trying", memory_dir.parent / "done"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    agent = subprocess.Popen([sys.executable, "-c", WINDOW_AGENT, str(memory_dir)], env=env)
    real_get = backend.store.get

    def get_then_open_the_window(file: str, name: str):  # type: ignore[no-untyped-def]
        item = real_get(file, name)
        if not go.exists():
            go.touch()
            wait_until(trying.exists, "the agent to start its write")
            # A write that must not be able to happen now: a lock that let it in would
            # let it land within this window (it ends early if it does).
            for _ in range(300):
                if done.exists():
                    break
                threading.Event().wait(0.01)
        return item

    try:
        wait_until((memory_dir.parent / "agent-ready").exists, "the agent process to start")
        async with started(make_app(backend)) as pilot:
            await open_item(pilot, "preferences", "tea")
            await pilot.press("e")
            await wait_for(pilot)
            pilot.app.query_one(ItemEditor).area.load_text("The app's edit.")
            backend.store.get = get_then_open_the_window  # type: ignore[method-assign]
            await pilot.press("ctrl+s")
            assert await wait_for(pilot, lambda: not pilot.app.editing)
    finally:
        assert agent.wait(timeout=SAFETY_NET) == 0
    tea = [e for e in journal(memory_dir) if e.get("item") == "tea"]
    assert [e.get("by") or e.get("owner") for e in tea[-2:]] == ["tui:test", "agent"]  # the app first, then the agent
    assert get(memory_dir, "preferences", "tea").content == "The agent wrote in the window."  # not overwritten
