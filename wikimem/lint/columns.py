"""A file's blocks as columns (names, contents, metadata, heading lines), read at C speed.

Lint reads every file of the store, and the block parser's per-block
Python (a partition, a regex, four strips and a ``Block`` per block) is
most of what a full lint costs. Files written by the library all have one
shape: ``## heading``, the content, then (nearly always) the metadata
comment, ending with a ``ts``. For that shape the whole file is read by one ``findall`` of
:data:`_BLOCK_RE`, whose groups are exactly what
:func:`wikimem.disk.blocks.parse_blocks` would return once stripped. The regex
is only trusted when it accounts for every block: each match starts at a
heading line and ends at the next one (or the end), so as many matches as
heading lines means the file was read whole. Anything else (a block
without metadata, a hand-typed comment, odd spacing) goes to the block
parser itself, so lint never sees anything the library would not. A test
holds the two readers to the same answers on randomly built files.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from itertools import accumulate, repeat
from operator import attrgetter, itemgetter

from wikimem.disk.blocks import Block, parse_blocks
from wikimem.disk.names import normalize_item_name

__all__ = ["Columns", "read_columns"]

# The last group captures the comment's final ">": a row without it has no metadata.
_META = r"<!-- wikimem: (?:owner=([^|\n]*) \| )?(?:source=([^|\n]*) \| )?ts=([^|\n]*?) --(>)"
_BLOCK_RE = re.compile(
    r"^## ([^\n]*)\n"  # the heading line
    r"((?:(?!## )[^\n]*\n)*?)"  # content lines (a "## " line would be the next block)
    rf"(?:[^\S\n]*{_META}\s*)?"  # the metadata comment, if any: the last non-blank line
    r"(?=^## |\Z)",  # ... and then the next block, or the end
    re.M,
)
_GROUPS = tuple(itemgetter(i) for i in range(6))
_ATTRS = tuple(attrgetter(name) for name in ("heading", "content", "owner", "source_conv", "ts"))
# A heading the parser would change: outer, doubled or non-space whitespace.
_ODD_SPACE_RE = re.compile(r"(?:^|\x00)\s|\s(?:\x00|$)|\s\s|[^\S ]")


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


def _unset(values: list[str]) -> list[str | None]:
    """Stripped values, an empty one unset (as the parser reads ``owner=``), interned.

    Owners and conversation ids repeat across thousands of items; one
    string each instead of one per item is a tenth of a big store's facts.
    """
    stripped: list[str | None] = list(map(sys.intern, map(str.strip, values)))
    return [value or None for value in stripped] if "" in stripped else stripped


def _ends_in_comment(content: str) -> bool:
    return content.rstrip().rpartition("\n")[2].strip().startswith("<!--")


def _parsed(text: str, lines: list[int], starts: list[int]) -> Columns:
    blocks = parse_blocks(text).blocks
    columns = [list(map(attr, blocks)) for attr in _ATTRS]
    return Columns(text, *columns, lines, starts)  # type: ignore[call-arg]  # one list per _ATTRS field


def read_columns(raw: str) -> Columns:
    """The blocks of a file's text (decoded), by the whole-file regex or else the parser."""
    text = _normal(raw)
    lines, starts = _headings(text)
    rows = _BLOCK_RE.findall(text, starts[0]) if starts else []
    if len(rows) != len(starts):  # not the library's shape throughout: the parser decides
        return _parsed(text, lines, starts)
    names, contents, owners, sources, stamps, closed = (list(map(group, rows)) for group in _GROUPS)
    if "" in closed and any(_ends_in_comment(c) for c, meta in zip(contents, closed) if not meta and "<!--" in c):
        # A block without the comment the library writes may end in one the
        # parser still reads as metadata (``<!--wikimem:ts=…-->``): its call.
        return _parsed(text, lines, starts)
    if _ODD_SPACE_RE.search("\x00".join(names)):
        names = list(map(normalize_item_name, names))
    return Columns(text, names, list(map(str.strip, contents)), _unset(owners), _unset(sources),
                   _unset(stamps), lines, starts)
