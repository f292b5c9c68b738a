"""The segment cache: every term of each cold-load segment, so that a first use is a lookup.

Why it exists: a fresh process finds a term's postings by searching every
segment's scan forms, a pass over the forms whatever the term (ADR 0005);
the postings cache (:mod:`wikimem.index.postings_cache`) saves that only for
the common terms a warm-up packed, so a query's rare terms still cost 5-20
ms each at 100k items and ten times that at 1M. This file holds each
segment's whole term table (:mod:`wikimem.index.inversion`), written by a
warm-up, so any term's postings in a segment are a binary search away.

Design constraints:

* **Never the source of truth.** A segment is used only by a load whose
  segment has the same key -- the same files with the same ``(mtime_ns,
  size)``, the same document count and per-document token counts, the same
  analyzer and scan format (:func:`segment_key`) -- so a store that changed
  one file still finds every other segment. Postings are kept relative to
  the segment's first document, so a segment whose documents moved (a file
  before it grew) still matches. Anything else -- a missing, truncated,
  foreign or corrupt file, a table or block failing its CRC -- reads as
  "not cached" for that segment or the whole file, and the term is searched
  as without the cache. Deleting the file at any time is safe.
* **Cheap to open.** Opening reads a footer (one line of JSON per segment)
  and maps the file; a segment's keys are checked (CRC) on their first use,
  a block of 64 terms' starts and postings on the block's first use.
* Numpy only: the tables are numpy arrays viewed in the mapped file.

Layout (``postings.segments`` next to the markdown): the sections, one per
segment -- latin keys (``S{w}``, sorted), their postings starts, doc ids,
tfs, block CRCs; then the same for the CJK keys (``uint32``) -- then a JSON
footer, its length (8 bytes, little-endian) and the magic ``WMSEG001``.
Written atomically (temp file + fsync + rename).
"""

from __future__ import annotations

import hashlib
import json
import logging
import mmap
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from wikimem.disk.blocks import atomic_writer
from wikimem.disk.tolerant import open_regular, parse_json
from wikimem.index.inversion import ALL, Inverted, cjk_key
from wikimem.index.scan import term_form

__all__ = ["BLOCK", "SEGMENTS_NAME", "SegmentCache", "segment_key", "write_segments"]

log = logging.getLogger(__name__)

SEGMENTS_NAME = "postings.segments"
#: Terms per block CRC of their postings.
BLOCK = 64
_MAGIC = b"WMSEG001"
_FORMAT = 1
_TAIL = 16  # footer length + magic


def segment_key(layout: str, files: Sequence[tuple[str, tuple[int, int] | None]], n_docs: int, lengths_crc: int) -> str | None:
    """What a segment was made of: the scan layout, its files and their stats, its docs' token counts (a CRC).

    None when a file's stat is unknown: nothing would tell its next version from this one.
    """
    if any(stat is None for _, stat in files):
        return None
    return hashlib.sha256(repr((layout, list(files), n_docs, lengths_crc)).encode()).hexdigest()


def term_key(term: str) -> tuple[bool, bytes | int] | None:
    """``(latin?, key)`` of a term as the tables hold it (:func:`wikimem.index.scan.term_form`); None: in no text.

    A CJK pair outside the tables' code units (the Basic Multilingual
    Plane) gets the key -1: searched, never looked up.
    """
    form = term_form(term)
    if form is None:
        return None
    latin, word = form
    if latin:
        return True, word.encode()
    return False, cjk_key(word) if max(map(ord, word)) <= 0xFFFF else -1


class _Half:
    """One half (latin or CJK) of a segment's section, viewed in the mapped file."""

    def __init__(self, np: Any, buf: Any, at: int, dtype: str, n: int, posts: int, covers: int) -> None:
        size = np.dtype(dtype).itemsize
        self.keys = np.frombuffer(buf, dtype=dtype, count=n, offset=at)
        at += n * size
        self.starts = np.frombuffer(buf, dtype="<i4", count=n + 1, offset=at)
        at += 4 * (n + 1)
        self.docs = np.frombuffer(buf, dtype="<i4", count=posts, offset=at)
        at += 4 * posts
        self.tfs = np.frombuffer(buf, dtype="<i4", count=posts, offset=at)
        at += 4 * posts
        blocks = -(-n // BLOCK)
        self.crcs = np.frombuffer(buf, dtype="<u4", count=blocks, offset=at)
        self.end = at + 4 * blocks
        self.covers = covers
        self.width = size
        self.checked = bytearray(blocks)

    def find(self, np: Any, key: bytes | int, base: int) -> tuple[bytes, bytes] | None:
        """The key's doc ids (from ``base``) and tfs as ``array('i')`` bytes (empty: absent); None: its block fails its CRC."""
        i = _position(np, self.keys, key)
        if i is None:
            return _ABSENT
        block = i // BLOCK
        if not self.checked[block]:
            if _block_crc(self.keys, self.starts, self.docs, self.tfs, block) != int(self.crcs[block]):
                return None
            self.checked[block] = 1
        return _postings(np, self.starts, self.docs, self.tfs, i, base)


class _Held:
    """One half a warm-up just inverted, served from memory until the file holding it is written and opened.

    Why: writing the tables of a 1M-item store takes the warm-up ~10-20 s,
    and a query typed meanwhile paid a full first use (every segment
    searched) although most segments were inverted already. Nothing to
    check: the arrays never left this process.
    """

    def __init__(self, inverted: Inverted) -> None:
        self.keys, self.starts, self.docs, self.tfs = inverted.keys, inverted.starts, inverted.docs, inverted.tfs
        self.covers = inverted.covers
        self.width = inverted.keys.dtype.itemsize

    def find(self, np: Any, key: bytes | int, base: int) -> tuple[bytes, bytes]:
        """The key's doc ids (from ``base``) and tfs as ``array('i')`` bytes (empty: absent)."""
        i = _position(np, self.keys, key)
        return _ABSENT if i is None else _postings(np, self.starts, self.docs, self.tfs, i, base)


_ABSENT = (b"", b"")
#: The footer entry of a segment held in memory (:meth:`SegmentCache.hold`).
_HELD: dict[str, Any] = {"held": True}


def _position(np: Any, keys: Any, key: bytes | int) -> int | None:
    """Where ``key`` is in the sorted ``keys``; None: not there."""
    i = int(np.searchsorted(keys, key))
    return i if i < len(keys) and keys[i] == key else None


def _postings(np: Any, starts: Any, docs: Any, tfs: Any, i: int, base: int) -> tuple[bytes, bytes]:
    lo, hi = int(starts[i]), int(starts[i + 1])
    intc = np.intc  # array('i')'s C int, native order
    return (docs[lo:hi] + base).astype(intc).tobytes(), tfs[lo:hi].astype(intc).tobytes()


def _block_crc(keys: Any, starts: Any, docs: Any, tfs: Any, block: int) -> int:
    a, b = block * BLOCK, min(len(keys), (block + 1) * BLOCK)
    lo, hi = int(starts[a]), int(starts[b])
    crc = zlib.crc32(keys[a:b].tobytes())
    crc = zlib.crc32(starts[a : b + 1].tobytes(), crc)
    return zlib.crc32(tfs[lo:hi].tobytes(), zlib.crc32(docs[lo:hi].tobytes(), crc))


class SegmentCache:
    """A validated segment cache, matched segment by segment to the current load."""

    def __init__(self, path: Path, np: Any, buf: Any, where: list[dict[str, Any] | None]) -> None:
        self.path = path
        self._np = np
        self._buf = buf
        self._where = where  # per current segment: its footer entry, or None (not cached)
        #: (segment, latin?) -> its half once opened (or held); None: the file does not hold that half.
        self._halves: dict[tuple[int, bool], _Half | _Held | None] = {}
        self.broken = False

    @classmethod
    def growing(cls, path: Path, n_segments: int, np: Any, old: SegmentCache | None) -> SegmentCache:
        """A cache to :meth:`hold` segments in as a warm-up inverts them, serving ``old``'s (same path) meanwhile."""
        if old is None or old.broken:
            return cls(path, np, None, [None] * n_segments)
        grown = cls(path, np, old._buf, list(old._where))
        grown._halves = dict(old._halves)
        return grown

    def hold(self, at: int, latin: Inverted | None, cjk: Inverted | None) -> None:
        """Serve segment ``at`` from these just inverted halves (None: that half is searched), from now on.

        Safe beside a query in another thread: the halves are in place
        before the segment says it is held, and :meth:`half` never caches
        "not held".
        """
        self._halves[(at, True)] = _Held(latin) if latin is not None else None
        self._halves[(at, False)] = _Held(cjk) if cjk is not None else None
        self._where[at] = _HELD

    @classmethod
    def open(cls, path: Path, keys: Sequence[str | None], np: Any) -> SegmentCache | None:
        """The cache at ``path`` for the segments with these keys, or None when it has none of them."""
        try:
            handle = open_regular(path)
            if handle is None:
                return None
            with handle as fh:
                buf = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            return None
        try:
            footer = _footer(buf)
            entries = footer["segments"] if footer.get("format") == _FORMAT else {}
            where = [entries.get(key) if key is not None else None for key in keys]
            where = [e if isinstance(e, dict) and _in_bounds(e, len(buf)) else None for e in where]
        except (ValueError, TypeError, KeyError, AttributeError):
            where = []
        if not any(where):
            buf.close()
            return None
        return cls(path, np, buf, where)

    def covered(self) -> int:
        """How many of the load's segments this file holds."""
        return sum(1 for e in self._where if e is not None)

    def holds(self, at: int) -> bool:
        """Whether segment ``at`` is in this file (and the file is not known damaged)."""
        return not self.broken and self._where[at] is not None

    def lookup(self, at: int, term: tuple[bool, bytes | int], base: int) -> tuple[bytes, bytes] | None:
        """Segment ``at``'s doc ids (from ``base``) and tfs of a :func:`term_key`, as ``array('i')`` bytes.

        None: not cached here (search the segment instead).
        """
        latin, key = term
        if self.broken or (not latin and key == -1):
            return None
        half = self.half(at, latin)
        if half is None:
            return None
        if latin:
            assert isinstance(key, bytes)
            if len(key) > half.covers:
                return None
            if len(key) > half.width:
                return _ABSENT
        found = half.find(self._np, key, base)
        if found is None:
            self._damaged()
        return found

    def half(self, at: int, latin: bool) -> _Half | _Held | None:
        """Segment ``at``'s latin or CJK half, its keys checked against their CRC on first use; None: not held.

        Only the keys are checked as a whole (a binary search reads any of
        them; ~1/4 of a section); starts, postings and block CRCs are
        checked a block at a time by :meth:`_Half.find`.
        """
        slot = (at, latin)
        if slot in self._halves:
            return self._halves[slot]
        entry = self._where[at]
        if entry is None or self.broken:
            return None  # not cached: a growing cache may hold the segment later
        half: _Half | None = None
        try:
            spec = entry["latin" if latin else "cjk"]
            if spec is not None:
                if latin:
                    pos, width, n, posts, covers, crc = (int(v) for v in spec)
                    dtype = f"S{width}"
                else:
                    pos, n, posts, crc = (int(v) for v in spec)
                    dtype, covers = "<u4", ALL
                half = _Half(self._np, self._buf, pos, dtype, n, posts, covers)
                if half.end > int(entry["end"]) or zlib.crc32(half.keys.tobytes()) != crc:
                    raise ValueError("keys fail their CRC")
        except (ValueError, TypeError, KeyError):
            self._damaged()
            return None
        self._halves[slot] = half
        return half

    def _damaged(self) -> None:
        log.warning("segment cache %s is damaged; searching instead", self.path)
        self.broken = True


def _footer(buf: Any) -> dict[str, Any]:
    size = len(buf)
    if size < _TAIL or buf[size - 8 :] != _MAGIC:
        raise ValueError("not a segment cache")
    length = int.from_bytes(buf[size - _TAIL : size - 8], "little")
    if length <= 0 or length > size - _TAIL:
        raise ValueError("bad footer length")
    footer = parse_json(bytes(buf[size - _TAIL - length : size - _TAIL]))
    if not isinstance(footer, dict):
        raise ValueError("bad footer")
    return footer


def _in_bounds(entry: dict[str, Any], size: int) -> bool:
    try:
        return 0 <= int(entry["end"]) <= size - _TAIL
    except (KeyError, TypeError, ValueError):
        return False


Tables = tuple["Inverted | _Half | _Held | None", "Inverted | _Half | _Held | None"]


def write_segments(path: Path, np: Any, sections: Iterable[tuple[str, Tables]]) -> int:
    """Write each segment's (key, (latin, cjk)) tables, atomically; the number of segments written.

    A half kept from an earlier file (a ``_Half``) keeps its block CRCs as
    they were stored, so damage in its postings is not laundered into a new
    file's checksums.
    """
    entries: dict[str, dict[str, Any]] = {}
    with atomic_writer(path) as fh:
        pos = 0
        for key, (latin, cjk) in sections:
            entry: dict[str, Any] = {"latin": None, "cjk": None}
            for name, half in (("latin", latin), ("cjk", cjk)):
                if half is None:
                    continue
                keys = half.keys if name == "latin" else half.keys.astype("<u4")
                blocks = half.crcs if isinstance(half, _Half) else _block_crcs(np, half)
                shape = [keys.dtype.itemsize, len(keys), len(half.docs), half.covers] if name == "latin" else [len(keys), len(half.docs)]
                entry[name] = [pos, *shape, zlib.crc32(keys.tobytes())]
                for part in (keys, half.starts.astype("<i4"), half.docs.astype("<i4"), half.tfs.astype("<i4"), blocks):
                    pos += _write(fh, part)
            entry["end"] = pos
            entries[key] = entry
        footer = json.dumps({"format": _FORMAT, "segments": entries}, separators=(",", ":")).encode()
        fh.write(footer)
        fh.write(len(footer).to_bytes(8, "little"))
        fh.write(_MAGIC)
    return len(entries)


def _block_crcs(np: Any, half: Inverted | _Held) -> Any:
    keys = half.keys if half.keys.dtype.kind == "S" else half.keys.astype("<u4")
    starts = half.starts.astype("<i4")
    docs, tfs = half.docs.astype("<i4"), half.tfs.astype("<i4")
    n = len(keys)
    return np.array([_block_crc(keys, starts, docs, tfs, j) for j in range(-(-n // BLOCK))], dtype="<u4")


def _write(fh: BinaryIO, values: Any) -> int:
    data = values.tobytes()
    fh.write(data)
    return len(data)
