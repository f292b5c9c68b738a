"""The BM25 top 10 alone, warm: the index's numpy and pure scorers beside bm25s, in one process.

Why this exists: the goal table times whole ``retrieve()`` calls; the
scorer's own row ("the BM25 top 10 alone <= bm25s warm") needs the search
without the pipeline around it, next to bm25s on the same store and the
same query strings (bm25s gets the reference's tokens, as in the goal
table). Each query is run ``--repeat`` times per path after one warm-up
call; the figure per path is the median over all runs, wall and CPU time.
The pure scorer is the reference path (``WIKIMEM_NUMPY=0`` in use).

    python bench/bench_scorer.py --size 100000
    python bench/bench_scorer.py --size 100000 --rounds 3 --repeat 30
    WIKIMEM_BENCH_TREE=/tmp/prev python bench/bench_scorer.py   # /tmp/prev: git archive REV | tar -x
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
if os.environ.get("WIKIMEM_BENCH_TREE"):  # another commit's library (git archive), same script and data
    sys.path.insert(0, os.environ["WIKIMEM_BENCH_TREE"])


def _times(fn: Callable[[], Any], repeat: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of ``repeat`` calls of ``fn`` (after one untimed call: warm)."""
    fn()
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return wall, cpu


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:8.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--data", type=Path, default=Path("/tmp/wikimem-bench"))
    parser.add_argument("--rounds", type=int, default=3, help="rounds over the paths, interleaved")
    parser.add_argument("--repeat", type=int, default=20, help="timed calls per query, path and round")
    args = parser.parse_args(argv)

    from bench_scale import _index, fixed_queries  # noqa: PLC0415
    from reference_bm25 import Reference, bm25s_engine  # noqa: PLC0415
    from synth import ensure_store  # noqa: PLC0415

    from wikimem.index import vectorized  # noqa: PLC0415

    root = ensure_store(args.data, args.size, 1)
    index = _index(root, "fresh")
    index.build()
    queries = fixed_queries(1)
    corpus = index.indexed().corpus if hasattr(index, "indexed") else index._corpus  # an older tree: no indexed()
    terms = [Counter(index.analyze_query(q).terms) for q in queries]
    engines: dict[str, Callable[[int], Any]] = {
        "numpy": lambda i: corpus.index.search(terms[i], 10),
        "pure": lambda i: corpus.index.search(terms[i], 10),
    }
    try:
        bm25s = bm25s_engine(Reference(index.store))
        engines["bm25s"] = lambda i: bm25s(queries[i])
    except ImportError:
        print("(bm25s not installed: pip install -e '.[bench]')", file=sys.stderr)
    for i in range(len(queries)):  # first use of every term, outside the timing
        engines["numpy"](i)
    wall: dict[str, list[float]] = {name: [] for name in engines}
    cpu: dict[str, list[float]] = {name: [] for name in engines}
    per_query: dict[str, list[list[float]]] = {name: [[] for _ in queries] for name in engines}
    for _ in range(args.rounds):
        for name, engine in engines.items():
            vectorized.switch(name != "pure")
            for i in range(len(queries)):
                w, c = _times(partial(engine, i), args.repeat)
                wall[name] += w
                cpu[name] += c
                per_query[name][i] += w
    vectorized.switch(None)
    print(f"{args.size:,} items, BM25 top 10 alone, warm: median ms over {args.rounds} rounds x {args.repeat} calls x {len(queries)} queries")
    print(f"{'path':8} {'wall':>8} {'cpu':>8}   per query (wall)")
    for name in engines:
        per = " ".join(f"{statistics.median(v) * 1e3:.2f}" for v in per_query[name])
        print(f"{name:8} {_ms(wall[name])} {_ms(cpu[name])}   {per}")
    if "bm25s" in engines:
        for name in ("numpy", "pure"):
            ratio = statistics.median(wall[name]) / statistics.median(wall["bm25s"])
            ratio_cpu = statistics.median(cpu[name]) / statistics.median(cpu["bm25s"])
            print(f"{name} / bm25s: {ratio:.2f}x wall, {ratio_cpu:.2f}x cpu (goal: numpy <= 1x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
