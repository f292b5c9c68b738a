"""A write then a query, as a user does it: ``store.add()`` (or an update, a removal), then ``retrieve()``.

Why this exists: ``bench_goals.py``'s "query right after one add()" row
times the query alone, and the index's update for the write is paid there
(it is applied on the next query). This one also times the write itself
and the index update alone, for three kinds of write, so work moved from
the query into the write (or back) shows up: each row prints

* ``write``: the store call (read under the lock, splice, fsync'd commit);
* ``update``: the index catching up with it (``MemoryIndex`` re-reads the
  written file, a diff by item name);
* ``query``: ``retrieve()`` right after the write (update included);
* ``warm``: the same query again, nothing to catch up with;

medians over the ten fixed queries x ``--rounds``, each query's text in
the written item (so its postings change, as when a user adds what they
then ask about). ``--previous-commit REV`` runs that commit's ``wikimem``
in a child of its own, interleaved with today's, on the same store: the
ratios old/new are the same-run comparison. The store is written and put
back (every item the run added is removed): point ``--data`` at a copy.

    python bench/bench_add.py --data /tmp/mine              # store-100000-1 under it
    python bench/bench_add.py --data /tmp/mine --previous-commit c40c93f
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: A child importing another checkout's wikimem (``--previous-commit``) puts it first on the path.
if os.environ.get("WIKIMEM_BENCH_TREE"):
    sys.path.insert(0, os.environ["WIKIMEM_BENCH_TREE"])
sys.path.insert(1, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))

from measure import child_json  # noqa: E402

KINDS = ("add", "update", "remove")


def child(root: Path, rounds: int) -> dict[str, Any]:
    """Build once, then per round and query: a write of each kind, each followed by the timed steps."""
    from bench_scale import fixed_queries  # noqa: PLC0415

    import wikimem  # noqa: PLC0415
    from wikimem import MemoryIndex, MemoryStore  # noqa: PLC0415

    queries = fixed_queries(1)
    store = MemoryStore(root)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    for _ in range(2):
        for query in queries:
            index.retrieve(query)
    file = store.files()[len(store.files()) // 2]
    out: dict[str, Any] = {"wikimem": str(Path(wikimem.__file__).parent)}
    times: dict[str, dict[str, list[float]]] = {k: {"write": [], "update": [], "query": [], "warm": []} for k in KINDS}
    names: list[str] = []

    def step(kind: str, write: Any, query: str, timed_update: bool) -> None:
        t0 = time.perf_counter()
        write()
        t1 = time.perf_counter()
        if timed_update:
            index.indexed()  # the update alone (the query below then has nothing to catch up with)
            times[kind]["update"].append(time.perf_counter() - t1)
        else:
            index.retrieve(query)
            times[kind]["query"].append(time.perf_counter() - t1)
            t2 = time.perf_counter()
            index.retrieve(query)
            times[kind]["warm"].append(time.perf_counter() - t2)
        times[kind]["write"].append(t1 - t0)

    try:
        for rnd in range(rounds):
            for i, query in enumerate(queries):
                for timed_update in (False, True):
                    name = f"bench-add-{rnd}-{i}-{int(timed_update)}"
                    names.append(name)
                    step("add", lambda: store.add(file, name, f"{query} 新增的记忆 {i}"), query, timed_update)
                    step("update", lambda: store.add(file, name, f"{query} 改过的记忆 {i}"), query, timed_update)
                    step("remove", lambda: store.remove(file, name), query, timed_update)
    finally:
        for name in names:
            store.remove(file, name)
    out["median_ms"] = {k: {s: statistics.median(v) * 1000 for s, v in steps.items()} for k, steps in times.items()}
    out["load_avg"] = os.getloadavg()[0]
    return out


def _run(root: Path, rounds: int, tree: Path | None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "WIKIMEM_BENCH_TREE"}
    if tree is not None:
        env["WIKIMEM_BENCH_TREE"] = str(tree)
    argv = [sys.executable, __file__, "--child", str(root), "--rounds", str(rounds)]
    result: dict[str, Any] = child_json(argv, env, "child")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="holds store-SIZE-1 (a copy: it is written)")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2, help="children per code version, interleaved")
    parser.add_argument("--previous-commit", help="also run that commit's wikimem, interleaved")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.rounds)))
        return 0
    if args.data is None:
        parser.error("--data is required")
    root = args.data / f"store-{args.size}-1"
    if not root.is_dir():
        raise SystemExit(f"no store at {root} (bench_core.ensure_store makes one)")
    from bench_goals import _archive  # noqa: PLC0415  (one way to check out the previous code)

    tree = _archive(args.previous_commit) if args.previous_commit else None
    runs: dict[str, list[dict[str, Any]]] = {"today": [], "previous": []}
    for _ in range(args.repeat):
        if tree is not None:
            runs["previous"].append(_run(root, args.rounds, tree))
        runs["today"].append(_run(root, args.rounds, None))
    loads = [r["load_avg"] for rs in runs.values() for r in rs]
    print(f"{args.size:,d} items, {args.rounds} rounds x 10 queries, {args.repeat} children each; "
          f"load {min(loads):.1f}-{max(loads):.1f}")
    print(f"{'write kind':10s} {'step':7s} {'today ms':>9s}" + (f" {'prev ms':>8s} {'prev/today':>10s}" if tree else ""))
    for kind in KINDS:
        for step in ("write", "update", "query", "warm"):
            today = statistics.median(r["median_ms"][kind][step] for r in runs["today"])
            line = f"{kind:10s} {step:7s} {today:9.2f}"
            if tree is not None:
                prev = statistics.median(r["median_ms"][kind][step] for r in runs["previous"])
                line += f" {prev:8.2f} {prev / today:9.2f}x"
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
