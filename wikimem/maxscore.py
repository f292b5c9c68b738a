"""Top-k BM25 candidates by term-at-a-time MaxScore, in C-level steps.

Design constraint: pruning must never change the top k, even when the
per-posting values it adds up are slightly stale (a write moved N and the
average length since they were cached). Terms are visited by decreasing
upper bound (their best value); once the k-th best partial sum beats
everything the remaining terms could add, those (common, long) lists are
only probed with ``bisect`` for the surviving candidates instead of being
scanned. With stale values the cut keeps every doc within a factor ``rho``
(the worst-case drift, see :meth:`wikimem.bm25.InvertedIndex.search`) of
the k-th best, so the caller can rescore the few survivors exactly. A
scanned list costs C-level ``dict.update`` calls and the k-th best is found
after a C-level ``compress`` filter: cost follows the query terms' posting
lists, not N. This module only reads postings; it never mutates the index.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable
from itertools import compress, repeat
from operator import add
from typing import Any, NamedTuple

__all__ = ["Term", "candidates", "kth_largest"]


class Term(NamedTuple):
    """One query term during a search."""

    ub: float  # the largest value in ``values``
    scale: float  # values = cached impacts x scale (the query tf)
    entry: Any  # the term's postings (``docs``, ``tfs``, cached impacts)
    values: array
    weight: float  # exact qtf·idf·(k1+1), for rescoring


def candidates(
    terms: list[Term], k: int, rho: float, kth_impact: Callable[[Any, int], float]
) -> list[tuple[int, float]]:
    """Every doc whose value sum could make the top k, with that sum.

    ``terms`` are sorted by decreasing ``ub``. With exact values (``rho`` =
    1) that is the docs scoring at least the k-th best. With stale values it
    is every doc within ``rho`` of the k-th best value sum: a doc below that
    cannot beat k others whatever the true factors are. ``kth_impact(entry,
    k)`` is the k-th largest cached impact of a term (a floor for theta).
    """
    if len(terms) == 1:
        # One term: its k-th largest value is the floor, no accumulator needed.
        term = terms[0]
        if len(term.values) <= k:
            return list(zip(term.entry.docs, term.values))
        floor = rho * term.scale * kth_impact(term.entry, k)
        return list(compress(zip(term.entry.docs, term.values), map(floor.__le__, term.values)))
    rest = _suffix_sums([t.ub for t in terms])
    acc: dict[int, float] = {}
    # theta: a floor under the k-th best partial sum. Each processed
    # term's k-th largest value is one (k docs already have at least it).
    theta = 0.0
    i = 0
    while i < len(terms):
        if len(acc) >= k:
            theta = kth_largest(acc.values(), k, theta)
            if rho * theta > rest[i]:
                break  # no unseen doc can reach the top k any more
        term = terms[i]
        docs = term.entry.docs
        if acc:
            acc.update(zip(docs, map(add, map(acc.get, docs, repeat(0.0)), term.values)))
        else:
            acc = dict(zip(docs, term.values))
        theta = max(theta, term.scale * kth_impact(term.entry, k))
        i += 1
    if i == len(terms):
        floor = rho * kth_largest(acc.values(), k, theta) if len(acc) >= k else 0.0
        return list(compress(acc.items(), map(floor.__le__, acc.values())))
    # Non-essential terms: only probe candidates that can still make it.
    floor = rho * theta - rest[i]
    cands = list(compress(acc.keys(), map(floor.__le__, acc.values())))
    for j in range(i, len(terms)):
        docs, values = terms[j].entry.docs, terms[j].values
        size = len(docs)
        for d in cands:
            p = bisect_left(docs, d)
            if p < size and docs[p] == d:
                acc[d] += values[p]
        scores = [acc[d] for d in cands]
        theta = kth_largest(scores, k, theta) if len(cands) >= k else 0.0
        floor = rho * theta - rest[j + 1]
        cands = list(compress(cands, map(floor.__le__, scores)))
    return [(d, acc[d]) for d in cands]


def kth_largest(values: Iterable[float], k: int, floor: float) -> float:
    """The k-th largest of ``values``, given that at least k of them are >= ``floor``.

    The C-level ``compress`` keeps only values above the floor, so the
    Python-level heap sees a handful instead of every accumulated doc.
    """
    values = list(values) if not isinstance(values, (list, array)) else values
    above = list(compress(values, map(floor.__le__, values)))
    if len(above) < k:
        above = list(values)
    return heapq.nlargest(k, above)[-1]


def _suffix_sums(values: list[float]) -> list[float]:
    out = [0.0] * (len(values) + 1)
    for i in range(len(values) - 1, -1, -1):
        out[i] = out[i + 1] + values[i]
    return out
