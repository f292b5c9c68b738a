"""The app's writes change only what they address, and undo restores bytes (issue 13, findings 1, 6, 8, 10, 14).

Driven with keys (Pilot) where the user is the one who sees the outcome;
the backend alone where the outcome is on disk only (the journal's words,
a full disk in the middle of a move).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import make_app, make_backend, open_item, record_toasts, screen_text, started, wait_for
from wikimem import MemoryStore
from wikimem_tui.core.backend import UndoRefused
from wikimem_tui.item.editor import ItemEditor
from wikimem_tui.item.item_view import ItemView

HAND = (b"# hand\r\n\r\nnotes kept by hand \xff\r\n\r\n"
        b"## dup\r\n\r\none\r\n\r\n"
        b"## mid\r\n\r\nin the middle\r\n\r\n"
        b"## dup\r\n\r\ntwo\r\n\r\n"
        b"## last\r\n\r\nthe end caf\xe9\r\n")


def plant_hand(root: Path) -> Path:
    path = root / "wiki" / "hand.md"
    path.write_bytes(HAND)
    return path


def journal(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / "journal.jsonl").read_text(encoding="utf-8").splitlines()]


async def edit(pilot, file: str, name: str, text: str):  # type: ignore[no-untyped-def]
    """Open ``file:name``, edit it to ``text`` and press ctrl+s; returns the editor."""
    await open_item(pilot, file, name)
    await pilot.press("e")
    assert await wait_for(pilot, lambda: pilot.app.editing)
    editor = pilot.app.query_one(ItemEditor)
    editor.area.load_text(text)
    await pilot.press("ctrl+s")
    return editor


async def undo(pilot) -> str:  # type: ignore[no-untyped-def]
    said = record_toasts(pilot.app)
    pilot.app.query_one(ItemView).focus()
    await pilot.press("ctrl+z")
    assert await wait_for(pilot, lambda: bool(said))
    return said[0]


# -- finding 1: a save that would lose data is refused in the editor, which keeps the draft -----------


async def test_saving_one_of_two_items_with_the_same_heading_is_refused_in_the_editor(memory_dir) -> None:
    path = plant_hand(memory_dir)
    before = path.read_bytes(), (memory_dir / "journal.jsonl").read_bytes()
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        editor = await edit(pilot, "hand", "dup", "my careful edit")
        assert await wait_for(pilot, lambda: "would lose data" in screen_text(pilot.app))
        text = screen_text(pilot.app)
        assert "not saved:" in text and "repeated headings" in text
        assert pilot.app.editing and editor.text == "my careful edit"  # the draft is kept
    assert (path.read_bytes(), (memory_dir / "journal.jsonl").read_bytes()) == before


async def test_renaming_one_of_two_items_with_the_same_heading_says_why_nothing_was_written(memory_dir) -> None:
    path = plant_hand(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        said = record_toasts(pilot.app)
        await open_item(pilot, "hand", "dup")
        await pilot.press("r", "end", *"2", "enter")
        assert await wait_for(pilot, lambda: any("would lose data" in s for s in said))
        assert any(s.startswith("not moved:") and "$EDITOR" in s for s in said)
    assert path.read_bytes() == HAND


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc to tell the store's writes apart")
async def test_a_save_on_a_full_disk_says_so_in_the_editor_keeps_the_draft_and_writes_nothing(memory_dir) -> None:
    path = memory_dir / "wiki" / "preferences.md"
    before = path.read_bytes(), (memory_dir / "journal.jsonl").read_bytes()
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        with disk_full_after(1, under=memory_dir):
            editor = await edit(pilot, "preferences", "tea", "a long careful edit")
            assert await wait_for(pilot, lambda: "No space left on device" in screen_text(pilot.app))
        assert "not saved:" in screen_text(pilot.app)
        assert pilot.app.is_running and pilot.app.editing and editor.text == "a long careful edit"
    assert (path.read_bytes(), (memory_dir / "journal.jsonl").read_bytes()) == before


# -- finding 8: undoing a rename puts the block back where it was, byte for byte -------------------------


async def test_undoing_a_rename_puts_the_block_back_in_its_place_byte_for_byte(memory_dir) -> None:
    path = plant_hand(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "hand", "mid")
        await pilot.press("r", "end", *"dle", "enter")
        assert await wait_for(pilot, lambda: MemoryStore(memory_dir).get("hand", "middle") is not None)
        assert path.read_bytes() == HAND.replace(b"## mid\r\n", b"## middle\r\n")  # renamed in place, nothing else
        assert (await undo(pilot)).startswith("undid the move of hand:mid")
        assert await wait_for(pilot, lambda: path.read_bytes() == HAND)


# -- finding 14: undo compares the whole block, not just its text ------------------------------------------


async def test_undo_refuses_when_an_agent_kept_the_text_but_changed_owner_and_source(backend, memory_dir) -> None:
    path = memory_dir / "wiki" / "preferences.md"
    async with started(make_app(backend)) as pilot:
        await edit(pilot, "preferences", "tea", "Green tea.")
        assert await wait_for(pilot, lambda: not pilot.app.editing)
        MemoryStore(memory_dir).add("preferences", "tea", "Green tea.", owner="agent:other", source_conv="conv-9")
        before = path.read_bytes(), len(journal(memory_dir))
        said = await undo(pilot)
        assert said.startswith("cannot undo the edit of preferences:tea: preferences:tea changed on disk since")
    assert (path.read_bytes(), len(journal(memory_dir))) == before
    assert MemoryStore(memory_dir).get("preferences", "tea").owner == "agent:other"  # type: ignore[union-attr]


# -- the backend alone: undo restores bytes, the journal's words, a full disk ------------------------------


def test_an_edit_in_a_hand_edited_file_keeps_every_other_byte_and_its_undo_restores_the_file(memory_dir) -> None:
    path = plant_hand(memory_dir)
    backend = make_backend(memory_dir)
    backend.save("hand", "mid", "edited", expected="in the middle")
    data = path.read_bytes()
    assert data.startswith(HAND[: HAND.index(b"## mid")]) and data.endswith(HAND[HAND.index(b"## dup\r\n\r\ntwo"):])
    backend.undo()
    assert path.read_bytes() == HAND


def test_undo_of_a_delete_and_of_a_move_restores_every_file_byte_for_byte(memory_dir) -> None:
    plant_hand(memory_dir)
    files = {p: p.read_bytes() for p in (memory_dir / "wiki").iterdir()}
    backend = make_backend(memory_dir)
    backend.delete("hand", "last", expected="the end caf\ufffd")
    tea = backend.store.get("preferences", "tea")
    backend.relocate("preferences", "tea", "drinks", "tea", expected=tea.content, rewrite_links=True)  # type: ignore[union-attr]
    backend.undo()
    backend.undo()
    assert {p: p.read_bytes() for p in (memory_dir / "wiki").iterdir()} == files


def test_rename_move_and_delete_journal_the_items_owner_and_the_app_as_by(memory_dir) -> None:
    backend = make_backend(memory_dir)
    start = len(journal(memory_dir))
    tea = backend.store.get("preferences", "tea")
    backend.relocate("preferences", "tea", "preferences", "tea green", expected=tea.content, rewrite_links=True)  # type: ignore[union-attr]
    backend.relocate("preferences", "tea green", "drinks", "tea green", expected=tea.content)  # type: ignore[union-attr]
    backend.delete("drinks", "tea green", expected=tea.content)  # type: ignore[union-attr]
    backend.undo()
    lines = journal(memory_dir)[start:]
    assert {(e["action"], e.get("owner"), e.get("by")) for e in lines} == {
        ("add", "agent", "tui:test"), ("remove", "agent", "tui:test"), ("update", "agent", "tui:test")}
    rewrite = next(e for e in lines if (e.get("detail") or "").startswith("link rewrite"))
    assert (rewrite["file"], rewrite["item"]) == ("people", "张伟")  # owner: the linking item's own


@contextlib.contextmanager
def disk_full_after(n: int, under: Path | None = None) -> Iterator[None]:
    """From the ``n``-th ``os.write`` on, ENOSPC (only for files under ``under`` when given: the app writes too)."""
    real = os.write
    calls = [0]

    def write(fd: int, data: Any) -> int:
        if under is not None and not os.readlink(f"/proc/self/fd/{fd}").startswith(str(under)):
            return real(fd, data)
        calls[0] += 1
        if calls[0] >= n:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    os.write = write  # type: ignore[assignment]
    try:
        yield
    finally:
        os.write = real  # type: ignore[assignment]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_a_move_with_link_rewrites_that_hits_a_full_disk_writes_nothing_and_is_not_in_undo(memory_dir, n) -> None:
    backend = make_backend(memory_dir)
    before = {p: p.read_bytes() for p in memory_dir.rglob("*") if p.is_file()}
    tea = backend.store.get("preferences", "tea")
    with disk_full_after(n), pytest.raises(OSError):
        backend.relocate("preferences", "tea", "drinks", "tea", expected=tea.content, rewrite_links=True)  # type: ignore[union-attr]
    assert {p: p.read_bytes() for p in memory_dir.rglob("*") if p.is_file()} == before
    with pytest.raises(UndoRefused, match="nothing to undo"):
        backend.undo()


def test_an_undo_that_hits_a_full_disk_is_refused_with_the_reason_and_writes_nothing(memory_dir) -> None:
    backend = make_backend(memory_dir)
    tea = backend.store.get("preferences", "tea")
    backend.relocate("preferences", "tea", "drinks", "tea", expected=tea.content, rewrite_links=True)  # type: ignore[union-attr]
    before = {p: p.read_bytes() for p in memory_dir.rglob("*") if p.is_file()}
    with disk_full_after(2), pytest.raises(UndoRefused, match="cannot undo the move .*No space left.*nothing written"):
        backend.undo()
    assert {p: p.read_bytes() for p in memory_dir.rglob("*") if p.is_file()} == before


def test_a_retraction_across_files_that_hits_a_full_disk_writes_nothing(memory_dir) -> None:
    backend = make_backend(memory_dir)
    store = backend.store
    before = {p: p.read_bytes() for p in memory_dir.rglob("*") if p.is_file()}
    marks = [store.get("people", "Alice"), store.get("preferences", "coffee")]
    with disk_full_after(3), pytest.raises(OSError):
        backend.curate(marks, [store.get("notes", "[bold]loud[/bold]")], reason="wrong", what="retraction of x")  # type: ignore[list-item]
    assert {p: p.read_bytes() for p in memory_dir.rglob("*") if p.is_file()} == before
