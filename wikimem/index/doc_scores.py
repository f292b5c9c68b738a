"""BM25 questions about chosen documents, beside the top-k search: their scores, their matched terms.

Why apart from :mod:`wikimem.index.bm25`: the search finds the best docs;
these answer for docs someone else chose -- cosine candidates to fuse, a
hit's file neighbours (file context), a diary entry outside the index, a
result page's rows (their ``matched_terms``). They read the same packed
postings and statistics and must give the search's floats to the bit
(the same operations in the same order), but share none of its pruning.
A mixin of :class:`~wikimem.index.bm25.InvertedIndex`, which owns what they
read (declared below).
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from itertools import repeat
from operator import add, eq, mul, neg, truediv

from wikimem.index.maxscore import Term
from wikimem.index.packed import Packed, tf_of

__all__ = ["B", "K1", "DocScores", "idf"]

K1 = 1.5
B = 0.75
#: A list at most this many times as long as the docs asked about is read whole into a dict
#: (~50 ns a posting) instead of a bisect per doc (~1 us: every step of it boxes an int).
_HELD_SHARE = 16


def idf(n_docs: int, df: int) -> float:
    """The always-positive BM25 idf of a term in ``df`` of ``n_docs`` documents."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def _head_tfs(entry: Packed, docs: list[int], dls: list[int], a: float) -> list[int] | None:
    """The tfs of ``docs`` when they are the first of ``entry``'s head, from their cached impacts (else None).

    A one-term search's pool is a prefix of the term's impact-ordered head
    (:func:`wikimem.index.maxscore.candidates`), which holds each doc's
    cached impact ``v = w·tf / (tf + a + b·dl)`` (``w``, ``b`` as cached):
    so ``tf = v·(a + b·dl) / (w − v)``, an integer, rounded and then checked
    by computing ``v`` again exactly as the cache did. A bisect per doc in
    the term's list (~1 us each, boxing every step) is what it saves; any
    doubt (not the head's prefix, a value that does not come back to the
    bit) returns None and the bisects decide.
    """
    head = entry.head
    n = len(docs)
    if head is None or len(head.docs) < n or head.docs[:n].tolist() != docs:
        return None
    values = list(map(neg, head.neg[:n]))
    w, b = entry.impact_idf * (K1 + 1.0), entry.impact_b
    cached = list(map(b.__mul__, dls))
    tf = list(map(round, map(truediv, map(mul, values, map(a.__add__, cached)), map(w.__sub__, values))))
    if list(map(truediv, map(w.__mul__, tf), map(add, map(a.__radd__, tf), cached))) != values:
        return None
    return tf


def _tfs(entry: Packed, docs: list[int]) -> list[int]:
    """Each of ``docs``' tf in ``entry`` (0: not there), in C-level maps.

    A list at most ``_HELD_SHARE`` times as long as ``docs`` is read whole
    into a dict; a longer one is bisected once per doc (what
    :func:`~wikimem.index.packed.tf_of` does, mapped).
    """
    found, tfs = entry.docs, entry.tfs
    if len(found) <= _HELD_SHARE * len(docs):
        return list(map(dict(zip(found, tfs)).get, docs, repeat(0)))
    pos = list(map(min, map(bisect_left, repeat(found), docs), repeat(len(found) - 1)))
    return list(map(mul, map(tfs.__getitem__, pos), map(eq, map(found.__getitem__, pos), docs)))


class DocScores:
    """Scores and matched terms of given docs (a mixin of :class:`~wikimem.index.bm25.InvertedIndex`)."""

    _dl: array[int]
    n_alive: int
    total_len: int

    def _packed(self, term: str) -> Packed | None:
        raise NotImplementedError

    def _norm(self) -> tuple[float, float]:
        raise NotImplementedError

    def _terms(self, query: Mapping[str, float]) -> tuple[list[Term], float]:
        raise NotImplementedError

    def _exact(self, terms: list[Term], doc: int) -> float:
        a, b = self._norm()
        length = self._dl[doc]
        score = 0.0
        for term in terms:
            tf = tf_of(term.entry, doc)
            if tf:
                score += term.weight * tf / (tf + a + b * length)
        return score

    def score_docs(
        self, query: Mapping[str, float], docs: Iterable[int], *, weak: Collection[str] = (),
    ) -> dict[int, float]:
        """Exact BM25 scores of chosen docs (cosine candidates to fuse, a hit's file neighbours).

        :meth:`_exact` for many docs at once, term by term in C-level maps (a
        ``bisect`` per doc and term): the same operations in the same order,
        so the same floats, at a fraction of the cost of a Python loop per doc.
        ``weak`` terms (a query's function words) never make a match alone:
        a doc that matches only those scores 0.
        """
        terms, _ = self._terms(query)
        docs = list(docs)
        scores = dict(zip(docs, self._exact_many(terms, docs)))
        if weak and docs:
            strong = set(query).difference(weak)
            for doc, has in zip(docs, self.matched_docs(strong, docs)):
                if not has:
                    scores[doc] = 0.0
        return scores

    def _exact_many(self, terms: list[Term], docs: list[int]) -> list[float]:
        """:meth:`_exact` of each of ``docs``, term by term in C-level maps (the same floats).

        The search's rescoring of its survivors after a write (stale
        impacts) too: a Python loop per doc and term was ~3 us a doc, a
        tenth of a fast query right after an ``add()``. Each doc's tf is
        looked up in a dict of a short list, found by a bisect in a long
        one, or (one term) read off the head's impacts (:func:`_head_tfs`).
        """
        a, b = self._norm()
        dls = list(map(self._dl.__getitem__, docs))
        lengths = list(map(b.__mul__, dls))
        if len(terms) == 1:
            tf = _head_tfs(terms[0].entry, docs, dls, a)
            if tf is not None:  # one term's pool is a prefix of its head: its tfs follow from the impacts
                return list(map(truediv, map(terms[0].weight.__mul__, tf), map(add, map(a.__radd__, tf), lengths)))
        scores = [0.0] * len(docs)
        for term in terms:
            tf = _tfs(term.entry, docs)
            parts = map(truediv, map(term.weight.__mul__, tf), map(add, map(a.__radd__, tf), lengths))
            scores = list(map(add, scores, parts))
        return scores

    def score_external(self, query: Mapping[str, float], tokens: list[str]) -> float:
        """BM25 of a document outside the index, scored with the index's stats.

        Used for diary entries in a time window: idf and the average length
        come from the indexed (wiki) documents only, so opening a window never
        changes a wiki item's score. A term the wiki lacks gets the maximal
        idf (df = 0); an empty index falls back to the document's own length
        as the average.
        """
        n = self.n_alive
        avgdl = self.total_len / n if n else float(len(tokens) or 1)
        dl = len(tokens)
        counts = Counter(tokens)
        score = 0.0
        for term, qtf in query.items():
            tf = counts.get(term, 0)
            if tf:
                entry = self._packed(term)
                df = len(entry.docs) if entry is not None else 0
                norm = K1 * (1.0 - B + B * dl / (avgdl or 1.0))
                score += qtf * idf(n, df) * tf * (K1 + 1.0) / (tf + norm)
        return score

    def matched_docs(self, query: Iterable[str], docs: list[int]) -> list[list[str]]:
        """:meth:`matched` of several docs (a result page's rows): each term's postings are found once."""
        out: list[list[str]] = [[] for _ in docs]
        for term in sorted(set(query)):  # ascending: each row comes out sorted, as matched() sorts
            entry = self._packed(term)
            if entry is None:
                continue
            for row, tf in zip(out, _tfs(entry, docs)):
                if tf:
                    row.append(term)
        return out

    def matched(self, query: Iterable[str], doc: int) -> list[str]:
        """The query terms present in ``doc``, sorted."""
        out = []
        for term in set(query):
            entry = self._packed(term)
            if entry is not None and tf_of(entry, doc):
                out.append(term)
        return sorted(out)
