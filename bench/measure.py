"""Timing and memory probes shared by the retrieval-core benchmark.

One definition each, so every engine's figure is taken the same way: a
median of per-query wall times (a median, because a shared machine's
outliers would swamp a mean), and tracemalloc's peak or held bytes around
one call with a collection on both sides.
"""

from __future__ import annotations

import gc
import json
import statistics
import subprocess
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["child_json", "held_mb", "p50", "peak_mb", "timed"]


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


def child_json(argv: list[str], env: dict[str, str], what: str) -> Any:
    """Run a measuring child process and return the JSON of its last stdout line; exit naming ``what`` if it failed.

    Each size or variant runs in a fresh interpreter so its peak RSS and
    first uses are its own; they all hand their figures back this way.
    """
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    if done.returncode:
        raise SystemExit(f"{what} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def byte_compiled(package: Path) -> None:
    """Byte-compile ``package`` as ``pip install`` does, so a one-shot process it serves compiles nothing.

    A machine may set ``PYTHONDONTWRITEBYTECODE`` (the bench machine does):
    then every spawn of a checkout compiles each module whose bytecode is
    missing or stale -- a cost no installed copy pays, and one that differs
    between a fresh ``git archive`` and a long-used checkout. ``py_compile``
    writes the bytecode whatever that variable says.
    """
    import compileall  # noqa: PLC0415

    compileall.compile_dir(str(package), quiet=1)
