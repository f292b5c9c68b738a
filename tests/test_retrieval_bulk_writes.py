"""Writes to a bulk-loaded file match a fresh build: rows, scores, each file's name order, a hit's file neighbours.

A cold load holds a file as its bytes and consecutive doc ids and makes
its name map only when asked; a write to it (an append, an update or
removal of an appended item, a rename, a loaded block rewritten or
removed, an undone removal) must leave the index answering as a fresh
index over the same files, whether or not a name map of the file was
made before the write.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_retrieval_write_path import _built, _same_as_fresh, _store

from wikimem import MemoryIndex, MemoryStore
from wikimem.index.corpus.wiki import WikiCorpus


def _corpus(index: MemoryIndex) -> WikiCorpus:
    corpus = index.indexed().corpus
    assert corpus is not None
    return corpus


def _drop_map(index: MemoryIndex, file: str) -> None:
    """Forget the kept name map of ``file`` (a link lookup of the warm-up queries made one)."""
    _corpus(index)._name_maps.pop(file, None)


@pytest.mark.parametrize("index_path", ["pure", "numpy"], indirect=True)
def test_appends_and_their_updates_and_removals_match_a_fresh_build(tmp_path: Path, index_path: str) -> None:
    store = _store(tmp_path)
    index = _built(store)
    _drop_map(index, "notes")
    writes = [
        lambda: store.add("notes", "cocoa", "hot cocoa in winter"),
        lambda: store.add("notes", "cocoa", "iced zebra tea instead"),  # an update of the appended item
        lambda: store.add("notes", "second", "winter plan with stripes"),
        lambda: store.add("notes", "cocoa", "cocoa provenance only", owner="user:b"),
        lambda: store.add("notes", "cocoa", "cocoa provenance only", owner="user:c"),  # the text kept: no reindex
        lambda: store.move("notes", "second", new_name="third"),  # a rename of the last
        lambda: store.remove("notes", "cocoa"),  # a removal from the appended items' middle
        lambda: store.add("notes", "last one", "flat white plan"),
    ]
    for write in writes:
        write()
        index.retrieve("warm")  # one write per catch-up
        _same_as_fresh(store, index)  # (makes and keeps the map: dropped again, so the next write finds none)
        _drop_map(index, "notes")


def test_a_kept_name_map_follows_the_writes(tmp_path: Path) -> None:
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


def test_file_neighbours_of_an_appended_item_are_the_fresh_builds(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = _built(store)
    _drop_map(index, "notes")
    store.add("notes", "cocoa", "hot cocoa in winter")
    index.retrieve("warm")
    store.add("people", "bob", "likes cocoa")
    for name in ("cocoa", "coffee", "n11"):
        index.retrieve("warm")
        corpus = _corpus(index)
        fresh = MemoryIndex(MemoryStore(store.root), use_jieba=False)
        fresh.build()
        rebuilt = _corpus(fresh)
        mine = [corpus.items[d] for d in corpus.neighbours(corpus.doc("notes", name), 3)]  # type: ignore[arg-type]
        theirs = [rebuilt.items[d] for d in rebuilt.neighbours(rebuilt.doc("notes", name), 3)]  # type: ignore[arg-type]
        assert [(i.file, i.name) for i in mine] == [(i.file, i.name) for i in theirs]  # type: ignore[union-attr]
        fresh.close()


def _undone_removal(store: MemoryStore, name: str) -> None:
    store.add("notes", name, "an appended item")
    with store.transaction() as tx:
        store.remove("notes", name)
    store.revert(tx.edits)  # an insertion at the end


@pytest.mark.parametrize(
    "write",
    [
        lambda s: s.add("notes", "n3", "a loaded block rewritten"),
        lambda s: s.remove("notes", "n0"),
        lambda s: s.move("notes", "n6", new_name="n6 moved"),
        lambda s: _undone_removal(s, "tea"),  # an insertion of a name the file's bytes hold
        lambda s: s.move("notes", "cocoa", new_name="renamed before the end"),
    ],
    ids=["rewrite a loaded block", "remove a loaded block", "rename a loaded block", "a name the bytes may hold",
         "rename an appended item before the end"],
)
def test_writes_to_loaded_blocks_after_appends_match_a_fresh_build(tmp_path: Path, write: object) -> None:
    store = _store(tmp_path)
    index = _built(store)
    store.add("notes", "cocoa", "hot cocoa in winter")
    _drop_map(index, "notes")
    store.add("notes", "later", "winter plan")
    index.retrieve("warm")
    write(store)  # type: ignore[operator]
    _same_as_fresh(store, index)


def test_a_new_item_named_by_a_word_of_the_file_then_an_undone_removal_match_a_fresh_build(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = _built(store)
    _drop_map(index, "notes")
    with store.transaction():
        store.add("notes", "tea", "its name is a word of the file")  # the bytes hold "tea", as a word of other items
    index.retrieve("warm")
    _same_as_fresh(store, index)
    _drop_map(index, "notes")
    _undone_removal(store, "plan")  # an insertion at the end of a name the bytes hold ("plan 0")
    index.retrieve("warm")
    _same_as_fresh(store, index)
    assert "tea" in index.indexed().names("notes")
