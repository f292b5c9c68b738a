"""One term's postings by decreasing impact: the head a top-k query reads first.

Why it exists: a warm query over common terms used to cost a pass over
every posting of every term (a C-level filter or a set built from the
whole list, ~30k-60k postings a term at 100k items), whatever MaxScore
pruned afterwards. The docs that can make a top k are those with a high
value in at least one term (see :func:`wikimem.index.maxscore.candidates`),
and those are a *prefix* of the term's postings ordered by impact. So each
packed term keeps, next to its doc-ordered arrays (which ``bisect`` probes),
its highest impacts best first -- complete above a floor, so "every posting
with impact >= x" is a slice of it for any x above that floor. The head is
built on first need from the impacts (one C-level filter of the list, then
a sort of the few thousand kept) and grows, by a lower floor, when a query
needs more of the list than it holds; a write appends to it in place, and
a removal deletes from it in place (:func:`note_removed`): rebuilding the
head of a 30k-posting list after one removal cost the next query ~5 ms.

A strided sorted sample of the impacts estimates how many postings lie
above any x without building anything: the query planner compares ways of
splitting its threshold between terms by that count. It is an estimate, so
a write does not redo it; it is taken again once the list's length moved
by more than a sixteenth since (re-sorting it after every ``add()`` was
~50 us per query term).

All values here are impacts (query tf 1); callers scale by the query tf.
This module only reads an entry's ``docs`` and ``impact``; it owns
``entry.head``.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from itertools import compress
from operator import and_, neg
from typing import Any

from wikimem.index import vectorized

__all__ = ["Head", "above", "count_above", "kth", "note_added", "note_removed", "top"]

#: A head holds at least this many postings (the top docs a query seeds from).
HEAD_MIN = 256
#: A head grows to a little below the impact a query asked for.
_SLACK = 0.95
#: The sample keeps every n-th impact so that it holds about this many.
_SAMPLE = 512
#: The sample is taken again once the list's length moved by more than 1/_RESAMPLE since.
_RESAMPLE = 16


class Head:
    """The postings with the highest impacts, best first (ties by doc id), and what is above ``floor``."""

    __slots__ = ("docs", "floor", "neg", "sample", "sampled", "step")

    def __init__(self) -> None:
        #: Negated impacts, ascending (so ``bisect`` finds "impact >= x").
        self.neg: array[float] = array("d")
        self.docs: array[int] = array("i")
        #: Every posting with impact >= floor is in the head (inf: nothing is yet).
        self.floor = float("inf")
        #: Negated impacts of every ``step``-th posting, sorted ascending (None: not sampled yet).
        self.sample: list[float] | None = None
        self.step = 1
        #: The list's length when the sample was taken.
        self.sampled = 0


def _head(entry: Any) -> Head:
    head: Head | None = entry.head
    if head is None:
        head = entry.head = Head()
    return head


def count_above(entry: Any, x: float) -> int:
    """About how many postings have impact >= ``x`` (exact for short lists and inside the head)."""
    head = _head(entry)
    if x >= head.floor:
        return bisect_right(head.neg, -x)
    impact = entry.impact
    if head.sample is None or abs(len(impact) - head.sampled) * _RESAMPLE > head.sampled:
        head.step = step = max(1, len(impact) // _SAMPLE)
        head.sample = sorted(map(neg, impact[::step]))
        head.sampled = len(impact)
    return bisect_right(head.sample, -x) * head.step


def above(entry: Any, x: float) -> tuple[array[int], array[float]]:
    """The docs with impact >= ``x`` and their negated impacts, best first."""
    head = _head(entry)
    if x < head.floor:
        _grow(entry, head, x)
    end = bisect_right(head.neg, -x)
    return head.docs[:end], head.neg[:end]


def top(entry: Any, m: int) -> tuple[array[int], array[float]]:
    """Docs of the term's ``m`` highest impacts (all of them when it has fewer) and their negated impacts."""
    head = _head(entry)
    if len(head.docs) < m and head.floor > 0.0:
        _grow(entry, head, _rank_value(entry, head, m))
    return head.docs[:m], head.neg[:m]


def kth(entry: Any, k: int) -> float:
    """The k-th largest impact of the term (0.0 when it has fewer than k postings)."""
    if len(entry.docs) < k:
        return 0.0
    head = _head(entry)
    if len(head.docs) < k:
        _grow(entry, head, _rank_value(entry, head, k))
    return -head.neg[k - 1]


def note_added(entry: Any, doc: int, value: float) -> None:
    """A write appended ``doc`` (the largest id) with impact ``value``: keep the head complete."""
    head = entry.head
    if head is None:
        return
    if value >= head.floor:
        at = bisect_right(head.neg, -value)  # after equal impacts: the new doc id is the largest
        head.neg.insert(at, -value)
        head.docs.insert(at, doc)


def note_removed(entry: Any, doc: int, value: float) -> None:
    """``doc``'s posting (impact ``value``) left the term's list: take it out of the head too.

    The head stays exactly what a rebuild would make above its floor (the
    same postings, in the same order: removing one keeps the others'
    order), so nothing is rebuilt.
    """
    head = entry.head
    if head is None or value < head.floor:
        return
    at = bisect_left(head.neg, -value)  # the first posting of that impact; ties run by doc id
    end = bisect_right(head.neg, -value)
    docs = head.docs
    for i in range(at, end):
        if docs[i] == doc:
            del head.neg[i]
            del docs[i]
            return
    raise AssertionError(f"doc {doc} (impact {value!r}) is above the head's floor but not in it")


def _rank_value(entry: Any, head: Head, m: int) -> float:
    """An impact with at least about ``m`` postings above it (0.0: the whole list)."""
    impact = entry.impact
    if len(impact) <= 4 * m:
        return 0.0
    count_above(entry, 0.0)  # make sure the sample exists
    sample = head.sample
    assert sample is not None
    at = min(len(sample) - 1, (2 * m) // head.step + 1)  # twice the rank: the estimate is coarse
    return -sample[at]


def _grow(entry: Any, head: Head, x: float) -> None:
    """Extend the head to every posting with impact >= a floor <= ``x``.

    The floor goes a little below ``x`` and at least to twice the head's
    size, so that the next query that needs slightly more (a write lowered
    its threshold by the drift factor) finds it there. Only the band
    between the new floor and the old one is filtered out of the list and
    sorted (by an index sort: no tuple per posting); it goes after the
    head, whose impacts are all above it.
    """
    impact, docs = entry.impact, entry.docs
    floor = min(x * _SLACK, _rank_value(entry, head, max(HEAD_MIN, 2 * len(head.docs))))
    if floor <= 0.0 or len(impact) <= 2 * HEAD_MIN:
        floor = 0.0
    old = head.floor
    if vectorized.active(len(impact)):
        neg_values, ids_sorted = vectorized.band(impact, docs, floor, old)
        head.neg.extend(neg_values)
        head.docs.extend(ids_sorted)
        head.floor = floor
        return
    if floor <= 0.0:
        band = list(map(old.__gt__, impact)) if head.docs else None
    elif head.docs:
        band = list(map(and_, map(floor.__le__, impact), map(old.__gt__, impact)))
    else:
        band = list(map(floor.__le__, impact))
    values = list(map(neg, impact if band is None else compress(impact, band)))
    ids = docs if band is None else list(compress(docs, band))
    order = sorted(range(len(values)), key=values.__getitem__)  # stable: ties stay by doc id
    head.neg.extend(map(values.__getitem__, order))
    head.docs.extend(map(ids.__getitem__, order))
    head.floor = floor
