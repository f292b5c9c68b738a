"""Byte-preserving writes: a write changes the bytes of the block it addresses and nothing else.

A file's raw bytes are cut at exactly the boundaries ``parse_blocks`` uses;
a write renders only the block it addresses and emits every other segment
byte for byte, so a repeated heading, a CRLF line or a byte that is not
UTF-8 in a block nobody addressed survives. What a write would still lose
is decided by one rule, :func:`problems`, shared with ``lint --fix``; such
a write raises :class:`~wikimem.errors.LossyWriteError` and writes nothing.

Every change is recorded as a :class:`BlockEdit` (the segment's bytes before
and after), so undo restores bytes, not items: it checks that the block
still holds exactly the bytes the write left and splices the old ones back
(:func:`revert_edit`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from wikimem.disk.blocks import Block, parse_blocks, render_block
from wikimem.errors import LossyWriteError
from wikimem.disk.markers import conflict_lines, has_conflict_markers

__all__ = [
    "BlockEdit",
    "RawBlock",
    "RawFile",
    "append_block",
    "check",
    "conflict_marker_lines",
    "drop_block",
    "insert_block",
    "join_segments",
    "problems",
    "render",
    "replace_block",
    "revert_edit",
    "split_raw",
]

_BOM = b"\xef\xbb\xbf"
# A line break then "## ": the block starts after the break. (A lookbehind
# would test every byte; a literal-led pattern lets the engine skip ahead.)
_HEADING = re.compile(rb"[\r\n]## ")
_EOL = re.compile(rb"\r\n|\r|\n")
_TRAILING_EOLS = re.compile(rb"(?:\r\n|\r|\n)+$")


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _lines(data: bytes) -> list[bytes]:
    return _EOL.split(data)


class RawBlock:
    """One block's segment: its bytes from the ``## `` through the blank lines after it."""

    __slots__ = ("_block", "raw")

    def __init__(self, raw: bytes, block: Block | None = None) -> None:
        self.raw = raw
        self._block = block

    @property
    def block(self) -> Block:
        """The block as ``parse_blocks`` reads it (parsed once)."""
        if self._block is None:
            self._block = parse_blocks(_decode(self.raw)).blocks[0]
        return self._block

    @property
    def heading(self) -> str:
        return self.block.heading

    def __repr__(self) -> str:
        return f"RawBlock({self.raw!r})"


@dataclass
class RawFile:
    """A file as segments; ``preamble is None`` means the file does not exist.

    ``origin`` keeps the bytes it was cut from (what an intent record calls
    "before").
    """

    preamble: bytes | None
    blocks: list[RawBlock] = field(default_factory=list)
    origin: bytes | None = None
    _eol: bytes | None = field(default=None, repr=False, compare=False)

    def data(self) -> bytes | None:
        """The file's bytes now (``None``: absent)."""
        if self.preamble is None and not self.blocks:
            return None
        return (self.preamble or b"") + b"".join(b.raw for b in self.blocks)

    def eol(self) -> bytes:
        """The line ending a rendered block uses: the file's first one (``\\n`` for a new file)."""
        if self._eol is None:
            match = _EOL.search(self.origin or self.data() or b"")
            self._eol = match.group() if match else b"\n"
        return self._eol

    def indexes(self, heading: str) -> list[int]:
        """Positions of the blocks named ``heading`` (several when it is repeated)."""
        return [i for i, b in enumerate(self.blocks) if b.heading == heading]

    def parsed(self) -> list[Block]:
        return [b.block for b in self.blocks]


def split_raw(data: bytes | None) -> RawFile:
    """Cut a file's bytes into its preamble and block segments (the boundaries of ``parse_blocks``)."""
    if data is None:
        return RawFile(None, [], None)
    start = 0
    while data.startswith(_BOM, start):  # parse_blocks strips every leading BOM
        start += len(_BOM)
    cuts = [m.start() + 1 for m in _HEADING.finditer(data, start)]
    if data.startswith(b"## ", start):
        cuts.insert(0, start)
    preamble = data[: cuts[0]] if cuts else data
    ends = cuts[1:] + [len(data)]
    # One parse of the whole text names every segment (the oracle test
    # checks that each segment alone parses to the same block).
    parsed = parse_blocks(_decode(data)).blocks if cuts else []
    if len(parsed) != len(cuts):  # never, unless the two cutters disagree: parse per segment
        parsed = [None] * len(cuts)  # type: ignore[list-item]
    return RawFile(preamble, [RawBlock(data[a:b], p) for a, b, p in zip(cuts, ends, parsed)], data)


# -- what a write would lose -------------------------------------------------------------


def conflict_marker_lines(data: bytes) -> list[int]:
    """Line numbers (1-based) of git conflict markers: the rule of :mod:`wikimem.disk.markers`, which lint reports by."""
    if not has_conflict_markers(data):
        return []
    return conflict_lines(data.decode("utf-8", errors="replace"))


def _line_of(raw: RawFile, index: int) -> int:
    """The line number on which block ``index`` starts."""
    head = (raw.preamble or b"") + b"".join(b.raw for b in raw.blocks[:index])
    return len(_lines(head))


def problems(raw: RawFile, headings: Iterable[str] | None, *, unique: bool = True) -> list[str]:
    """What writing the blocks named ``headings`` (``None``: every block) would lose, in words.

    ``unique=False`` for the diary, where repeated headings are separate
    entries. Empty when the write is safe. A removal passes no heading for
    the removed block: deleting bytes the caller asked to delete loses
    nothing they did not address (a repeated heading still refuses it: which
    one?).
    """
    out: list[str] = []
    markers = conflict_marker_lines(raw.data() or b"")
    if markers:
        out.append(f"it holds git conflict markers (lines {_numbers(markers)}): the file is mid-merge")
    wanted = None if headings is None else set(headings)
    where: dict[str, list[int]] = {}
    for i, block in enumerate(raw.blocks):  # one pass: a RecallFile may hold thousands of blocks
        if wanted is None or block.heading in wanted:
            where.setdefault(block.heading, []).append(i)
    for heading, indexes in where.items():
        if unique and len(indexes) > 1:
            lines = [_line_of(raw, j) for j in indexes]
            out.append(f"repeated headings: {heading!r} heads {len(indexes)} blocks (lines {_numbers(lines)}), "
                       "and a write cannot tell which one is meant; merge or rename them")
        for i in indexes:
            try:
                raw.blocks[i].raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = _line_of(raw, i) + len(_lines(raw.blocks[i].raw[: exc.start])) - 1
                out.append(f"the block {heading!r} holds bytes that are not UTF-8 (line {line}): "
                           "a write would turn them into U+FFFD; fix the encoding")
    return out


def _numbers(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers[:8])) + (", …" if len(numbers) > 8 else "")


def check(raw: RawFile, path: str, headings: Iterable[str] | None, what: str, *, unique: bool = True) -> None:
    """Raise :class:`LossyWriteError` (nothing written) when :func:`problems` finds any."""
    found = problems(raw, headings, unique=unique)
    if found:
        raise LossyWriteError(path, what, found)


# -- edits ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BlockEdit:
    """One segment a write changed: its raw bytes before and after (``None``: absent), and where.

    ``index`` is the block's position among the file's blocks (before the
    write for a removal, after it otherwise; ``-1``: the preamble, whose
    ``None`` means the file itself was absent). ``soft`` marks a
    whitespace-only change to a neighbour (the blank line that separates a
    block appended after it): undo restores it when it is still as the
    write left it and otherwise leaves it, since no reader can tell.
    """

    file: str
    index: int
    before: bytes | None
    after: bytes | None
    soft: bool = False

    def block(self, which: str) -> Block | None:
        """The block as the ``"before"`` or ``"after"`` bytes read (``None``: absent, or the preamble)."""
        raw = self.before if which == "before" else self.after
        if raw is None or self.index < 0:
            return None
        return RawBlock(raw).block


def render(block: Block, eol: bytes) -> bytes:
    """The block's bytes in the file's line ending (content is stored with ``\\n``)."""
    return render_block(block).encode("utf-8").replace(b"\n", eol)


def _ends_blank(raw: bytes) -> bool:
    match = _TRAILING_EOLS.search(raw)
    return match is not None and len(_EOL.findall(match.group())) >= 2


def _separate(raw: RawFile, file: str, index: int, eol: bytes) -> list[BlockEdit]:
    """Make segment ``index`` (``-1``: the preamble) end with a blank line, so a block can follow it."""
    old = raw.blocks[index].raw if index >= 0 else raw.preamble or b""
    if _ends_blank(old):
        return []
    new = old + (eol if _TRAILING_EOLS.search(old) else eol + eol)
    if index >= 0:
        raw.blocks[index] = RawBlock(new, raw.blocks[index].block)
    else:
        raw.preamble = new
    return [BlockEdit(file, index, old, new, soft=True)]


def replace_block(raw: RawFile, file: str, index: int, block: Block) -> BlockEdit:
    """Put ``block`` in the place of block ``index`` (its separator kept as a block's: a blank line unless last)."""
    old = raw.blocks[index].raw
    new = render(block, raw.eol())
    if index < len(raw.blocks) - 1 or _ends_blank(old):
        new += raw.eol()
    raw.blocks[index] = RawBlock(new, block)
    return BlockEdit(file, index, old, new)


def insert_block(raw: RawFile, file: str, block: Block, title: str, index: int | None = None) -> list[BlockEdit]:
    """Insert ``block`` at position ``index`` (default: append); a new or blank file gets ``title`` first.

    The segment before it gains the blank line that separates blocks when
    it lacks one (a ``soft`` edit); every other segment is left alone.
    """
    eol = raw.eol()
    at = len(raw.blocks) if index is None else index
    edits: list[BlockEdit] = []
    if not raw.blocks and not (raw.preamble or b"").strip():
        old, raw.preamble = raw.preamble, title.encode("utf-8") + eol + eol
        edits.append(BlockEdit(file, -1, old, raw.preamble, soft=True))
    else:
        edits += _separate(raw, file, at - 1, eol)
    new = render(block, eol) + (eol if at < len(raw.blocks) else b"")
    raw.blocks.insert(at, RawBlock(new, block))
    edits.append(BlockEdit(file, at, None, new))
    return edits


def append_block(raw: RawFile, file: str, block: Block, title: str) -> list[BlockEdit]:
    """Append ``block`` at the end of the file (see :func:`insert_block`)."""
    return insert_block(raw, file, block, title)


def join_segments(preamble: bytes | None, segments: list[bytes], eol: bytes) -> bytes:
    """A file from segments put in a new order: each but the last ends with a blank line, the last with one eol.

    For a reorder (``lint --fix`` sorting a diary day): only the blank
    lines between blocks change, never a block's own bytes.
    """
    out = [preamble or b""]
    for segment in segments:
        if out[-1] and not _ends_blank(out[-1]):
            out[-1] += eol if _TRAILING_EOLS.search(out[-1]) else eol + eol
        out.append(segment)
    last = out[-1]
    match = _TRAILING_EOLS.search(last)
    if segments and match:
        out[-1] = last[: match.start()] + _EOL.match(match.group()).group()  # type: ignore[union-attr]
    return b"".join(out)


def drop_block(raw: RawFile, file: str, index: int, title: str) -> list[BlockEdit]:
    """Remove block ``index``; the file goes too when nothing but its generated ``title`` is left.

    A hand-written preamble (notes, another title) keeps the file. The
    blank line that separated the block from the one before goes with it.
    """
    old = raw.blocks.pop(index).raw
    edits = [BlockEdit(file, index, old, None)]
    last = len(raw.blocks) - 1
    if index <= last:
        return edits
    before = raw.blocks[last].raw if last >= 0 else raw.preamble or b""
    if last < 0 and _decode(before).lstrip("\ufeff").strip() in ("", title):
        edits.append(BlockEdit(file, -1, raw.preamble, None, soft=True))
        raw.preamble = None
        return edits
    match = _TRAILING_EOLS.search(before)
    trimmed = before[: match.start()] + _EOL.match(match.group()).group() if match else before  # type: ignore[union-attr]
    if trimmed != before:
        if last >= 0:
            raw.blocks[last] = RawBlock(trimmed)
        else:
            raw.preamble = trimmed
        edits.append(BlockEdit(file, last, before, trimmed, soft=True))
    return edits


def revert_edit(raw: RawFile, edit: BlockEdit) -> BlockEdit | str | None:
    """Splice ``edit.before`` back if the file still holds ``edit.after`` exactly.

    Returns the inverse edit, or ``None`` for a soft edit left alone; a
    string (the heading that changed) when the block is no longer as the
    write left it, in which case ``raw`` is unchanged. A block that was
    changed in place goes back to its current place (a rename stays where
    it was); a removed one is put back at its old position.
    """
    if edit.index < 0 or edit.soft:
        index = edit.index
        current = raw.preamble if index < 0 else (raw.blocks[index].raw if index < len(raw.blocks) else None)
        followed = bool(raw.blocks) if index < 0 else index < len(raw.blocks) - 1
        if current != edit.after or (index >= 0 and edit.before is None):
            return None
        if followed and (edit.before is None or not _ends_blank(edit.before)):
            return None  # a block was added after it since: keep the blank line that separates them
        if index < 0:
            raw.preamble = edit.before
        else:
            raw.blocks[index] = RawBlock(edit.before)  # type: ignore[arg-type]
        return BlockEdit(edit.file, index, edit.after, edit.before, soft=True)
    if edit.after is None:  # the write removed it: it must not be back
        heading = RawBlock(edit.before).heading  # type: ignore[arg-type]
        if raw.indexes(heading):
            return heading
        index = min(edit.index, len(raw.blocks))
        raw.blocks.insert(index, RawBlock(edit.before))  # type: ignore[arg-type]
        return BlockEdit(edit.file, index, None, edit.before)
    heading = RawBlock(edit.after).heading
    where = raw.indexes(heading)
    if len(where) != 1 or raw.blocks[where[0]].raw != edit.after:
        return heading
    index = where[0]
    if edit.before is None:
        raw.blocks.pop(index)
    else:
        raw.blocks[index] = RawBlock(edit.before)
    return BlockEdit(edit.file, index, edit.after, edit.before)
