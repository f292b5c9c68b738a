"""Undo restores bytes, not items (issue 13, findings 1, 8 and 14), at the store's level.

``store.transaction()`` records every block a write changed (raw bytes
before and after, and where); ``store.revert`` puts exactly those bytes
back, where they were, after checking under the lock that each block still
holds exactly what the write left: its text, and its owner, source and ts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from wikimem import ConflictError, LossyWriteError, MemoryStore

TS = "2026-07-10T03:00:00+00:00"


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "wiki").rglob("*")) if p.is_file()}


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "hand.md").write_bytes(
        b"# hand\r\n\r\nprose\r\n\r\n## first\r\n\r\none\r\n\r\n## mid\r\n\r\nsee [[other:x]]\r\n\r\n## last\r\n\r\nend\r\n")
    store.add("other", "x", "target", owner="agent", source_conv="c1", ts=TS)
    return store


WRITES: dict[str, Callable[[MemoryStore], object]] = {
    "edit": lambda s: s.add("hand", "mid", "edited", ts=TS),
    "add": lambda s: s.add("hand", "new", "appended", ts=TS),
    "add to a new file": lambda s: s.add("fresh", "a", "b", ts=TS),
    "remove": lambda s: s.remove("hand", "mid"),
    "remove the last": lambda s: s.remove("hand", "last"),
    "remove a file's only item": lambda s: s.remove("other", "x"),
    "rename": lambda s: s.move("hand", "mid", new_name="middle"),
    "move with link rewrite": lambda s: s.move("other", "x", new_file="hand"),
    "rename with link rewrite": lambda s: s.move("other", "x", new_name="y"),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_revert_puts_back_every_byte_the_write_changed(store: MemoryStore, write: str) -> None:
    before = tree(store.root)
    with store.transaction() as tx:
        WRITES[write](store)
    assert tree(store.root) != before
    store.revert(tx.edits, by="tester", detail="undo")
    assert tree(store.root) == before


def test_a_reverted_rename_is_back_in_its_place_not_at_the_end(store: MemoryStore) -> None:
    with store.transaction() as tx:
        store.move("hand", "mid", new_name="middle")
    store.add("hand", "later", "written after the rename", ts=TS)
    store.revert(tx.edits)
    assert [i.name for i in store.items("hand")] == ["first", "mid", "last", "later"]


@pytest.mark.parametrize("change", [
    {"owner": "agent:other"}, {"source_conv": "conv-9"}, {"ts": "2026-07-11T00:00:00+00:00"}])
def test_revert_refuses_when_the_block_kept_its_text_but_changed_its_provenance(
    store: MemoryStore, change: dict[str, str]
) -> None:
    with store.transaction() as tx:
        store.add("other", "x", "edited", owner="agent", source_conv="c1", ts=TS)
    fields = {"owner": "agent", "source_conv": "c1", "ts": TS, **change}
    store.add("other", "x", "edited", **fields)  # an agent: same text, other provenance
    before = tree(store.root), store.journal.path.read_bytes()
    with pytest.raises(ConflictError):
        store.revert(tx.edits)
    assert (tree(store.root), store.journal.path.read_bytes()) == before


def test_revert_refuses_to_put_back_a_removed_item_that_came_back(store: MemoryStore) -> None:
    with store.transaction() as tx:
        store.remove("hand", "mid")
    store.add("hand", "mid", "someone wrote it again", ts=TS)
    with pytest.raises(ConflictError, match="hand:mid"):
        store.revert(tx.edits)


def test_revert_journals_each_item_with_its_owner_and_who_undid_it(store: MemoryStore) -> None:
    with store.transaction() as tx:
        store.move("other", "x", new_name="y", by="tester")
    start = len(store.journal.entries())
    store.revert(tx.edits, by="undoer", detail="undo of the rename")
    lines = store.journal.entries()[start:]
    assert {(e["action"], e["file"], e["item"], e.get("owner"), e["by"], e["detail"]) for e in lines} == {
        ("remove", "other", "y", "agent", "undoer", "undo of the rename"),
        ("add", "other", "x", "agent", "undoer", "undo of the rename"),
        ("update", "hand", "mid", None, "undoer", "undo of the rename"),
    }


def test_a_failed_write_inside_a_transaction_leaves_nothing_of_itself_behind(store: MemoryStore) -> None:
    (store.root / "wiki" / "dup.md").write_bytes(b"## a\n\nsee [[other:x]]\n\n## a\n\n2\n")
    with store.transaction() as tx:
        store.add("hand", "new", "kept", ts=TS)
        with pytest.raises(LossyWriteError, match="wiki/dup.md"):  # the rename was staged, then its link rewrite failed
            store.move("other", "x", new_name="y")
        with pytest.raises(LossyWriteError):
            store.add("dup", "a", "3", ts=TS)
    assert store.get("hand", "new") is not None
    assert store.get("other", "x") is not None and store.get("other", "y") is None
    assert "[[other:x]]" in store.get("hand", "mid").content  # type: ignore[union-attr]
    assert {e.file for e in tx.edits} == {"hand"}


def test_reads_inside_a_transaction_see_its_staged_writes_and_the_disk_sees_them_after(store: MemoryStore) -> None:
    with store.transaction():
        store.add("fresh", "a", "b", ts=TS)
        assert "fresh" in store.files() and store.get("fresh", "a") is not None
        assert not (store.root / "wiki" / "fresh.md").exists()
    assert (store.root / "wiki" / "fresh.md").exists()
