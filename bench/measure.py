"""Timing and memory probes shared by the retrieval-core benchmark.

One definition each, so every engine's figure is taken the same way: a
median of per-query wall times (a median, because a shared machine's
outliers would swamp a mean), and tracemalloc's peak or held bytes around
one call with a collection on both sides.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

__all__ = ["held_mb", "p50", "peak_mb", "timed"]


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds ``fn`` took, and what it returned."""
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def p50(fn: Callable[[str], Any], queries: list[str]) -> float:
    """The median seconds of one ``fn(query)`` over ``queries``."""
    return statistics.median(timed(lambda q=q: fn(q))[0] for q in queries)


def peak_mb(fn: Callable[[], Any]) -> float:
    """Peak traced memory while ``fn`` runs (what it returns is held until then)."""
    gc.collect()
    tracemalloc.start()
    keep = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del keep
    gc.collect()
    return peak / 1e6


def held_mb(fn: Callable[[], Any]) -> float:
    """Traced memory still held by what ``fn`` returns (after a collection)."""
    gc.collect()
    tracemalloc.start()
    keep = fn()
    gc.collect()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del keep
    gc.collect()
    return held / 1e6
