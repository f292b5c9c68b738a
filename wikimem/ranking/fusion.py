"""Fusing the BM25 and cosine signals into one ranking.

Design constraint: pure functions over ``{doc_id: raw_score}`` dicts, stdlib
only, so that the retrieval core can fuse without numpy and a benchmark can
compare methods on identical inputs. ``weight`` is always BM25's share (the
SPEC's ``fusion_weight``): 1.0 ranks by BM25 alone, 0.0 by cosine alone.

A document missing from one signal gets that signal's *lowest* normalised
value, never a bonus. The raw scores live on incomparable scales (BM25 is
unbounded; cosine sits in a narrow band that depends on the model), so
every method first maps each signal onto a common scale:

* ``minmax`` — the reference formula: each signal min-max normalised over the
  union of candidates, ``w·bm25 + (1−w)·cos``.
* ``zscore`` — each signal standardised over its own candidates; robust to
  one outlying top score squashing everyone else.

``DEFAULT_FUSION`` is ``zscore``, chosen by ``bench/quality.py`` (figures in
docs/benchmarks.md). Methods measured and not chosen live in
``bench/fusions.py``; ``MemoryIndex(fusion=...)`` takes a name or any
:data:`Fusion` function, so no registry is needed here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

__all__ = ["DEFAULT_FUSION", "FUSIONS", "Fusion", "Scores", "check_weight", "combine", "finite", "fuse", "get_fusion", "mean_sd"]

Scores = Mapping[int, float]
Fusion = Callable[[Scores, Scores, float], dict[int, float]]


def check_weight(weight: float) -> float:
    """``weight`` as a float; ``ValueError`` unless it lies within [0, 1]."""
    weight = float(weight)
    if not 0.0 <= weight <= 1.0:  # also rejects NaN
        raise ValueError(f"fusion weight must be within [0, 1], got {weight}")
    return weight


def finite(scores: Scores) -> dict[int, float]:
    """``scores`` without NaN and infinities (a broken signal adds nothing, never a bonus)."""
    return {doc: float(s) for doc, s in scores.items() if math.isfinite(s)}


def combine(
    bm25: dict[int, float], cos: dict[int, float], weight: float, floor_b: float, floor_c: float
) -> dict[int, float]:
    """``w·bm25 + (1−w)·cos`` over the union; a document missing from a signal gets its floor."""
    return {
        doc: weight * bm25.get(doc, floor_b) + (1.0 - weight) * cos.get(doc, floor_c)
        for doc in bm25.keys() | cos.keys()
    }


def _minmax_norm(scores: dict[int, float]) -> dict[int, float]:
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi == lo:  # one candidate, or all tied: present counts as the top
        return {doc: 1.0 for doc in scores}
    span = hi - lo
    return {doc: (s - lo) / span for doc, s in scores.items()}


def mean_sd(values: list[float]) -> tuple[float, float]:
    """Mean and population standard deviation of a non-empty list."""
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def _zscore_norm(scores: dict[int, float]) -> tuple[dict[int, float], float]:
    """Standardised scores and the floor a missing document gets (the lowest)."""
    if not scores:
        return {}, 0.0
    mean, sd = mean_sd(list(scores.values()))
    if sd == 0.0:  # one candidate, or all tied: as in minmax, present beats missing
        return {doc: 1.0 for doc in scores}, 0.0
    normed = {doc: (s - mean) / sd for doc, s in scores.items()}
    return normed, min(normed.values())


def minmax(bm25: Scores, cos: Scores, weight: float) -> dict[int, float]:
    """The SPEC's reference: min-max over the union, ``w·bm25 + (1−w)·cos``."""
    weight = check_weight(weight)
    return combine(
        _minmax_norm(finite(bm25)), _minmax_norm(finite(cos)), weight, 0.0, 0.0
    )


def zscore(bm25: Scores, cos: Scores, weight: float) -> dict[int, float]:
    """Standardise each signal, then ``w·z_bm25 + (1−w)·z_cos``."""
    weight = check_weight(weight)
    nb, floor_b = _zscore_norm(finite(bm25))
    nc, floor_c = _zscore_norm(finite(cos))
    return combine(nb, nc, weight, floor_b, floor_c)


FUSIONS: dict[str, Fusion] = {
    "minmax": minmax,
    "zscore": zscore,
}

DEFAULT_FUSION = "zscore"


def get_fusion(method: str | Fusion) -> Fusion:
    """The named fusion method, or ``method`` itself when it is a function (``ValueError`` if unknown)."""
    if callable(method):
        return method
    try:
        return FUSIONS[method]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown fusion {method!r} (choose from {', '.join(sorted(FUSIONS))}, or pass a fusion function)"
        ) from None


def fuse(method: str | Fusion, bm25: Scores, cos: Scores, weight: float) -> dict[int, float]:
    """Fused score per document with the named method or function (``ValueError`` if unknown)."""
    return get_fusion(method)(bm25, cos, weight)
