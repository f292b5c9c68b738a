"""The reference engines every retrieval-core figure is a ratio against.

They exist so that a ratio means "same data, same tokens, same formula":
a straightforward dict-of-Counters build that scores every document
(:class:`Reference`), and rank_bm25 / bm25s over the very same tokens when
they are installed. Every engine whose answer is a score per document gets
the same top-k step (:func:`top_k`), so none is handicapped by a slow sort.
Used by ``bench_core.py`` and ``bench_goals.py``.
"""

from __future__ import annotations

import heapq
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from wikimem.disk.loader import gc_paused
try:
    from wikimem.index.scoring.bm25 import B, K1, idf
except ImportError:  # a library tree from before the index's subpackages (--previous-commit)
    from wikimem.index.bm25 import B, K1, idf  # type: ignore[import-not-found,no-redef]
from wikimem.store import MemoryStore
from wikimem.tokenize import tokenize

__all__ = ["Reference", "bm25s_engine", "optional_engines", "toks", "top_k"]


def toks(text: str) -> list[str]:
    """The bigram tokens every engine is given (jieba off: the same tokens for all)."""
    return tokenize(text, use_jieba=False)


class Reference:
    """The straightforward build: a dict-of-Counters index that scores every doc."""

    def __init__(self, store: MemoryStore) -> None:
        self.items = store.items()
        self.tfs = [Counter(toks(f"{it.name}\n{it.content}")) for it in self.items]
        self.lens = [sum(c.values()) for c in self.tfs]
        self.df: Counter[str] = Counter()
        for c in self.tfs:
            self.df.update(c.keys())
        self.avgdl = sum(self.lens) / max(len(self.lens), 1)

    def scores(self, query: str) -> list[float]:
        q = Counter(toks(query))
        n = len(self.tfs)
        weights = {t: qtf * idf(n, self.df[t]) for t, qtf in q.items() if t in self.df}
        out = []
        for c, dl in zip(self.tfs, self.lens):
            s = 0.0
            for t, w in weights.items():
                tf = c.get(t)
                if tf:
                    s += w * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / self.avgdl))
            out.append(s)
        return out

    def search(self, query: str, k: int = 10) -> list[tuple[int, float]]:
        scores = self.scores(query)
        return [(d, scores[d]) for d in top_k(scores, k)]


def top_k(scores: Any, k: int = 10) -> list[int]:
    """The same top-k step for every engine that scores every document.

    Best first, ties by ascending doc id, documents scoring 0 left out (as
    the index does). A numpy array goes through ``argpartition`` (C-level
    over the array); a list through ``heapq.nlargest`` (C-level heap over
    the positive scores only) -- each engine gets the fast path for the
    type it returns, never a Python ``sorted(key=lambda)`` over all N.
    """
    if hasattr(scores, "argpartition"):
        import numpy as np  # noqa: PLC0415 - only with an engine that returns numpy

        n = min(k, len(scores))
        top = np.argpartition(-scores, n - 1)[:n] if n else np.array([], dtype=int)
        order = sorted(top.tolist(), key=lambda d: (-scores[d], d))
        return [d for d in order if scores[d] > 0]
    positive = [d for d, s in enumerate(scores) if s > 0]
    return heapq.nlargest(k, positive, key=lambda d: (scores[d], -d))


def bm25s_engine(ref: Reference) -> Callable[[str], Any]:
    """bm25s (numpy) over ``ref``'s tokens, top 10 through :func:`top_k`; ImportError when not installed."""
    import bm25s  # noqa: PLC0415 - an optional reference

    retriever = bm25s.BM25(k1=K1, b=B, method="lucene")
    with gc_paused():
        retriever.index([list(c.elements()) for c in ref.tfs], show_progress=False)
    vocab = retriever.vocab_dict

    def search(q: str) -> Any:
        terms = [t for t in toks(q) if t in vocab]
        return top_k(retriever.get_scores(terms)) if terms else []

    return search


def optional_engines(ref: Reference) -> dict[str, Callable[[str], Any]]:
    """rank_bm25 and bm25s over the same tokens, when importable."""
    engines: dict[str, Callable[[str], Any]] = {}
    try:
        from rank_bm25 import BM25Okapi  # noqa: PLC0415 - an optional reference

        with gc_paused():
            okapi = BM25Okapi([list(c.elements()) for c in ref.tfs], k1=K1, b=B)
        engines["rank_bm25"] = lambda q: top_k(okapi.get_scores(toks(q)))
    except ImportError:
        pass
    try:
        engines["bm25s"] = bm25s_engine(ref)
    except Exception as exc:  # noqa: BLE001 - optional reference only
        print(f"(bm25s unavailable: {exc!r})", file=sys.stderr)
    return engines
