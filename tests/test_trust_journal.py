"""The journal: a line is whole or absent, and it says who acted (issue 13, findings 6 and 10).

A full disk often takes part of a write before it refuses the rest: the
append must then cut the file back to where the line began and raise, never
leave a torn line behind while the caller believes it failed cleanly (or,
worse, succeeded).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from wikimem import Journal


def _short_then_full(real: Any) -> Any:
    calls = [0]

    def write(fd: int, data: Any) -> int:
        calls[0] += 1
        if calls[0] == 1:
            return real(fd, bytes(data)[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    return write


def test_a_journal_line_cut_short_by_a_full_disk_is_cut_back_and_the_append_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = Journal(tmp_path / "journal.jsonl")
    journal.append("add", file="notes", name="a")
    before = journal.path.read_bytes()
    monkeypatch.setattr(os, "write", _short_then_full(os.write))
    with pytest.raises(OSError) as caught:
        journal.append("update", file="notes", name="a", detail="x" * 4000)
    monkeypatch.undo()
    assert caught.value.errno == errno.ENOSPC
    assert journal.path.read_bytes() == before
    journal.append("remove", file="notes", name="a")
    assert [e["action"] for e in journal.entries()] == ["add", "remove"]


def test_a_write_that_makes_no_progress_is_a_full_disk_not_a_silent_success(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = Journal(tmp_path / "journal.jsonl")
    monkeypatch.setattr(os, "write", lambda fd, data: 0)
    with pytest.raises(OSError, match="No space left"):
        journal.append("add", file="notes", name="a")
    monkeypatch.undo()
    assert journal.path.read_bytes() == b""


# -- finding 6: the item's owner stays the owner; who acted is ``by`` ------------------------------


def test_every_line_of_a_rename_a_move_and_a_remove_names_the_items_owner_and_who_acted(tmp_path: Path) -> None:
    from wikimem import MemoryStore

    store = MemoryStore(tmp_path)
    store.add("notes", "a", "the item", owner="agent:a", source_conv="conv-1")
    store.add("people", "linker", "see [[notes:a]]", owner="agent:b")
    start = len(store.journal.entries())
    store.move("notes", "a", new_name="renamed", owner="tui:me")  # ``owner=`` of move is who acted
    store.move("notes", "renamed", new_file="archive", by="tui:me")
    store.remove("archive", "renamed", owner="tui:me")
    lines = store.journal.entries()[start:]
    assert [(e["action"], e["file"], e["item"], e.get("owner"), e.get("by")) for e in lines] == [
        ("add", "notes", "renamed", "agent:a", "tui:me"),
        ("remove", "notes", "a", "agent:a", "tui:me"),
        ("update", "people", "linker", "agent:b", "tui:me"),  # the linking item's own owner
        ("add", "archive", "renamed", "agent:a", "tui:me"),
        ("update", "people", "linker", "agent:b", "tui:me"),
        ("remove", "notes", "renamed", "agent:a", "tui:me"),
        ("remove", "archive", "renamed", "agent:a", "tui:me"),
    ]


def test_a_remove_without_an_actor_still_names_the_items_owner(tmp_path: Path) -> None:
    from wikimem import MemoryStore

    store = MemoryStore(tmp_path)
    store.add("notes", "a", "x", owner="agent:a")
    store.remove("notes", "a")
    last = store.journal.entries()[-1]
    assert (last["action"], last.get("owner"), "by" in last) == ("remove", "agent:a", False)
