"""An index's derived files: the postings cache and the segment cache, read at a build, written by a warm-up.

Why a module of its own: both files are optional, never the source of
truth, and governed by the same rules -- one ``postings_cache`` mode
(``"readwrite"``, ``"read"``, ``"off"``), only for stores of
:data:`CACHE_MIN_DOCS` items or more (a small store's first queries are
fast without them: no file to clutter its directory), a failed write only
logged (it costs a later process a search, nothing else). The formats and
their checks live in :mod:`wikimem.index.postings_cache` and
:mod:`wikimem.index.segment_cache`; this is where an index meets them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wikimem.index.corpus import WikiCorpus
from wikimem.index.postings_cache import CACHE_MIN_DOCS, CACHE_NAME, PostingsCache, write_cache
from wikimem.index.segment_cache import SEGMENTS_NAME, SegmentCache
from wikimem.index.warmup import write_tables

__all__ = ["CACHE_MIN_DOCS", "DerivedFiles"]

log = logging.getLogger(__name__)


class DerivedFiles:
    """Where an index's caches live (``root``, or None: none) and whether this process writes them."""

    def __init__(self, root: Path | None, mode: str) -> None:
        if mode not in ("readwrite", "read", "off"):
            raise ValueError(f"postings_cache must be 'readwrite', 'read' or 'off', not {mode!r}")
        #: The postings cache's path (None: not used); the segment cache lies beside it.
        self.path: Path | None = root / CACHE_NAME if root is not None and mode != "off" else None
        self.writes = mode == "readwrite" and self.path is not None

    def attach(self, corpus: WikiCorpus) -> None:
        """Give a freshly loaded corpus the caches written for its load (each only if it matches)."""
        if self.path is not None and corpus.fingerprint is not None:
            corpus.index.cache = PostingsCache.open(self.path, corpus.fingerprint)
            corpus.index.forms.attach_tables(self.path.with_name(SEGMENTS_NAME))

    def write_tables(self, corpus: WikiCorpus, stop: Callable[[], bool]) -> SegmentCache | None:
        """Write the segment cache of ``corpus``'s load and open it (None: not written); the caller installs it."""
        if not self.writes or self.path is None or len(corpus) < CACHE_MIN_DOCS or not corpus.index.forms.tables_pay():
            return None
        path = self.path.with_name(SEGMENTS_NAME)
        try:
            return write_tables(corpus.index, path, stop)
        except OSError as exc:
            log.warning("could not write the segment cache %s: %s", path, exc)
            return None

    def save_postings(self, corpus: WikiCorpus, postings: dict[str, Any]) -> None:
        """Write the postings cache for ``corpus``'s load, unless the file already holds exactly these terms."""
        path, fingerprint = self.path, corpus.fingerprint
        if not self.writes or path is None or fingerprint is None or len(corpus) < CACHE_MIN_DOCS:
            return
        cache = corpus.index.cache
        if cache is not None and cache.path == path and all(term in cache for term in postings):
            return  # read from this very file: nothing new to say
        try:
            write_cache(path, fingerprint, postings)
        except OSError as exc:
            log.warning("could not write the postings cache %s: %s", path, exc)
