"""The index follows this process's own writes (and anyone else's) exactly as a fresh build would.

Oracle: after every write through the store, the index answers every query
with the same items, scores (to the bit), matched terms and provenance as a
fresh index built from the files, and holds each file's names in file
order (what a hit's file neighbours read); another writer's change to the
file must be seen.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wikimem import MemoryIndex, MemoryStore
from wikimem.index.corpus import WikiCorpus

QUERIES = ["coffee", "tea morning", "zebra", "winter cocoa", "plan", "notes tea", "moved", "flat white", "stripes"]


def _rows(index: MemoryIndex, query: str) -> list[tuple[Any, ...]]:
    result = index.retrieve(query, limit=50)
    rows = [(r.item.file, r.item.name, r.source, r.score, r.bm25_score, tuple(r.matched_terms), r.item.content,
             r.item.owner, r.item.source_conv, r.item.ts, r.tokens_est, r.via) for r in result.items]
    # Exact ties may order differently (a fresh build numbers docs in file order); scores may not differ.
    return sorted(rows, key=lambda row: (-row[3], row[0], row[1], row[2]))


def _same_as_fresh(store: MemoryStore, index: MemoryIndex) -> None:
    fresh = MemoryIndex(MemoryStore(store.root), use_jieba=False, postings_cache="off")
    for query in QUERIES:
        assert _rows(index, query) == _rows(fresh, query), query
    indexed, rebuilt = index.indexed(), fresh.indexed()
    for file in rebuilt.files():  # file order: what a hit's neighbours (file context) read
        assert indexed.names(file) == rebuilt.names(file), file
    assert indexed.files() == rebuilt.files()
    assert {f: indexed.stat(f) for f in indexed.files()} == {f: rebuilt.stat(f) for f in rebuilt.files()}
    fresh.close()


@pytest.fixture
def rereads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Files the index re-read since the test began."""
    seen: list[str] = []
    original = WikiCorpus.update_file

    def spy(self: WikiCorpus, file: str, *args: Any) -> bool:
        seen.append(file)
        return original(self, file, *args)

    monkeypatch.setattr(WikiCorpus, "update_file", spy)
    return seen


def _store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    for i in range(12):
        store.add("notes", f"n{i}", f"note {i} about tea and coffee, plan {i % 3}", owner="user:a")
    store.add("notes", "coffee", "flat white every morning")
    store.add("people", "alice", "colleague who likes [[notes:coffee]] and zebra stripes")
    store.add("solo", "only", "a lonely zebra")
    return store


def _built(store: MemoryStore) -> MemoryIndex:
    index = MemoryIndex(store, use_jieba=False, postings_cache="off")
    index.build()  # a bulk load of every file, as at scale
    index.retrieve("warm the terms up")
    for query in QUERIES:
        index.retrieve(query)  # the terms' postings packed: the writes below edit them
    return index


WRITES: list[tuple[str, Callable[[MemoryStore], Any]]] = [
    ("add", lambda s: s.add("notes", "cocoa", "hot cocoa in winter")),
    ("update", lambda s: s.add("notes", "n3", "now about winter cocoa instead")),
    ("provenance only", lambda s: s.add("notes", "n4", "note 4 about tea and coffee, plan 1", owner="user:b")),
    ("remove", lambda s: s.remove("notes", "n5")),
    ("rename in place", lambda s: s.move("notes", "n6", new_name="n6 moved")),
    ("move to another file", lambda s: s.move("notes", "coffee", new_file="drinks")),
    ("remove the last item of a file", lambda s: s.remove("solo", "only")),
    ("add to a new file", lambda s: s.add("fresh", "first", "zebra plan for winter")),
    ("remove the first item", lambda s: s.remove("notes", "n0")),
]


@pytest.mark.parametrize("index_path", ["pure", "numpy"], indirect=True)
def test_every_write_kind_matches_a_fresh_build(tmp_path: Path, index_path: str) -> None:
    store = _store(tmp_path)
    index = _built(store)
    for _what, write in WRITES:
        write(store)
        _same_as_fresh(store, index)


def test_a_transaction_and_its_undo_match_a_fresh_build(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = _built(store)
    with store.transaction() as tx:
        store.add("notes", "n1", "rewritten in a group with cocoa")
        store.remove("notes", "n2")
        store.add("people", "bob", "tea plan")
    _same_as_fresh(store, index)
    store.revert(tx.edits)
    _same_as_fresh(store, index)


def test_several_writes_before_a_query_match_a_fresh_build(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = _built(store)
    for i in range(5):
        store.add("notes", f"extra {i}", f"winter cocoa {i}")
    store.remove("notes", "extra 2")
    _same_as_fresh(store, index)


def _external(root: Path) -> MemoryStore:
    return MemoryStore(root)  # another "process": no index listens to it


def test_another_writer_after_our_write_is_seen(tmp_path: Path, rereads: list[str]) -> None:
    store = _store(tmp_path)
    index = _built(store)
    store.add("notes", "cocoa", "hot cocoa in winter")
    _external(tmp_path).add("notes", "stranger", "a zebra from elsewhere")
    _same_as_fresh(store, index)
    assert [row[1] for row in _rows(index, "elsewhere")] == ["stranger"]
    assert rereads == ["notes"]


def test_another_writer_before_our_write_is_seen(tmp_path: Path, rereads: list[str]) -> None:
    store = _store(tmp_path)
    index = _built(store)
    _external(tmp_path).add("notes", "stranger", "a zebra from elsewhere")
    store.add("notes", "cocoa", "hot cocoa in winter")  # found the stranger's bytes: the index did not hold them
    _same_as_fresh(store, index)
    assert [row[1] for row in _rows(index, "elsewhere")] == ["stranger"]
    assert rereads == ["notes"]


def test_a_hand_edit_keeping_size_and_mtime_is_caught(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = _built(store)
    store.add("notes", "cocoa", "hot cocoa in winter")
    index.retrieve("cocoa")  # applied: the index knows the file's identity after our write
    path = store.file_path("notes")
    stat = path.stat()
    data = path.read_bytes().replace(b"hot cocoa", b"hot cacao")
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    os.utime(tmp, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same mtime: only the inode differs
    os.replace(tmp, path)
    store.add("notes", "later", "a later note")
    _same_as_fresh(store, index)
    assert [row[1] for row in _rows(index, "cacao")] == ["cocoa"]


def test_a_store_that_only_names_the_file_is_still_followed(tmp_path: Path) -> None:
    class Plain:
        """A store without add_write_listener: the index re-reads each written file."""

        add_write_listener = None  # not passed on to the real store's

        def __init__(self, store: MemoryStore) -> None:
            self._store = store
            self.root = store.root
            self.diary = store.diary
            self.revision = 0
            self._listeners: list[Callable[[str], None]] = []

        def __getattr__(self, name: str) -> Any:
            return getattr(self._store, name)

        def add_listener(self, callback: Callable[[str], None]) -> None:
            self._listeners.append(callback)

        def add(self, *args: Any, **kwargs: Any) -> Any:
            out = self._store.add(*args, **kwargs)
            self.revision += 1
            for callback in self._listeners:
                callback(args[0])
            return out

    store = _store(tmp_path)
    plain = Plain(store)
    index = MemoryIndex(plain, use_jieba=False, postings_cache="off")
    index.build()
    plain.add("notes", "cocoa", "hot cocoa in winter")
    assert [r.item.name for r in index.retrieve("cocoa").items] == ["cocoa"]
    assert plain._listeners and not store._detailed


def test_a_long_batch_of_writes_is_reread_once(
    tmp_path: Path, rereads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import wikimem.freshness.pending  # noqa: PLC0415

    monkeypatch.setattr(wikimem.freshness.pending, "CHAIN_KEPT", 3)
    store = _store(tmp_path)
    index = _built(store)
    pending = wikimem.freshness.pending.PendingWrites()  # what the index hears, heard the same way beside it
    store.add_write_listener(pending.note)
    for i in range(3):
        store.add("notes", f"batch {i}", f"winter cocoa {i}")
    writes = pending.files["notes"]
    assert writes is not None and len(writes) == 3
    store.add("notes", "batch 3", "winter cocoa 3")  # one past the cap: the file will be re-read
    assert pending.files["notes"] is None
    _same_as_fresh(store, index)
    assert rereads == ["notes"]


def test_a_rename_in_the_middle_keeps_its_place_and_leaves_its_old_name(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = _built(store)
    store.move("notes", "n4", new_name="renamed four")
    _same_as_fresh(store, index)
    names = index.indexed().names("notes")
    assert names.index("renamed four") == 4 and "n4" not in names
    assert [row[1] for row in _rows(index, "plan 1")].count("n4") == 0


def test_an_undone_removal_goes_back_to_its_place(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = _built(store)
    with store.transaction() as tx:
        store.remove("notes", "n5")
    index.retrieve("tea")
    store.revert(tx.edits)  # one insertion at position 5, not at the end
    _same_as_fresh(store, index)
    assert index.indexed().names("notes").index("n5") == 5


def test_a_chain_that_adds_then_rewrites_and_removes_the_same_names(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = _built(store)
    store.add("notes", "cocoa", "hot cocoa in winter")
    store.add("notes", "cocoa", "iced zebra tea instead")  # the chain's own addition, replaced before any query
    store.add("notes", "gone", "winter plan that goes")
    store.remove("notes", "gone")
    store.move("notes", "n7", new_name="seven")
    store.add("notes", "n2", "now about stripes")
    _same_as_fresh(store, index)
    assert "cocoa" not in [row[1] for row in _rows(index, "hot")]  # its first text is gone
    assert "cocoa" in [row[1] for row in _rows(index, "zebra")]


def test_a_file_with_repeated_headings_after_a_one_block_write(tmp_path: Path) -> None:
    store = _store(tmp_path)
    path = store.file_path("solo")
    path.write_bytes(path.read_bytes() + b"\n## only\n\nthe second zebra of that name\n")  # a hand edit
    index = _built(MemoryStore(tmp_path))
    index.store.add("solo", "other", "a winter cocoa")  # fewer names than blocks
    _same_as_fresh(index.store, index)
