"""The on-disk block format, shared by RecallFiles and diary days.

One parser and one renderer for ``## heading`` / content / metadata comment,
so the wiki and the diary cannot drift apart. Reads are tolerant: a
hand-edited or damaged file (invalid UTF-8, CRLF, a BOM, prose before the
first heading, a malformed comment) never raises. Writes are strict: the
renderer here makes the bytes of the one block a write addresses, and
``wikimem.disk.splice`` puts them between the untouched bytes of every other
block; ``wikimem.disk.atomic`` replaces the file atomically and
``wikimem.disk.lock`` serializes writers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# The write side lives in its own modules; re-exported here because the
# vector cache, lint and the baseline import them from this one.
from wikimem.disk.atomic import atomic_write, atomic_writer, fsync_dir
from wikimem.disk.lock import LOCK_NAME, store_lock
from wikimem.disk.tolerant import read_regular

__all__ = [
    "LOCK_NAME",
    "Block",
    "ParsedFile",
    "atomic_write",
    "atomic_writer",
    "fsync_dir",
    "is_block_heading",
    "parse_blocks",
    "parse_meta_line",
    "read_blocks",
    "read_text",
    "render_block",
    "render_file",
    "render_meta",
    "store_lock",
]

_META_RE = re.compile(r"^<!--\s*wikimem:(.*)-->$")
# What render_meta writes with all three fields set (values hold no "|"):
# parse_blocks reads it directly, with the result parse_meta_line would give.
_META_FULL_RE = re.compile(r"<!-- wikimem: owner=([^|]*) \| source=([^|]*) \| ts=([^|]*?) -->")
_WS_RE = re.compile(r"\s+")
# A line starting with "## " starts a block (see is_block_heading).
_HEADING_RE = re.compile(r"^## ", re.M)
# Serialized key -> model field. "source" is surfaced as ``source_conv``.
_META_KEYS = {"owner": "owner", "source": "source_conv", "ts": "ts"}


@dataclass
class Block:
    """One ``## heading`` section as read from or written to disk."""

    heading: str
    content: str
    owner: str | None = None
    source_conv: str | None = None
    ts: str | None = None


@dataclass
class ParsedFile:
    """A whole file: the prose before the first block, then the blocks in order."""

    preamble: str
    blocks: list[Block]


def is_block_heading(line: str) -> bool:
    """True when ``line`` starts a new block (``## …``; ``###`` does not)."""
    return line.startswith("## ")


def parse_meta_line(line: str) -> dict[str, str] | None:
    """Parse a ``<!-- wikimem: k=v | … -->`` line into model fields, else ``None``.

    A comment is only metadata when every field is ``key=value`` with a
    known key, each key at most once; anything else is a malformed comment
    and stays content, as the format promises.
    """
    match = _META_RE.match(line.strip())
    if not match:
        return None
    fields: dict[str, str] = {}
    for part in match.group(1).split("|"):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in _META_KEYS or _META_KEYS[key] in fields:
            return None
        fields[_META_KEYS[key]] = value.strip()
    return fields if fields else None


def render_meta(owner: str | None, source_conv: str | None, ts: str | None) -> str | None:
    """The metadata comment for the given fields, or ``None`` when all are unset."""
    parts = [
        f"{key}={value.replace('|', '/')}"
        for key, value in (("owner", owner), ("source", source_conv), ("ts", ts))
        if value
    ]
    if not parts:
        return None
    return "<!-- wikimem: " + " | ".join(parts) + " -->"


def parse_blocks(text: str) -> ParsedFile:
    """Split a file's text into its preamble and blocks, never raising.

    Repeated headings are all returned in file order; the wiki collapses
    them (last wins) and the diary keeps them, so that choice is the
    caller's.
    """
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    # One C-level split instead of a Python step per line: a cold index load
    # parses every file of the store.
    preamble, *parts = _HEADING_RE.split(text)
    blocks: list[Block] = []
    for part in parts:
        line, _, body = part.partition("\n")
        # Headings are names: a hand-typed "##  a   b" is the item "a b",
        # exactly what sanitize_item_name makes of the same text.
        heading = _WS_RE.sub(" ", line).strip()
        # Trailing blank lines never count; the last line left may be metadata.
        body = body.rstrip()
        cut = body.rfind("\n")
        last = body[cut + 1 :].strip()
        full = _META_FULL_RE.fullmatch(last)
        if full is not None:  # what the store writes: skip the general parse
            owner, source, ts = full.groups()
            content = body[:cut].strip() if cut >= 0 else ""
            blocks.append(Block(heading, content, owner.strip() or None, source.strip() or None, ts.strip() or None))
            continue
        fields = parse_meta_line(last) if body else None
        if fields is None:
            blocks.append(Block(heading, body.strip()))
            continue
        # An empty value ("owner=") is an unset field, as on the write side.
        meta = {key: value or None for key, value in fields.items()}
        blocks.append(Block(heading, body[:cut].strip() if cut >= 0 else "", **meta))
    return ParsedFile(preamble.strip(), blocks)


def read_text(path: Path) -> str | None:
    """The file's text (invalid UTF-8 replaced), or ``None`` when it does not exist.

    A file that exists but cannot be read raises
    :class:`wikimem.disk.tolerant.UnreadableError`, so a writer refuses it
    instead of replacing what it could not read; readers skip it.
    """
    data = read_regular(path)
    return None if data is None else data.decode("utf-8", errors="replace")


def read_blocks(path: Path) -> ParsedFile:
    """Tolerant read of one block file; a missing file is an empty one.

    Raises :class:`wikimem.disk.tolerant.UnreadableError` for a file that exists
    but is not read (see :func:`read_text`).
    """
    text = read_text(path)
    return parse_blocks(text) if text is not None else ParsedFile("", [])


def render_block(block: Block) -> str:
    """One block exactly as written: heading, blank, content, [blank, comment]."""
    out = f"## {block.heading}\n\n{block.content}\n"
    meta = render_meta(block.owner, block.source_conv, block.ts)
    if meta:
        out += f"\n{meta}\n"
    return out


def render_file(preamble: str, blocks: list[Block]) -> str:
    """A whole file: the preamble (normally ``# title``), then the blocks."""
    parts = [preamble.strip() + "\n"] if preamble.strip() else []
    parts.extend(render_block(block) for block in blocks)
    return "\n".join(parts)
