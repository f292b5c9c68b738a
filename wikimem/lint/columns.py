"""A file's blocks as columns (names, contents, metadata, heading lines), as the block parser reads them.

Lint never sees anything the library would not: the blocks come from
:func:`wikimem.disk.blocks.parse_blocks` itself; this module only adds
where each block's heading stands (line and offset) for findings to point at.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate, repeat
from operator import attrgetter

from wikimem.disk.blocks import Block, parse_blocks

__all__ = ["Columns", "read_columns"]

_ATTRS = tuple(attrgetter(name) for name in ("heading", "content", "owner", "source_conv", "ts"))


@dataclass(slots=True)
class Columns:
    """One file's blocks, column by column, in file order.

    ``lines`` are the 1-based heading lines and ``starts`` their offsets in
    ``text``, the file's text as the parser sees it (BOM gone, ``\\n``
    newlines).
    """

    text: str
    names: list[str]
    contents: list[str]
    owners: list[str | None]
    sources: list[str | None]
    stamps: list[str | None]
    lines: list[int]
    starts: list[int]

    def block(self, index: int) -> Block:
        """Block ``index`` as the parser returns it."""
        return Block(self.names[index], self.contents[index], self.owners[index], self.sources[index],
                     self.stamps[index])


def _normal(text: str) -> str:
    text = text.lstrip("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _headings(text: str) -> tuple[list[int], list[int]]:
    """Each block heading's 1-based line and offset in ``text`` (already normal).

    The parser splits at ``^## ``, so a block starts exactly where a line
    starts with ``## ``: ``str.find`` hops from one to the next, and the
    lines between are counted in one C-level ``map``.
    """
    starts = [0] if text.startswith("## ") else []
    find, at = text.find, text.find("\n## ")
    while at >= 0:
        starts.append(at + 1)
        at = find("\n## ", at + 1)
    gaps = list(map(text.count, repeat("\n"), [0, *starts[:-1]], starts))
    return list(accumulate(gaps, initial=1))[1:], starts


def _parsed(text: str, lines: list[int], starts: list[int]) -> Columns:
    blocks = parse_blocks(text).blocks
    columns = [list(map(attr, blocks)) for attr in _ATTRS]
    return Columns(text, *columns, lines, starts)  # type: ignore[call-arg]  # one list per _ATTRS field


def read_columns(raw: str) -> Columns:
    """The blocks of a file's text (decoded), column by column."""
    text = _normal(raw)
    lines, starts = _headings(text)
    return _parsed(text, lines, starts)
