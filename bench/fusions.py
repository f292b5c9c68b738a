"""Fusion methods measured and not chosen as a default, kept to compare against.

``wikimem.ranking.fusion`` holds the default (``zscore``) and the SPEC's
reference (``minmax``); everything else that was tried lives here, so the
library carries no knob nobody chose. ``MemoryIndex(fusion=...)`` takes any
of these functions, which is how ``bench/quality.py --fusions dbsf,rrf``
measures them through the same pipeline a user gets:

* ``dbsf`` — distribution-based score fusion: each signal clipped to
  ``mean ± 3·sd`` and scaled onto [0, 1].
* ``rrf`` — weighted reciprocal rank fusion, ``w/(k+rank)`` with k = 60:
  ignores score magnitudes entirely.

Neither beat ``zscore`` at hit@5 in the measurements that chose the default
(docs/adr/0001-zscore-fusion-default.md).
"""

from __future__ import annotations

from wikimem.ranking.fusion import FUSIONS as LIBRARY_FUSIONS
from wikimem.ranking.fusion import Fusion, Scores, check_weight, combine, finite, mean_sd

__all__ = ["FUSIONS", "RRF_K", "dbsf", "method", "rrf"]

#: The rank offset of reciprocal rank fusion (Cormack et al., 2009).
RRF_K = 60


def _dbsf_norm(scores: dict[int, float]) -> dict[int, float]:
    if not scores:
        return {}
    mean, sd = mean_sd(list(scores.values()))
    if sd == 0.0:
        return {doc: 1.0 for doc in scores}
    lo, hi = mean - 3.0 * sd, mean + 3.0 * sd
    return {doc: min(1.0, max(0.0, (s - lo) / (hi - lo))) for doc, s in scores.items()}


def dbsf(bm25: Scores, cos: Scores, weight: float) -> dict[int, float]:
    """Distribution-based score fusion: ``mean ± 3·sd`` onto [0, 1], then weighted."""
    weight = check_weight(weight)
    return combine(_dbsf_norm(finite(bm25)), _dbsf_norm(finite(cos)), weight, 0.0, 0.0)


def _ranks(scores: dict[int, float]) -> dict[int, int]:
    ordered = sorted(scores, key=lambda doc: (-scores[doc], doc))
    return {doc: rank for rank, doc in enumerate(ordered, start=1)}


def rrf(bm25: Scores, cos: Scores, weight: float) -> dict[int, float]:
    """Weighted reciprocal rank fusion: ``w/(k+rank_bm25) + (1−w)/(k+rank_cos)``."""
    weight = check_weight(weight)
    rb, rc = _ranks(finite(bm25)), _ranks(finite(cos))
    return {
        doc: (weight / (RRF_K + rb[doc]) if doc in rb else 0.0)
        + ((1.0 - weight) / (RRF_K + rc[doc]) if doc in rc else 0.0)
        for doc in rb.keys() | rc.keys()
    }


#: Every method measured: the library's two and the two kept here.
FUSIONS: dict[str, Fusion] = {**LIBRARY_FUSIONS, "dbsf": dbsf, "rrf": rrf}


def method(name: str) -> str | Fusion:
    """What to pass as ``MemoryIndex(fusion=...)`` for ``name``: the library's own by name, ours as a function."""
    if name in LIBRARY_FUSIONS:
        return name
    try:
        return FUSIONS[name]
    except KeyError:
        raise SystemExit(f"unknown fusion {name!r} (choose from {', '.join(sorted(FUSIONS))})") from None
