"""Top-k BM25 candidates from the heads of the query terms' postings, in C-level steps.

Design constraint: pruning must never change the top k, even when the
per-posting values it adds up are slightly stale (a write moved N and the
average length since they were cached). With stale values the result keeps
every doc within a factor ``rho`` (the worst-case drift, see
:meth:`wikimem.index.bm25.InvertedIndex.search`) of the k-th best value
sum, so the caller can rescore the few survivors exactly.

Why it reads heads and not whole lists: a warm query's cost must follow
what can make the top k, not the length of its terms' lists. Given a floor
``T`` under the k-th best value sum (from the full sums of each term's top
docs, the *seeds*), split it into per-term thresholds ``x_i`` with
``sum(x_i) <= T``: a doc below every ``x_i`` sums to less than ``T``, so
every doc that can make the top k lies in some term's postings with value
``>= x_i`` -- a prefix of that term's impact-ordered head
(:mod:`wikimem.index.impact_order`). A threshold above a term's best value
drops the term from the search (MaxScore's non-essential lists); a
threshold of 0 takes a short list whole. The split is chosen by the
estimated number of postings it reads. The union of the prefixes is then
scored by probing each term's doc-ordered list (``bisect`` through ``map``,
or one masked walk for many candidates), dropping a candidate as soon as
what it has plus what the unprobed terms could add falls below ``T``.
When no split reads less than a walk of the whole lists would, the lists
are walked (C-level ``dict`` updates). This module only reads postings.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections import deque
from collections.abc import Iterable
from itertools import compress, repeat
from operator import add, eq, mul, neg, not_
from typing import Any, NamedTuple

from wikimem.index import impact_order, vectorized

__all__ = ["Term", "candidates", "kth_largest"]


class Term(NamedTuple):
    """One query term during a search."""

    ub: float  # the largest value: scale x the largest cached impact
    scale: float  # values = cached impacts x scale (the query tf)
    entry: Any  # the term's postings (``docs``, ``tfs``, cached ``impact``, ``head``)
    weight: float  # exact qtf·idf·(k1+1), for rescoring


#: The (this x k) docs with the best sums over the heads seed the floor (at least _SEED_MIN).
_SEED_DEPTH = 4
_SEED_MIN = 32
#: The deepest head read for seeds found in several terms: this many
#: postings, or 1/_SEED_SHARE of the second longest list (measured: the
#: 3-term common query of bench_scale needs ~1/12 of its lists at 100k).
_SEED_HEAD = 2048
#: Of the docs the heads show, this x that many with the best sums over them are probed in full.
_SEED_PROBED = 2
_SEED_SHARE = 8
#: A probe by bisect costs about this many postings of a masked walk (measured: ~0.9 vs ~0.19 us).
_PROBE_COST = 5
#: All lists but the longest this short in all: their docs alone may settle the top k (:func:`_short_rest`).
_SHORT_REST = 256
#: A list this short is read whole by a probe's walk (a mask as long as the doc ids costs more).
_HELD_WHOLE = 1024
#: Candidates from which a probe by bisect goes through numpy when a list is long enough for it.
_SORTED_MIN = 32
#: A set intersection costs about 1/_INTERSECT of a probe per element (~45 ns vs ~0.9 us).
_INTERSECT = 20
#: Thresholds are lowered by this relative margin: float sums never cut a tie.
#: Lists this short in all are walked whole (measured: seeding and planning cost
#: 3-10 ms even over a few thousand postings; a walk ~0.2 us a posting).
_WALK_MAX = 16_000
_MARGIN = 1e-9


def candidates(terms: list[Term], k: int, rho: float) -> list[tuple[int, float]]:
    """Every doc whose value sum could make the top k, with that sum.

    ``terms`` are sorted by decreasing ``ub``. With exact values (``rho`` =
    1) that is the docs scoring at least the k-th best. With stale values it
    is every doc within ``rho`` of the k-th best value sum: a doc below that
    cannot beat k others whatever the true factors are.
    """
    if len(terms) == 1:
        return _one_term(terms[0], k, rho)
    if sum(len(t.entry.docs) for t in terms) > _WALK_MAX:
        found = _short_rest(terms, k, rho)
        if found is not None:
            return found
    theta = 0.0
    if sum(len(t.entry.docs) for t in terms) <= _WALK_MAX:
        acc = _walk(terms)  # short lists: walking them costs less than seeding and planning
    else:
        acc = _seeded(terms, k)
        theta = kth_largest(acc.values(), k, 0.0) if len(acc) >= k else 0.0
        floor = rho * theta * (1.0 - _MARGIN)
        if floor <= 0.0:
            acc = _walk(terms)
        else:
            pool = _pool(terms, floor)
            pool.difference_update(acc)
            acc.update(_score(terms, sorted(pool), floor))
    if len(acc) < k:
        return list(acc.items())
    cut = rho * kth_largest(acc.values(), k, theta)
    return list(compress(acc.items(), map(cut.__le__, acc.values())))


def _short_rest(terms: list[Term], k: int, rho: float) -> list[tuple[int, float]] | None:
    """A rare term beside a common one: the docs of every list but the longest, and the longest's head.

    ``werieyaut resninmwbr`` (19k and 12 postings): seeding and planning
    read dozens of the long list's docs to learn what the short lists
    show. A doc outside the short lists (``held``) holds the longest term
    alone, so its sum is that term's value: the best of them are the top
    of the longest list's impact-ordered head. So when all lists but the
    longest hold at most ``_SHORT_REST`` postings, the held docs are
    scored in full (each term in order, as everywhere: the same floats),
    the k-th best of those sums and of the head's top ``k + len(held)``
    values (at least k of them outside ``held``) is the k-th best of all,
    and the answer is every held doc and every head posting outside
    ``held`` within ``rho`` of it. It also settles the case of fewer than
    k held docs: a term that occurs once -- in the doc just added with the
    query's words -- beside a common one (``bt 深`` at 100k: seeding and
    planning ~250 us). None: the lists are not so (the general path decides).
    """
    lengths = [len(t.entry.docs) for t in terms]
    longest = lengths.index(max(lengths))
    if sum(lengths) - lengths[longest] > _SHORT_REST:
        return None
    held: set[int] = set()
    for i, term in enumerate(terms):
        if i != longest:
            held.update(term.entry.docs)
    cands = sorted(held)
    acc = dict.fromkeys(cands, 0.0)
    for term in terms:
        _probe(acc, cands, term)
    long, scale = terms[longest], terms[longest].scale
    docs, negs = impact_order.top(long.entry, k + len(held))
    keep = list(map(not_, map(held.__contains__, docs)))
    shown = list(map(scale.__mul__, map(neg, compress(negs, keep))))
    values = [*acc.values(), *shown]
    if len(values) < k:  # the longest list is shown whole (top() gives all of a shorter list)
        return [*acc.items(), *zip(compress(docs, keep), shown)]
    cut = rho * kth_largest(values, k, 0.0)
    found = list(compress(acc.items(), map(cut.__le__, acc.values())))
    if not shown or shown[0] * (1.0 + _MARGIN) < cut:  # the best doc outside cannot reach it (the usual case)
        return found
    docs, negs = impact_order.above(long.entry, cut / scale * (1.0 - _MARGIN))
    keep = list(map(not_, map(held.__contains__, docs)))
    outside = list(map(scale.__mul__, map(neg, compress(negs, keep))))
    found += compress(zip(compress(docs, keep), outside), map(cut.__le__, outside))
    return found


def _pool(terms: list[Term], floor: float) -> set[int]:
    """The docs that can reach ``floor``: the union of the plan's prefixes, cut by the terms none can lack."""
    xs = _plan(terms, floor)
    pool: set[int] = set()
    for term, x in zip(terms, xs):
        if x is not None:
            pool.update(impact_order.above(term.entry, x / term.scale)[0])
    # A term whose absence no doc can make up for (what it needs > 0): the
    # pool keeps the docs it holds with at least that value (a C-level set
    # intersection with a prefix of its head), when that costs less than
    # probing the pool for it.
    total = sum(t.ub for t in terms)
    needs = []
    for term in terms:
        need = (floor - (total - term.ub) * (1.0 + _MARGIN)) / term.scale
        if need > 0.0:
            needs.append((impact_order.count_above(term.entry, need), need, term))
    for size, need, term in sorted(needs, key=lambda snt: snt[0]):
        if size > _INTERSECT * len(pool):
            break
        pool.intersection_update(impact_order.above(term.entry, need)[0])
    return pool


def _one_term(term: Term, k: int, rho: float) -> list[tuple[int, float]]:
    """One term: its k-th largest value is the floor, read off its head."""
    entry, scale = term.entry, term.scale
    if len(entry.docs) <= k:
        return list(zip(entry.docs, map(scale.__mul__, entry.impact)))
    docs, negs = impact_order.above(entry, rho * impact_order.kth(entry, k))
    return list(zip(docs, map(scale.__mul__, map(neg, negs))))


def _seeded(terms: list[Term], k: int) -> dict[int, float]:
    """Full value sums of likely winners: real sums, so their k-th best is a floor under the answer's.

    The likely winners are the docs with the best sums over the terms'
    heads (what the heads show of each doc: a doc good in several terms is
    what a common-term query ranks first). The heads are read deeper, x4 a
    round, until enough docs show in two of them (never deeper than the
    second longest list: no doc is in two lists beyond it).
    """
    m = max(_SEED_DEPTH * k, _SEED_MIN)
    second = sorted(len(t.entry.docs) for t in terms)[-2]
    depth = m
    while True:
        known: dict[int, float] = {}
        shown = 0
        for term in terms:
            docs, negs = impact_order.top(term.entry, depth)
            shown += len(docs)
            values = map(term.scale.__mul__, map(neg, negs))
            known.update(zip(docs, map(add, map(known.get, docs, repeat(0.0)), values)))
        if shown - len(known) >= m or depth >= second or depth >= max(_SEED_HEAD, second // _SEED_SHARE):
            break
        depth *= 4
    if len(known) > _SEED_PROBED * m:
        cut = heapq.nlargest(_SEED_PROBED * m, known.values())[-1]
        cands = sorted(compress(known.keys(), map(cut.__le__, known.values())))
    else:
        cands = sorted(known)
    acc = dict.fromkeys(cands, 0.0)
    for term in terms:
        _probe(acc, cands, term)
    return acc


def _plan(terms: list[Term], floor: float) -> list[float | None]:
    """Per-term value thresholds summing to at most ``floor`` that read the fewest postings.

    Tried: the longest lists dropped (a threshold just above their best
    value), the shortest taken whole (threshold 0, which leaves more of the
    floor to the others), the rest sharing what is left in proportion to
    their best values. Returns the thresholds (None: the term is not
    read for candidates).
    """
    n = len(terms)
    by_len = sorted(range(n), key=lambda i: -len(terms[i].entry.docs))
    best: tuple[int, list[float | None]] | None = None
    for dropped in range(n):
        gone = by_len[:dropped]
        left = floor - sum(terms[i].ub for i in gone) * (1.0 + _MARGIN)
        if left <= 0.0:
            break
        others = by_len[dropped:]
        for whole in range(len(others) if n <= 8 else 1):
            active = others[: len(others) - whole]
            cost = sum(len(terms[i].entry.docs) for i in others[len(others) - whole :])
            share = left / sum(terms[i].ub for i in active)
            xs: list[float | None] = [None] * n
            for i in others[len(others) - whole :]:
                xs[i] = 0.0
            for i in active:
                if share <= 1.0:
                    x = terms[i].ub * share * (1.0 - _MARGIN)
                    xs[i] = x
                    cost += impact_order.count_above(terms[i].entry, x / terms[i].scale)
            if best is None or cost < best[0]:
                best = (cost, xs)
    assert best is not None  # dropping nothing leaves all of the floor > 0
    return best[1]


def _score(terms: list[Term], cands: list[int], floor: float) -> dict[int, float]:
    """Value sums of ``cands``, each dropped once it cannot reach ``floor`` any more."""
    acc = dict.fromkeys(cands, 0.0)
    rest = _suffix_sums([t.ub for t in terms])
    for j, term in enumerate(terms):
        if not cands:
            break
        scores = _probe(acc, cands, term)
        need = floor - rest[j + 1]
        if need > 0.0:
            cands = list(compress(cands, map(need.__le__, scores)))
    return {d: acc[d] for d in cands}


def _walk(terms: list[Term]) -> dict[int, float]:
    """Every doc of every list with its value sum (C-level dict updates)."""
    acc: dict[int, float] = {}
    for term in terms:
        docs, impact = term.entry.docs, term.entry.impact
        values: Iterable[float] = impact if term.scale == 1.0 else map(term.scale.__mul__, impact)
        if acc:
            acc.update(zip(docs, map(add, map(acc.get, docs, repeat(0.0)), values)))
        else:
            acc = dict(zip(docs, values))
    return acc


def _probe(acc: dict[int, float], cands: list[int], term: Term) -> list[float]:
    """Add one term's values to ``acc`` for ``cands`` (any order); returns their new sums.

    C-level all the way. Few candidates: a ``bisect`` each through ``map``
    (bisecting an ``array`` boxes every probe, ~1 us). Many: the term's list
    is walked once against a byte mask of the candidates.
    """
    docs, impact, scale = term.entry.docs, term.entry.impact, term.scale
    if not docs or not cands:
        return [acc[d] for d in cands]
    if len(cands) * _PROBE_COST < len(docs):
        if len(cands) >= _SORTED_MIN and vectorized.active(len(docs)):
            found: Iterable[float] = _searched(vectorized.numpy_module(), docs, impact, cands, scale)
        else:
            pos = list(map(min, map(bisect_left, repeat(docs), cands), repeat(len(docs) - 1)))
            found = map(mul, map(impact.__getitem__, pos), map(eq, map(docs.__getitem__, pos), cands))
            if scale != 1.0:
                found = map(scale.__mul__, found)
        scores = list(map(add, map(acc.__getitem__, cands), found))
    else:
        if len(docs) <= _HELD_WHOLE:  # a short list: all of it, not a mask as long as the doc ids
            held_docs: Iterable[int] = docs
            values: Iterable[float] = impact
        else:
            mask = bytearray(max(docs[-1], max(cands)) + 1)
            deque(map(mask.__setitem__, cands, repeat(1)), 0)
            keep = list(map(mask.__getitem__, docs))
            held_docs, values = compress(docs, keep), compress(impact, keep)
        if scale != 1.0:
            values = map(scale.__mul__, values)
        held = dict(zip(held_docs, values))
        scores = list(map(add, map(acc.__getitem__, cands), map(held.get, cands, repeat(0.0))))
    acc.update(zip(cands, scores))
    return scores


def _searched(np: Any, docs: array[int], impact: array[float], cands: list[int], scale: float) -> list[float]:
    """:func:`_probe`'s bisect path in numpy (``searchsorted`` is ``bisect_left``): the same floats.

    A probe by ``bisect`` through ``map`` boxes every comparison (~0.9 us
    a candidate in a 20k list); one ``searchsorted`` over a view of the
    array costs a few us for all of them. Each value is the impact times
    whether the doc is there (1.0 or 0.0), times the scale: the pure
    path's operations in its order.
    """
    found = np.frombuffer(docs, dtype=np.int32)
    wanted = np.array(cands, dtype=np.int32)
    pos = np.minimum(np.searchsorted(found, wanted), len(found) - 1)
    values = np.frombuffer(impact, dtype=np.float64)[pos] * (found[pos] == wanted)
    out: list[float] = (values if scale == 1.0 else scale * values).tolist()
    return out


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
