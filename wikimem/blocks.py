"""The on-disk block format, shared by RecallFiles and diary days.

One parser and one renderer for ``## heading`` / content / metadata comment,
so the wiki and the diary cannot drift apart. Reads are tolerant: a
hand-edited or damaged file (invalid UTF-8, CRLF, a BOM, prose before the
first heading, a malformed comment) never raises. Writes are strict and
atomic: the whole file goes to a temp file in the same directory, is fsynced
and moved into place with ``os.replace``, so a killed process leaves the old
file or the new one, never a torn one. Read-modify-write cycles of different
processes are serialized by an advisory lock on one file per store.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import threading
from collections.abc import Iterator
from typing import BinaryIO
from dataclasses import dataclass
from pathlib import Path

from wikimem.tolerant import read_regular

__all__ = [
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

LOCK_NAME = ".wikimem.lock"

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

    Only a regular file inside the memory directory is read: one that exists
    but cannot be (no permission, a FIFO, a symlink out of the memory)
    raises :class:`wikimem.tolerant.UnreadableError`, an ``OSError``, so a
    writer refuses it instead of replacing what it could not read; readers
    catch it and skip the file (see :mod:`wikimem.tolerant`).
    """
    data = read_regular(path)
    return None if data is None else data.decode("utf-8", errors="replace")


def read_blocks(path: Path) -> ParsedFile:
    """Tolerant read of one block file; a missing file is an empty one.

    Raises :class:`wikimem.tolerant.UnreadableError` for a file that exists
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


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) so readers see the old file or the new one."""
    with atomic_writer(path) as handle:
        handle.write(text.encode("utf-8"))


@contextlib.contextmanager
def atomic_writer(path: Path) -> Iterator[BinaryIO]:
    """A binary handle whose bytes replace ``path`` atomically when the block ends.

    The temp file lives in the same directory (``os.replace`` is only
    atomic within a filesystem) and is fsynced before the rename; the
    directory is fsynced after it so the rename itself survives a crash.
    If the block raises, the temp file is removed and ``path`` is untouched.
    Shared by the markdown writers and the vector cache.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp creates 0600; keep the file's mode, or the umask default.
        with contextlib.suppress(OSError, AttributeError):
            os.fchmod(fd, _target_mode(path))
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def _target_mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_UMASK


def _read_umask() -> int:
    # os.umask can only be read by setting it: do it once, at import, rather
    # than flipping the process-wide umask while other threads create files.
    umask = os.umask(0)
    os.umask(umask)
    return umask


_UMASK = _read_umask()


def fsync_dir(directory: Path) -> None:
    """fsync a directory so a rename in it survives a crash (best effort)."""
    # Not every platform lets a directory be opened for fsync; best effort.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def store_lock(root: Path) -> Iterator[None]:
    """Hold the store's advisory write lock for one read-modify-write cycle.

    One lock file per store (not per RecallFile): ``os.replace`` swaps the
    inode of the file being written, so a lock on the file itself would not
    exclude a writer that opened the new one, and writes are short enough
    that store-wide serialization costs nothing noticeable.
    """
    key = str(Path(root).resolve())
    depth = getattr(_held, key, 0)
    if depth:  # re-entrant within a thread: a compound write calls add/remove
        setattr(_held, key, depth + 1)
        try:
            yield
        finally:
            setattr(_held, key, depth)
        return
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _lock(fd)
        setattr(_held, key, 1)
        try:
            yield
        finally:
            setattr(_held, key, 0)
            _unlock(fd)
    finally:
        os.close(fd)


_held = threading.local()


try:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

except ImportError:  # Windows: msvcrt locks a byte range instead
    import msvcrt

    def _lock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # type: ignore[attr-defined]

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
