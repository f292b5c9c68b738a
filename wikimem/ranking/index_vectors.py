"""The vector half of a :class:`~wikimem.retrieval.MemoryIndex`: embed, plan, share, report, floor.

Why a module of its own: these are the calls an app's query pane makes
about embeddings (what a sync would embed, run it from a worker, reuse
another index's vectors, how many items have one, the relevance floor),
all thin doors to :class:`wikimem.ranking.semantic.Semantic` that take the
index lock around the corpus they read. They share nothing with the
lexical index but that lock and the corpus, so they live beside the
semantic half rather than in the index's own module.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from wikimem.index.corpus import WikiCorpus
from wikimem.models import FloorSource
from wikimem.ranking.floor import resolve_floor
from wikimem.ranking.semantic import Semantic, VectorStatus

__all__ = ["IndexVectors"]


class IndexVectors:
    """The vector calls of :class:`~wikimem.retrieval.MemoryIndex` (a mixin: it owns what these read)."""

    _semantic: Semantic | None
    _lock: AbstractContextManager[Any]
    embedder: Any
    cos_floor: float | None
    cos_floor_source: FloorSource | None

    def _ensure_built(self) -> None:
        raise NotImplementedError

    def _fresh(self) -> WikiCorpus:
        raise NotImplementedError

    def set_cos_floor(self, cos_floor: float | str | None) -> None:
        """Change the relevance floor (a cosine, ``None`` for none, ``"auto"``); ``ValueError`` if bad."""
        floor, source = resolve_floor(cos_floor, self.embedder)
        with self._lock:
            self.cos_floor, self.cos_floor_source = floor, source

    def plan_vectors(self) -> Any:
        """What :meth:`sync_vectors` would embed now (a ``wikimem.vectors.SyncPlan``); None without embeddings.

        Embeds nothing but, for a local model, the few texts it times to
        estimate; builds the index first if needed. For a worker thread.
        """
        snapshot = self._vector_entries()
        return None if snapshot is None else snapshot[0].plan(snapshot[1])

    def sync_vectors(
        self,
        progress: Callable[[int, int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        *,
        batch_size: int = 64,
    ) -> VectorStatus | None:
        """Embed every wiki item the vector cache lacks; None without embeddings.

        For a worker thread: the embedding runs outside the index lock, so
        queries go on meanwhile (BM25 only until the vectors are ready, in
        ``vector_sync="manual"``). ``progress(done, total)`` counts texts;
        once ``should_stop()`` says yes, what was embedded is kept and
        ``wikimem.vectors.SyncCancelled`` is raised -- the next sync resumes
        (``should_stop`` is asked before each batch of ``batch_size`` texts).
        Embedding errors propagate (nothing is lost). Items written during
        the sync are left for the next one.
        """
        snapshot = self._vector_entries()
        if snapshot is None:
            return None
        semantic, entries = snapshot
        keys, matrix = semantic.sync(entries, progress, should_stop, batch_size)
        with self._lock:
            semantic.adopt(keys, matrix)
            return semantic.status(self._fresh())

    def share_vectors(self, other: IndexVectors) -> None:
        """Use ``other``'s vector caches (same embedder), e.g. for an index rebuilt with another tokenizer.

        The vectors belong to the items' text, not to the tokenizer, so a
        replacement index need not embed anything again -- which matters
        when they are held in memory only (``vector_cache="read"``).
        """
        mine, theirs = self._semantic, other._semantic
        if mine is not None and theirs is not None and mine.embedder is theirs.embedder:
            with self._lock:
                mine.share(theirs)

    def _vector_entries(self) -> tuple[Semantic, list[tuple[tuple[str, str], str]]] | None:
        """The embedding half and the cache entries of the index as it is now (None without one)."""
        semantic = self._semantic
        if semantic is None:
            return None
        self._ensure_built()
        with self._lock:
            return semantic, semantic.entries(self._fresh())

    def vector_status(self) -> VectorStatus | None:
        """How many wiki items have a vector and whether queries fuse now; None without embeddings."""
        semantic = self._semantic
        if semantic is None:
            return None
        self._ensure_built()
        with self._lock:
            return semantic.status(self._fresh())
