"""Top-k BM25 candidates by term-at-a-time MaxScore, in C-level steps.

Design constraint: pruning must never change the top k, even when the
per-posting values it adds up are slightly stale (a write moved N and the
average length since they were cached). Terms are visited by decreasing
upper bound (their best value); once the k-th best partial sum beats
everything the remaining terms could add, those (common, long) lists are
only probed with ``bisect`` for the surviving candidates instead of being
scanned. With stale values the cut keeps every doc within a factor ``rho``
(the worst-case drift, see :meth:`wikimem.index.bm25.InvertedIndex.search`) of
the k-th best, so the caller can rescore the few survivors exactly. A
scanned list costs C-level ``dict.update`` calls and the k-th best is found
after a C-level ``compress`` filter: cost follows the query terms' posting
lists, not N. This module only reads postings; it never mutates the index.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Iterable
from itertools import compress, islice, repeat
from operator import add, eq, mul
from typing import Any, NamedTuple

__all__ = ["Term", "candidates", "kth_largest"]


class Term(NamedTuple):
    """One query term during a search."""

    ub: float  # the largest value in ``values``
    scale: float  # values = cached impacts x scale (the query tf)
    entry: Any  # the term's postings (``docs``, ``tfs``, cached impacts)
    values: array[float]
    weight: float  # exact qtf·idf·(k1+1), for rescoring


def candidates(
    terms: list[Term],
    k: int,
    rho: float,
    kth_impact: Callable[[Any, int], float],
    top_docs: Callable[[Any, int], Iterable[int]],
) -> list[tuple[int, float]]:
    """Every doc whose value sum could make the top k, with that sum.

    ``terms`` are sorted by decreasing ``ub``. With exact values (``rho`` =
    1) that is the docs scoring at least the k-th best. With stale values it
    is every doc within ``rho`` of the k-th best value sum: a doc below that
    cannot beat k others whatever the true factors are. ``kth_impact(entry,
    k)`` is the k-th largest cached impact of a term (a floor for theta);
    ``top_docs(entry, m)`` some of its docs with the highest impacts (about m).
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
    # theta: a floor under the k-th best value sum. Before the walk reaches
    # a long list it cannot skip, the best docs of each term, summed over
    # all terms, raise it (seeding costs a probe per seed and term: only
    # worth it in front of a long list).
    theta = 0.0
    seeded = False
    i = 0
    while i < len(terms):
        if rho * theta <= rest[i] and len(acc) >= k:
            theta = kth_largest(acc.values(), k, theta)
        if rho * theta <= rest[i] and not seeded and len(terms[i].values) > 16 * _SEED_DEPTH * k:
            seeded = True
            theta = max(theta, _seed_theta(terms, k, top_docs))
        if rho * theta > rest[i]:
            break  # no unseen doc can reach the top k any more
        term = terms[i]
        docs, values = term.entry.docs, term.values
        # What a doc first seen in this term needs from it alone: once
        # positive, the walk stops after this term, so only the docs
        # reaching it join (a C-level filter of a long list) and those
        # already accumulated get this term's value by probing.
        floor = rho * theta - rest[i + 1]
        if floor > 0.0:
            fresh = dict(compress(zip(docs, values), map(floor.__le__, values)))
            if acc:
                _probe(acc, list(acc), docs, values)
                fresh.update(acc)
            acc = fresh
        elif acc:
            acc.update(zip(docs, map(add, map(acc.get, docs, repeat(0.0)), values)))
        else:
            acc = dict(zip(docs, values))
        theta = max(theta, term.scale * kth_impact(term.entry, k))
        i += 1
    if i == len(terms):
        floor = rho * kth_largest(acc.values(), k, theta) if len(acc) >= k else 0.0
        return list(compress(acc.items(), map(floor.__le__, acc.values())))
    # Non-essential terms: only probe candidates that can still make it.
    floor = rho * theta - rest[i]
    cands = list(compress(acc.keys(), map(floor.__le__, acc.values())))
    for term in terms[i:]:
        if rest[0] - term.ub < rho * theta:
            # Without this term no doc reaches theta: keep the candidates it
            # holds (a C-level set intersection, before any probing).
            held = set(cands).intersection(term.entry.docs)
            cands = list(compress(cands, map(held.__contains__, cands)))
    for j in range(i, len(terms)):
        scores = _probe(acc, cands, terms[j].entry.docs, terms[j].values)
        theta = kth_largest(scores, k, theta) if len(cands) >= k else 0.0
        floor = rho * theta - rest[j + 1]
        cands = list(compress(cands, map(floor.__le__, scores)))
    return [(d, acc[d]) for d in cands]


#: Below this many candidates a probe bisects; above, it walks the list.
_FEW = 2000
#: Each term's top (this x k) docs seed theta: deep enough that docs good
#: in every term (the usual winners of common-term queries) are among them.
_SEED_DEPTH = 16


def _probe(acc: dict[int, float], cands: list[int], docs: array[int], values: array[float]) -> list[float]:
    """Add one term's values to ``acc`` for ``cands`` (any order); returns their new sums.

    C-level all the way. Few candidates: a ``bisect`` each through ``map``
    (bisecting an ``array`` boxes every probe, ~1 us). Many: the term's list
    is walked once against a byte mask of the candidates.
    """
    if not docs or not cands:
        return [acc[d] for d in cands]
    if len(cands) < _FEW:
        pos = list(map(min, map(bisect_left, repeat(docs), cands), repeat(len(docs) - 1)))
        found = map(mul, map(values.__getitem__, pos), map(eq, map(docs.__getitem__, pos), cands))
        scores = list(map(add, map(acc.__getitem__, cands), found))
    else:
        mask = bytearray(max(docs[-1], max(cands)) + 1)
        deque(map(mask.__setitem__, cands, repeat(1)), 0)
        held = dict(compress(zip(docs, values), map(mask.__getitem__, docs)))
        scores = list(map(add, map(acc.__getitem__, cands), map(held.get, cands, repeat(0.0))))
    acc.update(zip(cands, scores))
    return scores


def _seed_theta(terms: list[Term], k: int, top_docs: Callable[[Any, int], Iterable[int]]) -> float:
    """The k-th best full value sum among each term's top-k docs (0.0 if fewer than k).

    Real docs' sums, so a floor under the final k-th best: with it, the
    walk below can stop before the long lists of common terms (whose
    upper bounds the rarer terms' sums already beat). Each term's top docs
    are cached by the index (any real docs give a floor, so ties may be cut).
    """
    seeds: set[int] = set()
    for term in terms:
        seeds.update(top_docs(term.entry, _SEED_DEPTH * k))
    if len(seeds) < k:
        return 0.0
    cands = sorted(seeds)
    acc = dict.fromkeys(cands, 0.0)
    for term in terms:
        sums = _probe(acc, cands, term.entry.docs, term.values)
    return heapq.nlargest(k, sums)[-1]


def kth_largest(values: Iterable[float], k: int, floor: float) -> float:
    """The k-th largest of ``values``, given that at least k of them are >= ``floor``.

    The C-level ``compress`` keeps only values above the floor, so the
    Python-level heap sees a handful instead of every accumulated doc.
    """
    values = list(values) if not isinstance(values, (list, array)) else values
    above = list(compress(values, map(floor.__le__, values)))
    if len(above) < k:
        above = list(values)
    kth: float = heapq.nlargest(k, above)[-1]
    return kth


def _suffix_sums(values: list[float]) -> list[float]:
    out = [0.0] * (len(values) + 1)
    for i in range(len(values) - 1, -1, -1):
        out[i] = out[i + 1] + values[i]
    return out
