"""The vector half of a :class:`~wikimem.retrieval.MemoryIndex`: embed, plan, share, report.

The calls an app makes about embeddings are thin doors to
:class:`wikimem.ranking.semantic.Semantic` that take the index lock around
the corpus they read. The ranker owns the embedding state; the index hands
it the lock and a way to reach the corpus, and nothing else is shared. The
ranker never builds the index.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from wikimem.index.corpus.wiki import WikiCorpus
from wikimem.ranking.semantic import Semantic, VectorStatus

__all__ = ["VectorRanker"]

log = logging.getLogger("wikimem.retrieval")


class VectorRanker:
    """The wiki's vectors for one index: the :class:`Semantic` half, or None (BM25 only).

    ``fresh()`` is the corpus with every heard write applied (called with
    ``lock`` held; the caller built the index before any call here). The
    other arguments are :class:`~wikimem.ranking.semantic.Semantic`'s.
    """

    def __init__(
        self,
        embedder: Any,
        vectors_dir: Any,
        root: Any,
        binary_threshold: int,
        *,
        sync: str,
        persist: bool,
        lock: AbstractContextManager[Any],
        fresh: Callable[[], WikiCorpus],
    ) -> None:
        self._lock = lock
        self._fresh = fresh
        #: The embedding half queries fuse with; None: BM25 only.
        self.semantic: Semantic | None = None
        if embedder is not None:
            try:
                self.semantic = Semantic(embedder, vectors_dir or root, root, binary_threshold,
                                         sync=sync, persist=persist)
            except ImportError as exc:  # the embedding extra is not installed
                log.warning("embeddings need numpy (pip install wikimem[embed]): %s; BM25 only", exc)

    def plan(self) -> Any:
        """What :meth:`sync` would embed now (a ``wikimem.vectors.SyncPlan``); None without embeddings."""
        snapshot = self._entries()
        return None if snapshot is None else snapshot[0].plan(snapshot[1])

    def sync(
        self,
        progress: Callable[[int, int], None] | None,
        should_stop: Callable[[], bool] | None,
        batch_size: int,
    ) -> VectorStatus | None:
        """Embed every wiki item the vector cache lacks, outside the lock; None without embeddings."""
        snapshot = self._entries()
        if snapshot is None:
            return None
        semantic, entries = snapshot
        keys, matrix = semantic.sync(entries, progress, should_stop, batch_size)
        with self._lock:
            semantic.adopt(keys, matrix)
            return semantic.status(self._fresh())

    def share(self, other: VectorRanker) -> None:
        """Use ``other``'s vector caches when both embed with the very same embedder."""
        mine, theirs = self.semantic, other.semantic
        if mine is not None and theirs is not None and mine.embedder is theirs.embedder:
            with self._lock:
                mine.share(theirs)

    def _entries(self) -> tuple[Semantic, list[tuple[tuple[str, str], str]]] | None:
        """The embedding half and the cache entries of the index as it is now (None without one)."""
        semantic = self.semantic
        if semantic is None:
            return None
        with self._lock:
            return semantic, semantic.entries(self._fresh())

    def status(self) -> VectorStatus | None:
        """How many wiki items have a vector and whether queries fuse now; None without embeddings."""
        semantic = self.semantic
        if semantic is None:
            return None
        with self._lock:
            return semantic.status(self._fresh())
