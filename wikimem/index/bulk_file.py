"""A bulk-loaded file's doc ids and names, plus the items this process appended to it since.

Why it exists: a cold load keeps a file as its bytes and a block count
(:class:`~wikimem.disk.loader.FileBlocks`) and makes its name -> doc map
only when something asks (a link lookup, a hit's neighbours). The first
write to such a file used to make that map whole (~80 us hot, ~250 us in
the query right after an ``add()``, whose store write leaves the caches
cold) for a write that needed one fact: that the name it appended is not
there yet. A :class:`BulkFile` takes the appended items as a *tail* after
the loaded blocks, so an append, and an update or removal of an appended
item, touch no loaded name (:func:`wikimem.index.write_apply._tail_steps`);
anything else (a loaded block rewritten, removed or renamed) makes the map
whole as before.

Whether a new name is taken is answered without the map: by the store,
whose ``add()`` of a new name found no block so named in its own parse of
the file (``FileWrite.fresh``), else when the file's bytes cannot hold it
(:meth:`BulkFile.may_hold`): a heading is its line's words joined by single
spaces, so a loaded block named ``name`` has every word of ``name`` in the
file's bytes; when one word is not there, nothing there is named so. When
the bytes might hold it, the map decides.
"""

from __future__ import annotations

from itertools import chain

from wikimem.disk.loader import FileBlocks, block_names

__all__ = ["BulkFile"]


class BulkFile:
    """The docs of one bulk-read file (``base`` on, one per loaded block), then the ``tail`` appended since, in order."""

    __slots__ = ("base", "blocks", "tail")

    def __init__(self, base: int, blocks: FileBlocks) -> None:
        self.base = base
        self.blocks = blocks
        #: name -> doc of the items appended after the loaded blocks (file order).
        self.tail: dict[str, int] = {}

    def __len__(self) -> int:
        return self.blocks.count + len(self.tail)

    def names(self) -> dict[str, int]:
        """The whole name -> doc map, in file order (loaded blocks have no repeated names: the load checked)."""
        base = self.base
        names = dict(zip(block_names(self.blocks.data), range(base, base + self.blocks.count)))
        names.update(self.tail)
        return names

    def may_hold(self, name: str) -> bool:
        """Whether a loaded block of the file may be named ``name`` (False: surely not; the tail is the caller's).

        A decoded word without U+FFFD is its own UTF-8 bytes in the file's
        (the loaded bytes are valid UTF-8 anyway: a file with other bytes
        is read by the parser, not in bulk).
        """
        words = name.split()
        if not words or "\ufffd" in name:
            return True
        return all(word.encode() in self.blocks.data for word in words)

    def order(self) -> list[int]:
        """The docs in file order."""
        base = self.base
        return list(chain(range(base, base + self.blocks.count), self.tail.values()))
