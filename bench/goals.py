"""One way for every benchmark to print a BENCH.md goal: the ratio, then ok or MISS.

A ratio is figure / goal, so <= 1 meets the goal whatever the goal's
direction (for a floor such as "recall >= 0.95", the caller passes
goal / figure). Misses are printed, never hidden: a flattering table is a bug.
"""

from __future__ import annotations

__all__ = ["goal"]


def goal(label: str, ratio: float) -> bool:
    """Print one goal line; True when met."""
    met = ratio <= 1.0
    print(f"  {label}: ratio {ratio:.2f} {'ok' if met else 'MISS'}")
    return met
