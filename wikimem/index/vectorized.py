"""The index's numpy path: the same postings and the same floats, in vector steps, for large lists.

Why it exists: a term's first use at scale is a pass over every posting
(find its texts in the scan forms, compute each posting's BM25 impact, sort
the best into its head), and pure Python pays 0.5-1.5 us per posting even
through C-level ``map`` -- 0.1-0.4 s a common term at 100k items, seconds
at 1M. numpy does the same passes at a few ns per element. It is optional
(never a dependency, never loaded by ``import wikimem``) and only used
where it pays for its own import (~0.1 s, once): lists and scan forms
above :data:`MIN_ELEMENTS`; a small store never loads it. (A term's search
in the scan forms is :mod:`wikimem.index.form_search`.)

Every function here returns exactly what its pure counterpart returns --
the same doc ids, counts and impacts to the bit (the same IEEE operations
in the same order), the same head order (a stable sort of the same keys)
-- so the index's answers never depend on whether numpy is installed; the
tests compare both paths. ``WIKIMEM_NUMPY=0`` switches it off (benchmarks
measure both; tests force either).

Thread-safety: a numpy view of an ``array`` the index keeps growing would
make the next ``append`` raise (a resized buffer with an export alive), so
nothing here views a live array: doc lengths come from a snapshot
(:class:`Lengths`), scan forms are immutable ``bytes``/``str``.
"""

from __future__ import annotations

import os
from array import array
from typing import Any

from wikimem._optional import importable

__all__ = [
    "LOADED_MIN",
    "MIN_ELEMENTS",
    "SCAN_MIN",
    "Lengths",
    "active",
    "band",
    "candidates",
    "drop_dead",
    "impacts",
    "numpy_module",
    "switch",
    "worth_walking",
]

#: A list this long (postings) is worth numpy's import.
MIN_ELEMENTS = 20_000
#: Once numpy is imported (a large load, or a long list), a list this long is cheaper in it: a
#: call costs ~10-30 us, the pure path ~0.7 us a posting (a fresh 16k-posting list's impacts:
#: ~11 ms pure, the largest share of a first use outside the segments' search at 100k items).
LOADED_MIN = 1024
#: Scan forms this large in all (bytes and characters: ~15k items) are: below it a term's pure
#: search costs a few ms, and the import (0.2-0.5 s on the loaded 2-core machine) would add a
#: third or more to a 10k-item store's cold load (~1 s there).
SCAN_MIN = 4_000_000
#: A query is walked whole when its shortest list holds at least 1/_WALK_SHARE of the doc ids.
_WALK_SHARE = 16

_np: Any = None
_state: bool | None = None


def active(size: int, minimum: int | None = None) -> bool:
    """Whether to take the numpy path for ``size`` elements of work (imports numpy the first time).

    ``minimum``: the size that pays for it (default :data:`MIN_ELEMENTS`, or
    :data:`LOADED_MIN` once numpy is imported and on: the import is paid).
    """
    global _np, _state
    if minimum is None:
        minimum = LOADED_MIN if _state else MIN_ELEMENTS
    if size < minimum:
        return False
    if _state is None:
        _state = os.environ.get("WIKIMEM_NUMPY", "1") != "0" and importable("numpy")
        if _state:
            import numpy  # noqa: PLC0415 -- optional, and only for large work

            _np = numpy
    return _state


def numpy_module() -> Any:
    """numpy if the path is on (imported now if need be), else None: for numpy-only features."""
    return _np if active(1, 0) else None


def switch(on: bool | None) -> None:
    """Force the path on or off (``None``: decide again from the environment). For tests and benchmarks."""
    global _state, _np
    _state = None
    if on is False:
        _state = False
    elif on:
        import numpy  # noqa: PLC0415

        _np, _state = numpy, True


def _ints(values: Any) -> array[int]:
    out = array("i")
    out.frombytes(values.astype(_np.int32, copy=False).tobytes())
    return out


def _floats(values: Any) -> array[float]:
    out = array("d")
    out.frombytes(values.astype(_np.float64, copy=False).tobytes())
    return out


class Lengths:
    """A numpy copy of the index's doc lengths, grown (copied again) when docs were added since.

    Doc ids are never reused and a doc's length never changes, so a copy
    of the first ``n`` lengths stays right for every doc below ``n``.
    """

    __slots__ = ("_copy",)

    def __init__(self) -> None:
        self._copy: Any = None

    def upto(self, lengths: array[int], doc: int) -> Any:
        """The lengths as a numpy array covering ``doc`` (an ``array`` slice: no buffer export of the live one)."""
        copy = self._copy
        if copy is None or len(copy) <= doc:
            copy = self._copy = _np.frombuffer(lengths[:], dtype=_np.int32)
        return copy


def impacts(docs: array[int], tfs: array[int], lengths: Any, w: float, a: float, b: float) -> tuple[array[float], float]:
    """``w·tf / (tf + a + b·dl)`` per posting and the largest, as ``InvertedIndex._refresh_impacts`` computes them.

    ``docs`` and ``tfs`` are viewed, not copied: the caller holds them
    still (a new entry no one else sees, or the index lock).
    """
    np = _np
    tf = np.frombuffer(tfs, dtype=np.int32).astype(np.float64)
    dl = lengths[np.frombuffer(docs, dtype=np.int32)].astype(np.float64)
    values = (w * tf) / ((tf + a) + b * dl)
    return _floats(values), float(values.max())


def drop_dead(entry: Any, alive: bytearray) -> None:
    """Filter removed docs out of a packed entry's arrays (``alive[d]`` is 0 for a removed doc).

    ``alive`` is copied (a slice: the index appends to the live one), then
    one mask keeps the live postings of each array, in order.
    """
    np = _np
    docs = np.frombuffer(entry.docs, dtype=np.int32)
    keep = np.frombuffer(alive[:], dtype=np.uint8)[docs] != 0
    entry.docs = _ints(docs[keep])
    entry.tfs = _ints(np.frombuffer(entry.tfs, dtype=np.int32)[keep])
    if entry.impact is not None:
        values = np.frombuffer(entry.impact, dtype=np.float64)[keep]
        entry.impact = _floats(values)
        entry.impact_max = float(values.max()) if len(values) else 0.0


def band(impact: array[float], docs: array[int], floor: float, old: float) -> tuple[array[float], array[int]]:
    """The postings with ``floor <= impact < old``, by decreasing impact (ties by doc id)."""
    np = _np
    values = np.frombuffer(impact, dtype=np.float64)
    keep = (values >= floor) & (values < old) if floor > 0.0 else values < old
    picked = -values[keep]
    order = np.argsort(picked, kind="stable")
    return _floats(picked[order]), _ints(np.frombuffer(docs, dtype=np.int32)[keep][order])


def worth_walking(lengths: list[int], n_docs: int) -> bool:
    """Whether a query over lists of these lengths is cheaper walked whole in numpy than pruned in Python.

    A walk costs a few ns per posting plus a pass over one value per doc
    id. Pruning is cheap when one of the lists is short: its rare term's
    high idf lets MaxScore skip most of the long lists and probe a few of
    their docs (at 1M items, a 13k list beside 213k and 448k ones: 14 ms
    pruned, 19 ms walked). When every list is long, no term is selective
    and pruning visits tens of thousands of postings in Python (three lists
    of 238k-383k: 118 ms pruned, 26 ms walked) -- so: walk when the shortest
    list holds at least 1/_WALK_SHARE of the docs.
    """
    if len(lengths) < 2:
        return False
    return min(lengths) * _WALK_SHARE >= n_docs and active(sum(lengths))


def candidates(terms: list[Any], k: int, rho: float) -> list[tuple[int, float]]:
    """:func:`wikimem.index.maxscore.candidates` by walking every posting: the same docs, the same sums.

    Each doc's sum adds its terms' values in the order of ``terms``, as the
    pure path's accumulators do (``bincount`` adds its weights in input
    order, from 0.0), so the sums are the same floats; every doc within
    ``rho`` of the k-th best sum is returned, as there.
    """
    np = _np
    docs = np.concatenate([np.frombuffer(t.entry.docs, dtype=np.int32) for t in terms])
    values = np.concatenate([_scaled(np.frombuffer(t.entry.impact, dtype=np.float64), t.scale) for t in terms])
    sums = np.bincount(docs, weights=values)
    held = np.flatnonzero(sums)  # a posting's value is > 0: a doc in some list has a sum > 0
    held_sums = sums[held]
    if len(held) <= k:
        cut = 0.0
    else:
        # Only the docs held: a partition over many equal zeros is slow (40 ms at 1M ids).
        cut = rho * float(np.partition(held_sums, len(held) - k)[len(held) - k])
    keep = held_sums >= cut
    return list(zip(held[keep].tolist(), held_sums[keep].tolist()))


def _scaled(values: Any, scale: float) -> Any:
    return values if scale == 1.0 else scale * values
