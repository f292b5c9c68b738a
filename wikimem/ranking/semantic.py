"""The embedding half of retrieval: cosine candidates fused into BM25's.

Design constraint: embeddings are optional and must never break retrieval.
numpy and :mod:`wikimem.vectors` are imported only when an embedder is
configured (so ``import wikimem`` stays stdlib-only), and every failure
leaves the candidates exactly as BM25 ranked them.

``vector_sync="query"`` (the reference behaviour) embeds the wiki lazily
inside the query that first needs it, so the first query of a fresh store
embeds the whole store. ``vector_sync="manual"`` (what an app wants) never
embeds a wiki item in a query: the caller plans and runs the sync in the
background, and until it is ready queries rank with BM25 only. Rows are
matched to items by the hash of their text, so an earlier or cancelled
sync is reused as far as it goes. Diary entries are embedded per time
window inside the query (a window is small).

``vector_cache="read"`` keeps new vectors in memory: nothing is written
under the memory directory, as a read-only app promises.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.index.corpus.wiki import WikiCorpus
from wikimem.index.corpus.diary import DiaryCorpus, entry_of
from wikimem.ranking.candidate import Candidate
from wikimem.ranking.context import fuse_context
from wikimem.ranking.fusion import Fusion, fuse
from wikimem.models import DiaryItem, as_recall_item, item_text

__all__ = ["CACHE_MODES", "SYNC_MODES", "Candidate", "Semantic", "VectorStatus"]

log = logging.getLogger("wikimem.retrieval")

#: ``vector_sync`` values: who embeds the wiki's items (see the module docstring).
SYNC_MODES = ("query", "manual")
#: ``vector_cache`` values: ``"read"`` never writes under the memory directory.
CACHE_MODES = ("readwrite", "read")


@dataclass(frozen=True)
class VectorStatus:
    """How far the wiki's vectors cover the index, for a front end to show."""

    #: Live wiki items that have a vector (cached or embedded this session).
    embedded: int
    #: Live wiki items.
    total: int
    #: Whether the next query fuses cosine (``embedding_used`` unless the embedder fails).
    ready: bool
    #: ``"query"`` or ``"manual"`` (see :data:`SYNC_MODES`).
    sync: str
    #: False when new vectors are kept in memory only (``vector_cache="read"``).
    persist: bool
    #: Set when the cache on disk was built by another model (it is then not used).
    mismatch: str | None = None

    @property
    def missing(self) -> int:
        """Live items without a vector."""
        return self.total - self.embedded


@dataclass
class _DiaryRows:
    """The whole diary's vectors as one query reads them: the matrix, its search, and doc <-> row."""

    corpus: DiaryCorpus
    version: int
    matrix: Any
    index: Any
    doc_row: dict[int, int]
    row_docs: dict[int, list[int]]


class Semantic:
    """The embedding half of fusion; numpy is imported here, only with an embedder.

    Fail-open by construction: every failure (endpoint down, bad vectors,
    torn cache) makes :meth:`fuse` return ``False`` with the candidates left
    as BM25 ranked them. A cache stamped by another model is never synced
    by a query (that would re-embed everything, which costs money): one
    WARNING per index, then BM25 only -- an explicit :meth:`sync` replaces it.

    Wiki rows are found by the hash of each item's text (``_attach``), so the
    matrix in use may hold rows of items since changed or removed (skipped)
    and lack rows of items written since (no cosine). Everything here runs
    under the index lock except :meth:`plan` and :meth:`sync`, which only
    touch the cache and the embedder.
    """

    def __init__(
        self,
        embedder: Any,
        vectors_dir: Any,
        root: Any,
        binary_threshold: int,
        *,
        sync: str = "query",
        persist: bool = True,
    ) -> None:
        import numpy  # noqa: PLC0415 - the embedding extra, lazily

        from wikimem import vectors  # noqa: PLC0415

        if sync not in SYNC_MODES:
            raise ValueError(f"vector_sync must be one of {', '.join(SYNC_MODES)}, not {sync!r}")
        self._np = numpy
        self._v = vectors
        self.embedder = embedder
        self.binary_threshold = binary_threshold
        self.sync_mode = sync
        self.wiki_cache = vectors.VectorCache(vectors_dir, persist=persist)
        self.diary_cache = vectors.VectorCache(Path(root) / vectors.DIARY_VECTORS_DIR, persist=persist)
        #: The wiki rows in use: (keys, matrix) as the cache last held them; None = read it first.
        self._loaded: tuple[list[dict[str, str]], Any] | None = None
        self._row_of: dict[str, int] = {}
        self._index: Any = None
        #: doc -> hash of its text, for the corpus object the memo was made for.
        self._hashes: dict[int, str] = {}
        self._hashed_corpus: WikiCorpus | None = None
        #: (corpus, version) the doc <-> row maps below were made for.
        self._attached: tuple[WikiCorpus, int] | None = None
        self._doc_row: dict[int, int] = {}
        self._row_docs: dict[int, list[int]] = {}
        self._total = 0
        #: A sync completed (or the cache covered every item): fuse from now on.
        self.synced = False
        #: Whether each cache fits the embedder (model, width); one warning each.
        self._fit = vectors.CacheFit(embedder, log)
        #: The last query's vector: a diagnosis right after a ranking of the
        #: same query must not pay for (or bill) a second embedding call.
        self._query_memo: tuple[str, Any] | None = None
        #: The whole diary's rows (see :meth:`diary_nearest`), for the diary corpus and version they were made for.
        self._diary: _DiaryRows | None = None

    # -- the cache ------------------------------------------------------------

    def _usable(self, cache: Any) -> bool:
        """False (and one WARNING per index) when ``cache`` was stamped by another model."""
        return self._fit.usable(cache)

    def entries(self, corpus: WikiCorpus) -> list[tuple[tuple[str, str], str]]:
        """The cache entries of every live wiki item (what a sync makes the cache hold)."""
        return [((item.file, item.name), item_text(item.name, item.content)) for _, item in corpus.live()]

    def plan(self, entries: list[tuple[tuple[str, str], str]]) -> Any:
        """What syncing ``entries`` costs (:class:`wikimem.vectors.SyncPlan`); no embedding."""
        return self.wiki_cache.plan(entries, self.embedder, dim=self._query_dim())

    def sync(
        self,
        entries: list[tuple[tuple[str, str], str]],
        progress: Callable[[int, int], None] | None,
        should_stop: Callable[[], bool] | None,
        batch_size: int = 64,
    ) -> tuple[list[dict[str, str]], Any]:
        """Embed what the cache lacks of ``entries`` (outside the index lock: it may take hours).

        An explicit sync is the caller's consent, so a cache stamped by
        another model is replaced. The result is adopted by :meth:`adopt`
        (under the lock); a cancelled or failed sync leaves the cache valid
        and is re-read by the next query.
        """
        try:
            return self.wiki_cache.sync(entries, self.embedder, batch_size=batch_size, progress=progress,
                                        should_stop=should_stop, dim=self._query_dim())
        finally:
            self._fit.forget(self.wiki_cache)
            self._loaded = None  # whatever happened, the cache is what to read next

    def _query_dim(self) -> int | None:
        """The width of the embedder's vectors, known once a query was embedded (else None)."""
        return len(self._query_memo[1]) if self._query_memo is not None else None

    def adopt(self, keys: list[dict[str, str]], matrix: Any) -> None:
        """Use the rows a completed sync returned (under the index lock); the wiki is ready."""
        self._use(keys, matrix)
        self.synced = True

    def share(self, other: Semantic) -> None:
        """Read and write ``other``'s caches from now on (in-memory vectors included)."""
        self.wiki_cache, self.diary_cache = other.wiki_cache, other.diary_cache
        self.synced = other.synced
        self._loaded = None

    def _use(self, keys: list[dict[str, str]], matrix: Any) -> None:
        self._loaded = (keys, matrix)
        self._row_of = {}
        for row, key in enumerate(keys):
            self._row_of.setdefault(key["hash"], row)
        has_rows = matrix is not None and len(keys) > 0
        self._index = self._v.MemmapVectorIndex(matrix, binary_threshold=self.binary_threshold) if has_rows else None
        self._attached = None

    def _load(self) -> None:
        if self._usable(self.wiki_cache):
            self._use(*self.wiki_cache.load())
        else:
            self._use([], None)

    # -- which item has which row ---------------------------------------------

    def _attach(self, corpus: WikiCorpus) -> None:
        """Map the corpus's live docs to rows in use (cheap when nothing changed)."""
        if self._loaded is None:
            self._load()
        if self._attached is not None and self._attached[0] is corpus and self._attached[1] == corpus.version:
            return
        if self._hashed_corpus is not corpus:
            self._hashes, self._hashed_corpus = {}, corpus
        hashes, content_hash = self._hashes, self._v.content_hash
        doc_row: dict[int, int] = {}
        total = 0
        for doc, item in corpus.live():
            total += 1
            digest = hashes.get(doc)
            if digest is None:
                digest = hashes[doc] = content_hash(item_text(item.name, item.content))
            row = self._row_of.get(digest)
            if row is not None:
                doc_row[doc] = row
        row_docs: dict[int, list[int]] = {}
        for doc, row in doc_row.items():
            row_docs.setdefault(row, []).append(doc)
        self._doc_row, self._row_docs, self._total = doc_row, row_docs, total
        self._attached = (corpus, corpus.version)
        if total == len(doc_row):
            self.synced = True  # complete once: later gaps are items written since

    def _ready(self, corpus: WikiCorpus) -> bool:
        """Make the wiki's vectors current for ``corpus``; whether fusion may run."""
        if self.sync_mode == "query":
            self._sync_wiki(corpus)
            return True
        self._attach(corpus)
        return self.synced

    def _sync_wiki(self, corpus: WikiCorpus) -> None:
        if self._attached is not None and self._attached[0] is corpus and self._attached[1] == corpus.version:
            return
        self._use(*self.wiki_cache.sync(self.entries(corpus), self.embedder))
        self._attach(corpus)

    def status(self, corpus: WikiCorpus) -> VectorStatus:
        """Coverage of ``corpus`` by the rows in use (no embedding, even in query mode)."""
        mismatch = self._fit.message(self.wiki_cache)  # a width is known once a query was embedded
        self._attach(corpus)
        ready = self.sync_mode == "query" or self.synced
        return VectorStatus(len(self._doc_row), self._total, ready and mismatch is None, self.sync_mode,
                            self.wiki_cache.persist, mismatch)

    # -- cosines ------------------------------------------------------------------

    def _embed_query(self, query: str) -> Any:
        if self._query_memo is not None and self._query_memo[0] == query:
            return self._query_memo[1]
        q = self._embed_query_uncached(query)
        self._query_memo = (query, q)
        return q

    def cosine(self, corpus: WikiCorpus, query: str, doc: int) -> float | None:
        """One wiki doc's cosine to ``query`` (for a diagnosis; None when unavailable)."""
        try:
            if not self._ready(corpus):
                return None
            row = self._doc_row.get(doc)
            if row is None or self._loaded is None:
                return None
            return self._cosines(self._loaded[1], [row], self._embed_query(query))[0]
        except Exception as exc:  # noqa: BLE001 - a diagnosis never raises for the embedder
            log.debug("embedding failed in a diagnosis: %r", exc)
            return None

    def _embed_query_uncached(self, query: str) -> Any:
        np = self._np
        embed = getattr(self.embedder, "embed_query", None) or self.embedder.embed
        with np.errstate(over="ignore"):  # beyond float32 becomes inf, refused just below
            q = np.asarray(self._v.validate_vectors(embed([query]), 1)[0], dtype=np.float32)
        if not self._v.usable_rows(q.reshape(1, -1))[0]:  # no direction: no cosine, BM25 only
            raise self._v.DegenerateVectors(1, 1)
        return q / np.linalg.norm(q)

    def _cosines(self, matrix: Any, rows: list[int], q: Any) -> list[float]:
        if not rows:
            return []
        np = self._np
        block = np.asarray(matrix[rows], dtype=np.float32)
        norms = np.linalg.norm(block, axis=1)
        dots = block @ q
        return [float(d / n) if n > 0 and np.isfinite(d / n) else 0.0 for d, n in zip(dots, norms)]

    def fuse(
        self,
        corpus: WikiCorpus,
        query: str,
        terms: Counter[str],
        cands: dict[tuple[Any, ...], Candidate],
        diary: list[DiaryItem],
        pool: int,
        method: str | Fusion,
        weight: float,
        context: Callable[[dict[tuple[Any, ...], Candidate]], None] | None = None,
        function: frozenset[str] = frozenset(),
        diary_docs: tuple[DiaryCorpus, list[int]] | None = None,
    ) -> bool:
        """Fuse cosine into ``cands`` in place; False (untouched) on any failure or before the vectors are ready.

        ``context`` (file context, :mod:`wikimem.ranking.context`) is given
        the candidates only the vectors brought in, so every candidate has
        the same chance of it; it then joins the fused score as a signal of
        its own (:func:`~wikimem.ranking.context.fuse_context`) rather than
        inside BM25's share. ``function``: the query's function-word terms;
        a vector candidate matching only those has no BM25 match (as in
        :func:`wikimem.ranking.pipeline.gated_search`). ``diary_docs``: the
        diary corpus and each ``diary`` entry's doc in it, when the entries
        came from the whole diary's index (their rows are then reused).
        """
        try:
            if not self._usable(self.wiki_cache) or (diary and not self._usable(self.diary_cache)):
                return False
            if self.sync_mode == "manual" and not self._ready(corpus):
                return False  # before embedding the query: nothing to rank it against yet
            q = self._embed_query(query)
            # The query's width says whether the caches still fit, before a sync embeds into them.
            if not self._fit.fits(self.wiki_cache, len(q)) or (diary and not self._fit.fits(self.diary_cache, len(q))):
                return False
            if not self._ready(corpus):
                return False
            cos: dict[tuple[Any, ...], float] = {}
            extra: list[Candidate] = []
            extra_docs: list[int] = []
            if self._index is not None and self._loaded is not None:
                for row, value in self._index.search(q, pool):
                    for doc in self._row_docs.get(row, ()):
                        item = corpus.items[doc]
                        if item is None:  # removed since the rows were mapped
                            continue
                        key = ("w", item.file, item.name)
                        cos[key] = value
                        if key not in cands:
                            extra.append(Candidate(key, item, doc))
                            extra_docs.append(doc)
                missing = [c for c in cands.values() if c.doc in self._doc_row and c.key not in cos]
                rows = [self._doc_row[c.doc] for c in missing]  # type: ignore[index]
                cos.update(zip((c.key for c in missing), self._cosines(self._loaded[1], rows, q)))
            if diary:
                cos.update(self._diary_cosines(corpus, diary, q, diary_docs))
            bm25_extra = corpus.index.score_docs(terms, extra_docs, weak=function)
            for c, doc in zip(extra, extra_docs):
                c.bm25 = bm25_extra[doc]
            if context is not None:
                context({c.key: c for c in extra})
            everything = list(cands.values()) + extra
            ids = {c.key: i for i, c in enumerate(everything)}
            fused = fuse(
                method,
                {ids[c.key]: c.lexical - (c.context if context is not None else 0.0) for c in everything if c.bm25 > 0},
                {ids[k]: v for k, v in cos.items() if k in ids},
                weight,
            )
            shares = fuse_context([c.context for c in everything if c.bm25 > 0]) if context is not None else 0.0
        except self._v.DegenerateVectors as exc:  # a poisoned answer: said, never cached
            self._fit.warn_once("degenerate", str(exc))
            return False
        except Exception as exc:  # noqa: BLE001 - fail open: BM25 carries on
            log.debug("embedding failed, BM25 only: %r", exc)
            return False
        for c in extra:
            cands[c.key] = c
        for c in everything:
            c.cos = cos.get(c.key)
            if context is not None:
                c.context *= shares  # what it adds to the fused score
            c.score = fused.get(ids[c.key], 0.0) + c.context
        return self.synced

    # -- the whole diary ----------------------------------------------------------

    def diary_nearest(self, dcorpus: DiaryCorpus, query: str, pool: int) -> list[tuple[int, float]]:
        """The diary corpus's ``pool`` entries nearest ``query``: ``(doc, cosine)``, best first; [] on any failure.

        The whole diary's vectors are synced into ``diary-vectors/`` (merged,
        as windows are) when the diary changed: the first diary-wide query
        embeds what the cache lacks, later ones reuse the rows. Only with
        ``vector_sync="query"``: a ``"manual"`` index never embeds inside a
        query, and its diary candidates come from BM25 alone (each still
        gets its cosine, as a window's entries do).
        """
        if self.sync_mode != "query":
            return []
        try:
            if not self._usable(self.diary_cache):
                return []
            q = self._embed_query(query)
            if not self._fit.fits(self.diary_cache, len(q)):
                return []
            rows = self._diary_rows(dcorpus)
            if rows.index is None:
                return []
            return [(doc, value) for row, value in rows.index.search(q, pool) for doc in rows.row_docs.get(row, ())]
        except Exception as exc:  # noqa: BLE001 - fail open: BM25 carries on
            log.debug("embedding the diary failed, its BM25 candidates only: %r", exc)
            return []

    def _diary_rows(self, dcorpus: DiaryCorpus) -> _DiaryRows:
        rows = self._diary
        if rows is not None and rows.corpus is dcorpus and rows.version == dcorpus.version:
            return rows
        docs, entries = [], []
        for doc, item in dcorpus.live():
            entry = as_recall_item(entry_of(item))
            docs.append(doc)
            entries.append(((entry.file, entry.name), self._v.embed_text(entry.name, entry.content)))
        keys, matrix = self.diary_cache.sync(entries, self.embedder, merge=True)
        row_of = {(k["file"], k["name"], k["hash"]): r for r, k in enumerate(keys)}
        doc_row = {doc: row_of[(f, n, self._v.content_hash(text))] for doc, ((f, n), text) in zip(docs, entries)}
        row_docs: dict[int, list[int]] = {}
        for doc, row in doc_row.items():
            row_docs.setdefault(row, []).append(doc)
        index = self._v.MemmapVectorIndex(matrix, binary_threshold=self.binary_threshold) if keys else None
        self._diary = _DiaryRows(dcorpus, dcorpus.version, matrix, index, doc_row, row_docs)
        return self._diary

    def _diary_cosines(
        self, corpus: WikiCorpus, diary: list[DiaryItem], q: Any, docs: tuple[DiaryCorpus, list[int]] | None = None,
    ) -> dict[tuple[Any, ...], float]:
        whole = self._diary
        if docs is not None and whole is not None and whole.corpus is docs[0] and len(docs[1]) == len(diary) \
                and all(d in whole.doc_row for d in docs[1]):
            # Rows made for this very corpus (a rebuild or a compaction numbers docs anew): no sync needed.
            values = self._cosines(whole.matrix, [whole.doc_row[d] for d in docs[1]], q)
            return {("d", i): v for i, v in enumerate(values)}
        entries = []
        for entry in diary:
            item = as_recall_item(entry)
            entries.append(((item.file, item.name), self._v.embed_text(item.name, item.content)))
        keys, matrix = self.diary_cache.sync(entries, self.embedder, merge=True)
        row_of = {(k["file"], k["name"], k["hash"]): r for r, k in enumerate(keys)}
        rows = [row_of[(f, n, self._v.content_hash(text))] for (f, n), text in entries]
        return {("d", i): v for i, v in enumerate(self._cosines(matrix, rows, q))}
