"""``refresh_files(..., skip_own_writes=True)``: a watcher's event for this process's own write changes nothing.

An app writes through the store and also watches the files; its watcher
hears its own writes back. With ``skip_own_writes`` the index applies those
writes (as a query would) and reports only a file that is not exactly as
the last of them left it. Oracle: the index then answers as a fresh one
built from the files (tests.test_retrieval_write_path).
"""

from __future__ import annotations

from pathlib import Path

from tests.test_retrieval_write_path import _built, _external, _rows, _same_as_fresh, _store, rereads  # noqa: F401


def test_a_watcher_event_for_our_own_write_reports_nothing(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = _built(store)
    store.add("notes", "cocoa", "hot cocoa in winter")
    store.remove("people", "alice")
    assert index.refresh_files(["notes", "people"], skip_own_writes=True) == []
    _same_as_fresh(store, index)
    assert [row[1] for row in _rows(index, "cocoa")] == ["cocoa"]


def test_a_file_someone_else_wrote_after_us_is_read_again(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = _built(store)
    store.add("notes", "cocoa", "hot cocoa in winter")
    store.add("solo", "second", "a second zebra")
    _external(tmp_path).add("notes", "stranger", "a zebra from elsewhere")
    assert index.refresh_files(["notes", "solo"], skip_own_writes=True) == ["notes"]
    _same_as_fresh(store, index)
    assert [row[1] for row in _rows(index, "elsewhere")] == ["stranger"]


def test_a_file_we_never_wrote_is_read_and_the_default_reads_every_file(tmp_path: Path, rereads: list[str]) -> None:
    store = _store(tmp_path)
    index = _built(store)
    _external(tmp_path).add("solo", "stranger", "a zebra from elsewhere")
    assert index.refresh_files(["solo"], skip_own_writes=True) == ["solo"]
    store.add("notes", "cocoa", "hot cocoa in winter")
    index.refresh_files(["notes"])  # unconditionally, as before
    assert rereads == ["solo", "notes"]
    _same_as_fresh(store, index)


def test_a_file_written_by_someone_else_after_our_write_was_applied_is_read_again(
    tmp_path: Path, rereads: list[str]
) -> None:
    store = _store(tmp_path)
    index = _built(store)
    store.add("notes", "cocoa", "hot cocoa in winter")
    index.retrieve("cocoa")  # our write applied: the index holds the identity it left
    _external(tmp_path).add("notes", "stranger", "a zebra from elsewhere")
    assert index.refresh_files(["notes"], skip_own_writes=True) == ["notes"]
    assert rereads == ["notes", "notes"]  # our write, then theirs
    _same_as_fresh(store, index)
