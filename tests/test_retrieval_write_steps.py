"""Writes of one block each are applied as steps on the file's name map, exactly as a re-read would.

The steps (``wikimem.index.write_apply._apply_steps``) take a rename, an
insertion before the end and a chain of such writes without the file's
blocks (a one-block ``FileWrite`` carries none); these tests hold them to
a fresh index over the same files -- rows, scores to the bit, and each
file's name order (what file context reads) -- and to no re-read. A step
that would re-derive too little (a later write of the chain replacing or
removing what an earlier one added, a rename keeping the old doc) fails
them.
"""

from __future__ import annotations

from pathlib import Path

from test_retrieval_write_path import _built, _rows, _same_as_fresh, _store, rereads  # noqa: F401  (a fixture)

from wikimem import MemoryStore


def test_a_rename_in_the_middle_keeps_its_place_and_leaves_its_old_name(tmp_path: Path, rereads: list[str]) -> None:
    store = _store(tmp_path)
    index = _built(store)
    store.move("notes", "n4", new_name="renamed four")
    _same_as_fresh(store, index)
    names = index.indexed().names("notes")
    assert names.index("renamed four") == 4 and "n4" not in names
    assert [row[1] for row in _rows(index, "plan 1")].count("n4") == 0
    assert rereads == []


def test_an_undone_removal_goes_back_to_its_place(tmp_path: Path, rereads: list[str]) -> None:
    store = _store(tmp_path)
    index = _built(store)
    with store.transaction() as tx:
        store.remove("notes", "n5")
    index.retrieve("tea")
    store.revert(tx.edits)  # one insertion at position 5, not at the end
    _same_as_fresh(store, index)
    assert index.indexed().names("notes").index("n5") == 5
    assert rereads == []


def test_a_chain_that_adds_then_rewrites_and_removes_the_same_names(tmp_path: Path, rereads: list[str]) -> None:
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
    assert rereads == []


def test_a_file_with_repeated_headings_is_reread_after_a_one_block_write(tmp_path: Path, rereads: list[str]) -> None:
    store = _store(tmp_path)
    path = store.file_path("solo")
    path.write_bytes(path.read_bytes() + b"\n## only\n\nthe second zebra of that name\n")  # a hand edit
    index = _built(MemoryStore(tmp_path))
    index.store.add("solo", "other", "a winter cocoa")  # fewer names than blocks: no step fits
    _same_as_fresh(index.store, index)
    assert rereads == ["solo"]
