"""Writes that only append to a bulk-loaded file (or touch what was appended since) leave its name map unmade.

``wikimem.index.write_apply._tail_steps`` keeps such items as the file's
tail after its loaded blocks (``wikimem.index.bulk_file``): the first
``add()`` to a bulk-loaded file used to make the file's whole name -> doc
map (~250 us of the query right after it at 100k items). These tests hold
the tail to a fresh index over the same files (rows, scores to the bit,
each file's name order, a hit's file neighbours), to no re-read, and to
the map staying unmade; and every write the tail cannot take (a loaded
block rewritten or removed, a name the file's bytes may hold, a rename
before the end) to the general path, which makes the map whole with the
tail in place.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_retrieval_write_path import _built, _rows, _same_as_fresh, _store, rereads  # noqa: F401  (a fixture)

from wikimem import MemoryIndex, MemoryStore
from wikimem.index.bulk_file import BulkFile
from wikimem.index.corpus import WikiCorpus


def _corpus(index: MemoryIndex) -> WikiCorpus:
    corpus = index.indexed().corpus
    assert corpus is not None
    return corpus


def _drop_map(index: MemoryIndex, file: str) -> None:
    """Forget the kept name map of ``file`` (a link lookup of the warm-up queries made one)."""
    _corpus(index)._name_maps.pop(file, None)


def _map_unmade(index: MemoryIndex, file: str) -> bool:
    """``file`` is still held as loaded blocks plus a tail, and no name map of it was made."""
    corpus = _corpus(index)
    return file in corpus._bulk and file not in corpus._name_maps and file not in corpus._names


@pytest.mark.parametrize("index_path", ["pure", "numpy"], indirect=True)
def test_appends_and_their_updates_and_removals_touch_no_loaded_name(
    tmp_path: Path, index_path: str, rereads: list[str]
) -> None:
    store = _store(tmp_path)
    index = _built(store)
    _drop_map(index, "notes")
    writes = [
        lambda: store.add("notes", "cocoa", "hot cocoa in winter"),
        lambda: store.add("notes", "cocoa", "iced zebra tea instead"),  # an update of the tail
        lambda: store.add("notes", "second", "winter plan with stripes"),
        lambda: store.add("notes", "cocoa", "cocoa provenance only", owner="user:b"),
        lambda: store.add("notes", "cocoa", "cocoa provenance only", owner="user:c"),  # the text kept: no reindex
        lambda: store.move("notes", "second", new_name="third"),  # a rename of the last
        lambda: store.remove("notes", "cocoa"),  # a removal from the tail's middle
        lambda: store.add("notes", "last one", "flat white plan"),
    ]
    for write in writes:
        write()
        index.retrieve("warm")  # one write per catch-up: each takes the tail step
        assert _map_unmade(index, "notes")
        _same_as_fresh(store, index)  # (makes and keeps the map: dropped again, so the next write finds none)
        _drop_map(index, "notes")
    bulk = _corpus(index)._bulk["notes"]
    assert list(bulk.tail) == ["third", "last one"]
    assert rereads == []


def test_a_kept_name_map_follows_the_tail(tmp_path: Path, rereads: list[str]) -> None:
    store = _store(tmp_path)
    index = _built(store)
    _drop_map(index, "notes")
    assert _corpus(index).doc("notes", "n3") is not None  # a link lookup makes and keeps the map
    for write in (
        lambda: store.add("notes", "cocoa", "hot cocoa in winter"),
        lambda: store.add("notes", "later", "winter plan"),
        lambda: store.move("notes", "later", new_name="latest"),
        lambda: store.add("notes", "cocoa", "iced cocoa"),
        lambda: store.remove("notes", "cocoa"),
    ):
        write()
        _same_as_fresh(store, index)  # the kept map in file order, the fresh build's
    assert "notes" in _corpus(index)._bulk and rereads == []


def test_file_neighbours_of_an_appended_item_are_the_fresh_builds(tmp_path: Path, rereads: list[str]) -> None:
    store = _store(tmp_path)
    index = _built(store)
    _drop_map(index, "notes")
    store.add("notes", "cocoa", "hot cocoa in winter")
    index.retrieve("warm")
    assert _map_unmade(index, "notes")
    store.add("people", "bob", "likes cocoa")
    for name in ("cocoa", "coffee", "n11"):
        index.retrieve("warm")
        corpus = _corpus(index)
        fresh = MemoryIndex(MemoryStore(store.root), use_jieba=False, postings_cache="off")
        fresh.build()
        rebuilt = _corpus(fresh)
        mine = [corpus.items[d] for d in corpus.neighbours(corpus.doc("notes", name), 3)]  # type: ignore[arg-type]
        theirs = [rebuilt.items[d] for d in rebuilt.neighbours(rebuilt.doc("notes", name), 3)]  # type: ignore[arg-type]
        assert [(i.file, i.name) for i in mine] == [(i.file, i.name) for i in theirs]  # type: ignore[union-attr]
        fresh.close()
    assert rereads == []


def _undone_removal(store: MemoryStore, name: str) -> None:
    store.add("notes", name, "an appended item")
    with store.transaction() as tx:
        store.remove("notes", name)
    store.revert(tx.edits)  # an insertion at the end: no FileWrite.fresh, so the file's bytes are searched


@pytest.mark.parametrize(
    "write",
    [
        lambda s: s.add("notes", "n3", "a loaded block rewritten"),
        lambda s: s.remove("notes", "n0"),
        lambda s: s.move("notes", "n6", new_name="n6 moved"),
        lambda s: _undone_removal(s, "tea"),  # an insertion the store did not vouch for, of a name the bytes hold
        lambda s: s.move("notes", "cocoa", new_name="renamed before the end"),
    ],
    ids=["rewrite a loaded block", "remove a loaded block", "rename a loaded block", "a name the bytes may hold",
         "rename before the tail's end"],
)
def test_what_the_tail_cannot_take_goes_the_general_way_with_the_tail_in_place(
    tmp_path: Path, rereads: list[str], write: object
) -> None:
    store = _store(tmp_path)
    index = _built(store)
    store.add("notes", "cocoa", "hot cocoa in winter")
    _drop_map(index, "notes")
    store.add("notes", "later", "winter plan")
    index.retrieve("warm")
    assert _map_unmade(index, "notes")
    write(store)  # type: ignore[operator]
    _same_as_fresh(store, index)
    assert "notes" not in _corpus(index)._bulk  # the whole map was made, tail included (checked above)
    assert rereads == []


def test_a_new_name_the_store_found_absent_is_not_searched_for(tmp_path: Path, rereads: list[str]) -> None:
    store = _store(tmp_path)
    index = _built(store)
    _drop_map(index, "notes")
    with store.transaction() as tx:
        store.add("notes", "tea", "its name is a word of the file")  # the bytes may hold it; the store's parse says no
    assert tx.writes["notes"].fresh == ("tea",)
    searched: list[str] = []
    real = BulkFile.may_hold
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(BulkFile, "may_hold", lambda self, name: searched.append(name) or real(self, name))
        index.retrieve("warm")
    assert searched == [] and _map_unmade(index, "notes")
    _undone_removal(store, "plan")  # the undo's insertion is searched for, and "plan" is in the bytes
    index.retrieve("warm")
    assert "notes" not in _corpus(index)._bulk
    _same_as_fresh(store, index)
    assert rereads == []


def test_only_an_add_of_a_new_name_is_fresh_and_a_rollback_forgets_it(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with store.transaction() as tx:
        store.add("notes", "n1", "an update")
    assert tx.writes["notes"].fresh == ()
    with store.transaction() as tx:
        with pytest.raises(RuntimeError), store.transaction():
            store.add("notes", "rolled back", "never written")
            raise RuntimeError
        store.add("people", "bob", "kept")
    assert "notes" not in tx.writes and tx.writes["people"].fresh == ("bob",)
    assert tx._fresh == [("people", "bob")]


def test_may_hold_is_never_wrong_when_it_says_no() -> None:
    from wikimem.disk.loader import FileBlocks

    data = "## alpha beta\n\ntext with gamma\n\n## 深 夜\n\n内容\n".encode()
    bulk = BulkFile(0, FileBlocks(data, 2))
    for name in ("alpha beta", "深 夜", "gamma", "alpha", "beta alpha"):
        assert bulk.may_hold(name), name  # a word of each is there
    for name in ("delta", "alpha delta", "夜深", "", "\ufffd"):
        assert bulk.may_hold(name) is (name in ("", "\ufffd")), name
    bulk.tail["delta"] = 2  # the tail is the caller's to check
    assert not bulk.may_hold("delta") and len(bulk) == 3 and bulk.order() == [0, 1, 2]
    assert list(bulk.names()) == ["alpha beta", "深 夜", "delta"]
