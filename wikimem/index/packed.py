"""One term's packed postings, and the two questions a query asks of them.

Why a module of its own: the entry is shared by the index (which packs
and repairs it), MaxScore and the impact-ordered heads (which read it) and
the numpy path (which fills it); each reads only the fields it needs.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from typing import Any

from wikimem.index import impact_order
from wikimem.index.maxscore import Term

__all__ = ["Packed", "drop_posting", "merged", "tf_of"]


class Packed:
    """One term's postings: ascending doc ids, their tfs and cached impacts.

    ``impact`` caches each posting's BM25 contribution (query tf 1) computed
    with the term's idf and the length norm of the moment (``impact_idf``,
    ``impact_b``). Writes make it slightly stale; a query bounds the drift
    (see :meth:`wikimem.index.bm25.InvertedIndex._terms`) and recomputes
    only when it is large.
    """

    __slots__ = ("docs", "tfs", "dirty", "impact", "impact_idf", "impact_b", "impact_max", "head")

    def __init__(self, docs: array[int], tfs: array[int]) -> None:
        self.docs = docs
        self.tfs = tfs
        #: Some doc in ``docs`` was removed; filter before the next use.
        self.dirty = False
        self.impact: array[float] | None = None
        self.impact_idf = 0.0
        self.impact_b = 0.0
        self.impact_max = 0.0
        #: The highest impacts best first (:mod:`wikimem.index.impact_order`), built on first need.
        self.head: Any = None


def merged(terms: list[Term]) -> list[Term]:
    """Terms with the very same postings and impacts as one term of their summed query tf.

    The bigrams of a CJK word that never occurs apart (``手冲``, ``冲咖``)
    have identical lists: one term, scaled, scores every doc as the pair
    does (up to float rounding) and halves the work of a query over them.
    """
    if len(terms) < 2:
        return terms
    groups: dict[tuple[int, int, int, float, float], list[Term]] = {}
    for term in terms:
        e = term.entry
        groups.setdefault((len(e.docs), e.docs[0], e.docs[-1], e.impact_idf, e.impact_b), []).append(term)
    if len(groups) == len(terms):
        return terms
    out = []
    for group in groups.values():
        while group:
            first = group[0].entry
            same = [t for t in group if t.entry is first or (t.entry.docs == first.docs and t.entry.tfs == first.tfs)]
            group = [t for t in group if t not in same]
            scale = sum(t.scale for t in same)
            out.append(Term(scale * first.impact_max, scale, first, sum(t.weight for t in same)))
    return out


def tf_of(entry: Packed, doc: int) -> int:
    docs = entry.docs
    p = bisect_left(docs, doc)
    return entry.tfs[p] if p < len(docs) and docs[p] == doc else 0


def drop_posting(entry: Packed, doc: int) -> bool:
    """Delete ``doc``'s posting from ``entry`` in place, as filtering the list would; False if it has none.

    The arrays keep every other posting in order, the cached impacts stay
    (they were computed for the same statistics), the largest impact is
    taken again only when it was this one's, and the head loses it too.
    """
    docs = entry.docs
    p = bisect_left(docs, doc)
    if p >= len(docs) or docs[p] != doc:
        return False
    del docs[p]
    del entry.tfs[p]
    impact = entry.impact
    if impact is not None:
        value = impact[p]
        del impact[p]
        impact_order.note_removed(entry, doc, value)
        if value == entry.impact_max:
            entry.impact_max = max(impact, default=0.0)
    return True
