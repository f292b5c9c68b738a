"""Doc id -> item for the indexed wiki, without an object per item at scale.

Design constraint: a 1M-item store must not hold a million item objects, so
a file read in bulk keeps its bytes and block offsets and an item is parsed
when a query shows it (:class:`ItemTable`); :mod:`wikimem.index.corpus.wiki` owns
the rest of the mapping (names, files, stats).
"""

from __future__ import annotations

from bisect import bisect_right

from wikimem.disk.loader import FileBlocks, block_at
from wikimem.models import RecallItem

__all__ = ["ItemTable", "item_at"]

#: Parsed bulk items an ItemTable keeps (a few MB at most).
_PARSED_KEPT = 4096


def item_at(file: str, blocks: FileBlocks, i: int) -> RecallItem:
    """Item ``i`` of a file read in bulk, parsed as the store parses it."""
    block = block_at(blocks, i)
    return RecallItem(file, block.heading, block.content, block.owner, block.source_conv, block.ts)


class ItemTable:
    """Doc id -> item (``None`` once removed), made on demand for bulk-loaded files.

    A 1M-item store must not hold a million item objects: a file read in
    bulk (:func:`wikimem.disk.loader.read_file_blocks`) keeps its bytes and block
    offsets, and an item is parsed from them when a query shows it. Items
    written later (and files the parser had to read) are held as objects.
    """

    def __init__(self) -> None:
        self._objects: dict[int, RecallItem | None] = {}
        self._bases: list[int] = []  # first doc id of each bulk file, ascending
        self._bulk: list[tuple[str, FileBlocks]] = []
        self._n = 0
        #: Bulk items parsed lately: a query shows the same few again (emptied when full).
        self._parsed: dict[int, RecallItem] = {}

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, doc: int) -> RecallItem | None:
        found = self._objects.get(doc, self)
        if found is not self:
            return found  # type: ignore[return-value]
        if not 0 <= doc < self._n:
            raise IndexError(doc)
        item = self._parsed.get(doc)
        if item is None:
            i = bisect_right(self._bases, doc) - 1
            file, blocks = self._bulk[i]
            item = item_at(file, blocks, doc - self._bases[i])
            if len(self._parsed) >= _PARSED_KEPT:
                self._parsed.clear()
            self._parsed[doc] = item
        return item

    def __setitem__(self, doc: int, item: RecallItem | None) -> None:
        self._objects[doc] = item

    def append(self, item: RecallItem) -> None:
        self._objects[self._n] = item
        self._n += 1

    def add_blocks(self, file: str, blocks: FileBlocks) -> range:
        """Take a bulk-read file's blocks as the next docs; returns their ids."""
        base = self._n
        self._bases.append(base)
        self._bulk.append((file, blocks))
        self._n += blocks.count
        return range(base, self._n)
