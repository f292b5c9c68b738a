"""The on-disk postings cache: derived state that saves a large store's first queries.

Design constraint: the cache is never the source of truth. It holds, for
the common terms a warm-up packed, their postings *within the segments of
one cold load* (doc ids as that load numbered them), and is used only by a
load whose segments are provably the same: the same files in the same order
with the same ``(mtime_ns, size)``, the same per-segment document count and
the same per-document token counts (a CRC of them), the same scan format.
Anything else -- another load, a truncated or corrupt file, an unknown
format, a term whose bytes fail their CRC -- reads as "no cache" and the
term is scanned as without one. Deleting the file at any time is safe.
Writes added after the load (raw occurrences, tombstones) are merged by the
index exactly as for scanned postings, so a cache written by any process
with the same load layout stays exact.

Layout (``postings.cache`` next to the markdown): one JSON header line
(format, fingerprint, byte order, payload length, and per term its offset,
posting count and CRC), then the payload: per term its doc ids then its tfs,
``array('i')`` native bytes. Written atomically (temp file + fsync +
rename); read lazily, one term at a time, when a query first needs it.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import zlib
from array import array
from collections.abc import Mapping
from pathlib import Path

from wikimem.disk.blocks import atomic_writer
from wikimem.disk.tolerant import open_regular, parse_json

__all__ = ["CACHE_MIN_DOCS", "CACHE_NAME", "FORMAT", "PostingsCache", "write_cache"]

log = logging.getLogger(__name__)

#: The file name in the memory directory.
CACHE_NAME = "postings.cache"
#: Stores with fewer items get no cache: their first queries cost milliseconds.
CACHE_MIN_DOCS = 20_000
#: Bumped whenever the scan forms or this layout change meaning.
FORMAT = 1
_ITEM = array("i").itemsize


class PostingsCache:
    """A validated cache file, read one term at a time."""

    def __init__(self, path: Path, terms: dict[str, list[int]], data_start: int) -> None:
        self.path = path
        self._terms = terms
        self._data_start = data_start
        self._broken = False

    @classmethod
    def open(cls, path: Path, fingerprint: str) -> PostingsCache | None:
        """The cache at ``path`` if it was written for ``fingerprint`` and is whole, else None."""
        try:
            handle = open_regular(path)  # a FIFO named like the cache must not block the index load
            if handle is None:
                return None
            with handle as fh:
                header_line = fh.readline(64 << 20)
                size = os.fstat(fh.fileno()).st_size
        except OSError:
            return None
        try:
            header = parse_json(header_line)
            ok = (
                header.get("format") == FORMAT
                and header.get("fingerprint") == fingerprint
                and header.get("byteorder") == sys.byteorder
                and header.get("itemsize") == _ITEM
                and size == len(header_line) + header.get("payload")
            )
            terms = header["terms"] if ok else None
        except (ValueError, TypeError, KeyError, AttributeError):
            terms = None
        if not isinstance(terms, dict):
            return None
        return cls(path, terms, len(header_line))

    def __len__(self) -> int:
        return len(self._terms)

    def __contains__(self, term: str) -> bool:
        return not self._broken and term in self._terms

    def get(self, term: str) -> tuple[array[int], array[int]] | None:
        """``(doc ids, tfs)`` of ``term`` over the load's segments, or None (not cached, or unreadable)."""
        if self._broken:
            return None
        entry = self._terms.get(term)
        if entry is None:
            return None
        try:
            offset, count, crc = entry
            handle = open_regular(self.path)
            if handle is None:
                raise FileNotFoundError(self.path)
            with handle as fh:
                fh.seek(self._data_start + offset)
                raw = fh.read(2 * count * _ITEM)
        except (OSError, ValueError, TypeError):
            raw, crc, count = b"", None, -1
        if len(raw) != 2 * count * _ITEM or zlib.crc32(raw) != crc:
            # Torn or changed under us: the whole file is suspect from now on.
            log.warning("postings cache %s is damaged; scanning instead", self.path)
            self._broken = True
            return None
        docs, tfs = array("i"), array("i")
        docs.frombytes(raw[: count * _ITEM])
        tfs.frombytes(raw[count * _ITEM :])
        return docs, tfs


def write_cache(path: Path, fingerprint: str, postings: Mapping[str, tuple[array[int], array[int], int]]) -> None:
    """Write each term's first ``n`` postings (term -> doc ids, tfs, n) for the load ``fingerprint``, atomically.

    Streams the arrays (two passes: CRCs and offsets for the header, then
    the bytes), so writing costs no second copy of a 1M-item store's
    common postings. Only the prefixes are read, and writes only ever
    append to these arrays, so they may grow meanwhile.
    """
    terms: dict[str, list[int]] = {}
    offset = 0
    for term, (docs, tfs, n) in postings.items():
        if n <= 0 or len(docs) < n or len(tfs) < n:
            continue
        crc = zlib.crc32(_prefix(tfs, n), zlib.crc32(_prefix(docs, n)))
        terms[term] = [offset, n, crc]
        offset += 2 * n * _ITEM
    header = {
        "format": FORMAT,
        "fingerprint": fingerprint,
        "byteorder": sys.byteorder,
        "itemsize": _ITEM,
        "payload": offset,
        "terms": terms,
    }
    line = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    with atomic_writer(path) as fh:
        fh.write(line)
        for term in terms:
            docs, tfs, n = postings[term]
            fh.write(_prefix(docs, n))
            fh.write(_prefix(tfs, n))


def _prefix(values: array[int], n: int) -> bytes:
    """The first ``n`` items' bytes (one atomic ``tobytes`` under the GIL, then cut)."""
    return values.tobytes()[: n * _ITEM] if len(values) != n else values.tobytes()
