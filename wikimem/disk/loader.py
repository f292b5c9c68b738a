"""Cold loads at scale: a RecallFile read straight into search forms, no object per item.

Design constraint: a cold load of a 1M-item store cannot afford the block
parser's Python steps and an item object per block. :func:`read_file_blocks`
reads a file in a few whole-file passes into every block's text ready to be
made search forms; items are made only when asked for (:func:`block_at`,
with the block parser itself). Anything unusual (a repeated heading, a
comment that is not the store's metadata line, a byte the forms use as a
marker) returns ``None`` and the caller reads that file through the
store's parser. Oracle tests hold both readings equal.
"""

from __future__ import annotations

import contextlib
import gc
import re
import threading
from array import array
from collections.abc import Iterator
from itertools import repeat
from functools import partial
from operator import add, is_not, methodcaller
from pathlib import Path

from wikimem.disk.blocks import Block, parse_blocks
from wikimem.disk.tolerant import read_regular

__all__ = ["FileBlocks", "block_names", "block_at", "gc_paused", "load_scope", "made_forms", "read_file_blocks"]

# The block format's heading: a line starting "## " (see wikimem.disk.blocks).
# Searched as "\n## " (plus the text's start): a literal prefix the regex
# engine finds fast, where a multiline "^" is checked at every position.
_HEADING_BYTES = b"\n## "
_HEADING_RE = re.compile(_HEADING_BYTES)
_HEADING_LINE = re.compile(rb"\n## ([^\n]*)")
_BOM = "\ufeff".encode()
_BREAK = b"\x00"  # DOC_BREAK (wikimem.index.forms.scan), as UTF-8
_match_start = methodcaller("start")
_is_not_none = partial(is_not, None)
# A RecallFile split at its headings, in one regex pass: each "\n## " with
# its heading line, and the metadata line the store writes (render_meta:
# owner, source, ts in that order, each optional) when it is the block's
# last non-blank line before that heading (the parser's rule): one pass,
# where heading lines, a metadata split and a replace of each heading by
# the break would each be a whole-file pass; the join of this split's
# parts does all three.
# Any other comment -- indented, reordered, hand-made -- stays in the text
# and sends the file to the parser. The metadata is found by a loose
# pattern (a literal prefix the regex engine skips to fast), its fields
# checked afterwards all at once: a strict pattern per line would cost
# more than the whole-file pass.
_BLOCKS = re.compile(rb"\n(?:<!-- wikimem: ([^\n]*) -->\s*\n)?## ([^\n]*)")
_META_START = b"\n<!-- wikimem: "
# The last block's metadata line: nothing but blanks after it.
_LAST_META = re.compile(rb"\n<!-- wikimem: ([^\n]*) -->\s*")
# Possessive (no backtracking state kept per byte of a value, a cost paid
# for every metadata line of a load): a value takes the blank before " | " too,
# so the separator is "| " after a blank (a lookbehind). Same language as
# the plain pattern (``owner=V( | source=V)?( | ts=V)?``, ...; V = [^|\n]*):
# tests/test_loader.py compares them.
_V = rb"=[^|\n]*+"
_SEP = rb"(?<= )\| "
_FIELDS = (rb"(?:owner" + _V + rb"(?:" + _SEP + rb"source" + _V + rb")?+(?:" + _SEP + rb"ts" + _V + rb")?+"
           rb"|source" + _V + rb"(?:" + _SEP + rb"ts" + _V + rb")?+|ts" + _V + rb")")
_META_FIELDS = re.compile(_FIELDS + rb"(?:\n" + _FIELDS + rb")*+")
#: Whitespace other than one ASCII space inside a heading (UTF-8): the
#: parser collapses it, so two different heading lines may name one item.
_ODD_SPACES = (b"  ", b"\t", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f", b"\n ", b" \n",
               b"\xc2\x85", b"\xc2\xa0", b"\xe1\x9a\x80", b"\xe2\x80", b"\xe2\x81\x9f", b"\xe3\x80\x80")
#: Every byte but those: each of _ODD_SPACES holds a blank, a control byte or one of four UTF-8 lead bytes.
_NO_ODD_SPACE_BYTE = bytes(c for c in range(256) if c not in b" \t\x0b\x0c\x1c\x1d\x1e\x1f\xc2\xe1\xe2\xe3")


class FileBlocks:
    """One RecallFile as a cold load keeps it: its UTF-8 bytes and its block count.

    Bytes, not text: UTF-8 takes less memory than ``str`` for CJK text, and a
    block is decoded (and where blocks start found) only when an item of the
    file is asked for, which most files of a large store never are.
    """

    __slots__ = ("_starts", "count", "data")

    def __init__(self, data: bytes, count: int) -> None:
        self.data = data  # the file as the block parser reads it (BOM and CR gone), UTF-8
        self.count = count  # blocks (items)
        self._starts: array[int] | None = None

    @property
    def starts(self) -> array[int]:
        """Byte offset where each block's ``## `` line starts, then ``len(data)``."""
        if self._starts is None:
            data = self.data
            starts = array("i", [0] if data.startswith(b"## ") else [])
            starts.extend(map(add, map(_match_start, _HEADING_RE.finditer(data)), repeat(1)))
            starts.append(len(data))
            self._starts = starts
        return self._starts


def read_file_blocks(path: Path) -> tuple[FileBlocks, bytes] | None:
    """The file's blocks in bulk, or ``None`` when it needs the block parser (or is missing/empty).

    Also returns the blocks' searchable text: each block's name + content,
    joined by ``DOC_BREAK``, UTF-8, ready for :func:`wikimem.index.forms.scan.scan_joined`
    (several files' at once: joined by ``DOC_BREAK`` again). Invalid UTF-8
    is found there (the parser replaces it; the caller then uses the parser).
    """
    try:
        data = read_regular(path)
    except OSError:  # unreadable: the store's reader skips it, with its warning
        return None
    if data is None:
        return None
    data = data.removeprefix(_BOM)
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if b"\x00" in data or b"\x01" in data:
        return None
    # A block starts at the file's start or one past a "\n## "; the split
    # starts at the first heading's "\n" (the prose before it is no item).
    if data.startswith(b"## "):
        parts = _BLOCKS.split(b"\n" + data)
    else:
        first = data.find(_HEADING_BYTES)
        if first < 0:
            return None
        parts = _BLOCKS.split(data[first:])
    # [b"", meta, heading, rest, meta, heading, rest, ...]: the metadata
    # before each heading (None: none), the heading line, the block's text after it.
    lines = parts[2::3]
    if len(set(lines)) != len(lines):
        return None  # repeated headings collapse (last wins): the parser's job
    joined_lines = b"\n".join(lines)
    # One byte-table pass first: headings without a byte any of those
    # sequences holds (slugs, CJK from U+4000 on) skip their 16 searches.
    odd = bool(joined_lines.translate(None, _NO_ODD_SPACE_BYTE)) and any(map(joined_lines.__contains__, _ODD_SPACES))
    if odd or joined_lines.startswith(b" ") or joined_lines.endswith(b" "):
        names = block_names(data)  # collapsing whitespace may make two names one: check the parser's names
        if len(set(names)) != len(names):
            return None
    metas = parts[1::3]
    last = parts[-1]
    at = last.rfind(_META_START)
    found = _LAST_META.fullmatch(last, at) if at >= 0 else None
    if found is not None:  # the last block's metadata: no heading after it
        metas.append(found.group(1))
        parts[-1] = last[:at]
    body = _BREAK.join(map(add, lines, parts[3::3]))
    if b"<" in body and b"<!--" in body:  # ("<" alone is a one-byte search: most texts hold none)
        return None
    metas = list(filter(_is_not_none, metas))  # (an empty line is no fields: the check refuses it)
    if metas and _META_FIELDS.fullmatch(b"\n".join(metas)) is None:
        return None
    return FileBlocks(data, len(lines)), body


def _heading_lines(data: bytes) -> list[bytes]:
    """Each block's raw heading line (after ``## ``)."""
    lines = _HEADING_LINE.findall(data)
    if data.startswith(b"## "):
        lines.insert(0, data[3:].partition(b"\n")[0])
    return lines


def block_names(data: bytes) -> list[str]:
    """Each block's item name, as the parser makes it (whitespace runs one space, ends stripped)."""
    lines = _heading_lines(data)
    # One decode for all names: a bad byte never spans the "\n" between them.
    return list(map(" ".join, map(str.split, _decode(b"\n".join(lines)).split("\n")))) if lines else []


def _decode(line: bytes) -> str:
    return line.decode("utf-8", "replace")


def block_at(blocks: FileBlocks, i: int) -> Block:
    """Block ``i`` of a file read by :func:`read_file_blocks`, parsed as the store parses it."""
    return parse_blocks(_decode(blocks.data[blocks.starts[i] : blocks.starts[i + 1]])).blocks[0]


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC during a cold load, and scope the load's numpy switch (:func:`load_scope`).

    A load creates objects that all survive and no cycles; generational
    collection would keep traversing them, and every other object of the
    process, for nothing. Re-enabled afterwards only if it was on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with load_scope():
            yield
    finally:
        if was_enabled:
            gc.enable()


class _Made(threading.local):
    """Characters of scan forms made by this thread's cold load so far; None: not in one (see :func:`load_scope`)."""

    size: int | None = None


#: This thread's count (read and added to by :mod:`wikimem.index.forms.load_scope`).
made_forms = _Made()


@contextlib.contextmanager
def load_scope() -> Iterator[None]:
    """One cold load, for the numpy switch: the forms made inside count toward ``SCAN_MIN`` (:mod:`wikimem.index.vectorized`) by themselves.

    numpy's import is paid back only on a large load, so the forms take its
    path once *this* load has made enough of them, not once a process that
    rebuilds a small store again and again has. Outside a scope each call
    counts alone; two threads count apart.
    """
    outer = made_forms.size
    made_forms.size = 0
    try:
        yield
    finally:
        made_forms.size = outer
