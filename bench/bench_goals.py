"""The speed goal table (BENCH.md "Warm, first use, and 1M"), with the previous round beside today.

Why this exists: warm queries once got 5-8x slower between two rounds and
no benchmark said so, because each printed only today's figures. This one
prints every goal row with the previous round's figure next to today's,
marks each MISS, and warns when a warm figure got worse by more than 1.5x.

Each size runs in a fresh interpreter (``--child``), so its peak RSS is its
own and its first use of a term is a real first use. In the 100k child the
reference -- a straightforward build and a pure-Python BM25 that scores
every document (``reference_bm25.Reference``) -- is measured in the same
process on the same store, rounds interleaved with ours, and every 100k
ratio is ours / that reference; bm25s (numpy) gets the reference's tokens
and is timed warm beside it. The queries are ``bench_scale``'s ten fixed
strings (the commonest words to rare ones), through the public
``retrieve()``: the first pass is each query's first use of its terms, the
next three passes are warm.

Rounds live in ``bench/rounds/*.json`` (one small file a round, committed);
"previous" is the newest file other than the one ``--save`` writes.
``--previous-commit REV`` also runs the children with that commit's
``wikimem`` (``git archive``), interleaved, so a regression shows as a
same-run ratio too.

    python bench/bench_goals.py                        # 100k and 1M
    python bench/bench_goals.py --sizes 100000 --previous-commit cb3d446
    python bench/bench_goals.py --save 2026-12-01-session-19
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
if os.environ.get("WIKIMEM_BENCH_TREE"):  # a previous commit's library, same script and data
    sys.path.insert(0, os.environ["WIKIMEM_BENCH_TREE"])

from goal_table import KEYS, ROUNDS, per_query_lines, previous_round, report, same_run_columns, write_block  # noqa: E402


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def _timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def child(root: Path, reference: bool, mode: str = "fresh") -> dict[str, Any]:
    """One size in this fresh process: ours (public API), and with ``reference`` the references too.

    ``mode``: "fresh" reads no postings cache (the first process on these
    files); "cached" reads the one an earlier process's ``warm()`` wrote
    (what the app and the MCP server find from their second start on).
    """
    from bench_scale import _index, fixed_queries  # noqa: PLC0415

    import wikimem  # noqa: PLC0415

    queries = fixed_queries(1)
    index = _index(root, mode)
    store = index.store
    out: dict[str, Any] = {"wikimem": str(Path(wikimem.__file__).parent)}
    out["build_s"] = _timed(index.build)
    out["first_s"] = [_timed(lambda q=q: index.retrieve(q)) for q in queries]
    out["rss_after_first_mb"] = _rss_mb()
    ref = bm25s = None
    if reference:
        from reference_bm25 import Reference  # noqa: PLC0415

        from wikimem.disk.loader import gc_paused  # noqa: PLC0415

        start = time.perf_counter()
        with gc_paused():
            ref = Reference(store)
        out["ref_build_s"] = time.perf_counter() - start
        out["ref_s"], out["bm25s_s"] = [], []
        bm25s = _bm25s(ref)
    out["warm_s"] = []
    for _ in range(3):
        out["warm_s"] += [_timed(lambda q=q: index.retrieve(q)) for q in queries]
        if ref is not None:
            out["ref_s"] += [_timed(lambda q=q: ref.search(q)) for q in queries[::2]]
        if bm25s is not None:
            out["bm25s_s"] += [_timed(lambda q=q: bm25s(q)) for q in queries]
    out["topk_s"] = _top_k_alone(index, queries)
    if reference:
        out["add_s"] = _after_add(store, index, queries)
    out["rss_peak_mb"] = _rss_mb()
    out["load_avg"] = os.getloadavg()[0]
    return out


def _bm25s(ref: Any) -> Any:
    """bm25s (numpy) over the reference's tokens, top 10 as every reference is ranked; None when not installed."""
    from reference_bm25 import bm25s_engine  # noqa: PLC0415

    try:
        return bm25s_engine(ref)
    except ImportError:
        print("(bm25s not installed: pip install -e '.[bench]')", file=sys.stderr)
        return None


def _top_k_alone(index: Any, queries: list[str]) -> list[float]:
    """The BM25 top 10 alone (what bm25s's figure times), warm, three rounds; [] for a library without it.

    ``retrieve()`` adds what a caller gets on top: items, matched terms,
    token estimates, link expansion, the time-word gate.
    """
    from collections import Counter  # noqa: PLC0415

    corpus, analyze = getattr(index, "_corpus", None), getattr(index, "analyze_query", None)
    if corpus is None or analyze is None or not hasattr(corpus, "index"):
        return []
    terms = [Counter(analyze(q).terms) for q in queries]
    return [_timed(lambda t=t: corpus.index.search(t, 10)) for _ in range(3) for t in terms]


def _after_add(store: Any, index: Any, queries: list[str]) -> list[float]:
    """The first query after one ``store.add()`` (the index update it applies, and the query), once per query.

    Each of the ten queries once, so the figure compares with the warm p50
    of the same queries (the write's own fsync is the store's, not timed).
    """
    file = store.files()[len(store.files()) // 2]
    times = []
    try:
        for i, query in enumerate(queries):
            store.add(file, f"bench-goal-{i}", f"{query} 新增的记忆 {i}")
            times.append(_timed(lambda q=query: index.retrieve(q)))
    finally:
        for i in range(len(queries)):
            store.remove(file, f"bench-goal-{i}")
    return times


def run_child(root: Path, reference: bool, tree: Path | None, pure: bool = False, mode: str = "fresh") -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "WIKIMEM_BENCH_TREE"}
    if tree is not None:
        env["WIKIMEM_BENCH_TREE"] = str(tree)
    if pure:
        env["WIKIMEM_NUMPY"] = "0"  # the index's pure-Python path (wikimem/index/vectorized.py)
    if mode == "warm":  # bench_scale's warm child writes the postings cache into the store
        argv = [sys.executable, str(ROOT / "bench" / "bench_scale.py"), "--child", str(root), "--mode", "warm"]
    else:
        argv = [sys.executable, __file__, "--child", str(root), "--mode", mode] + (["--reference"] if reference else [])
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    if done.returncode:
        raise SystemExit(f"child {root} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def figures(runs: dict[int, dict[str, Any]]) -> tuple[dict[str, float], dict[str, str]]:
    """The goal rows' values, and the absolute figures printed beside them."""
    values: dict[str, float] = {}
    shown: dict[str, str] = {}
    med = statistics.median
    if 100_000 in runs:
        r = runs[100_000]
        ref = med(r["ref_s"])
        warm = med(r["warm_s"])
        values["warm_100k"] = warm / ref
        shown["warm_100k"] = f"{warm * 1000:.2f} ms vs {ref * 1000:.0f} ms"
        if r.get("bm25s_s"):
            values["warm_vs_bm25s"] = warm / med(r["bm25s_s"])
            shown["warm_vs_bm25s"] = f"{warm * 1000:.2f} ms vs {med(r['bm25s_s']) * 1000:.2f} ms"
            if r.get("topk_s"):
                shown["warm_vs_bm25s"] += f"; the BM25 top 10 alone {med(r['topk_s']) * 1000:.3f} ms"
        values["first_100k"] = max(r["first_s"]) / ref
        shown["first_100k"] = f"{max(r['first_s']) * 1000:.0f} ms"
        values["add_100k"] = med(r["add_s"]) / ref
        shown["add_100k"] = f"{med(r['add_s']) * 1000:.1f} ms"
        values["cold_100k"] = r["build_s"] / r["ref_build_s"]
        shown["cold_100k"] = f"{r['build_s']:.2f} s vs {r['ref_build_s']:.1f} s"
    if 1_000_000 in runs:
        m = runs[1_000_000]
        values["cold_1m"] = m["build_s"] + m["first_s"][0]
        shown["cold_1m"] = f"build {m['build_s']:.2f} s"
        values["rss_1m"] = m["rss_peak_mb"]
        shown["rss_1m"] = f"load avg {m['load_avg']:.1f}"
        if 100_000 in runs:
            values["warm_1m_over_100k"] = med(m["warm_s"]) / med(runs[100_000]["warm_s"])
            shown["warm_1m_over_100k"] = f"{med(m['warm_s']) * 1000:.2f} ms"
            values["first_1m"] = max(m["first_s"]) / med(runs[100_000]["ref_s"])
            shown["first_1m"] = f"{max(m['first_s']) * 1000:.0f} ms"
    return values, shown


def _head() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()


def _archive(rev: str) -> Path:
    out = Path(tempfile.mkdtemp(prefix="wikimem-prev-"))
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "wikimem"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(out)], input=tar.stdout, check=True)
    return out


def publish(record: dict[str, Any], name: str | None, readme: bool, docs: bool) -> None:
    """Print a round's table (and per-query figures); with ``readme``/``docs`` write it into those files."""
    prev = previous_round(name)
    table, warnings = report(record["figures"], record["shown"], prev, same_run_columns(record))
    print(f"\nspeed goals (ratios: ours / the reference in the same process; load average "
          f"{record['load_avg']:.1f} on {record.get('cores', os.cpu_count())} cores)\n")
    print("\n".join(table + warnings))
    lines = per_query_lines(record.get("per_query", {}))
    print("\n" + "\n".join(lines + record.get("warm_ups", [])))
    note = (f"`{record.get('command', 'python bench/bench_goals.py')}` on {record['date']} (commit {record['commit']}, "
            f"load average {record['load_avg']:.1f} on {record.get('cores', os.cpu_count())} cores; ratios are against "
            f"a reference run in the same process; the figures: `bench/rounds/{name or 'not saved'}.json`).")
    if readme:
        write_block(ROOT / "README.md", "speed-goals", note + "\n\n" + "\n".join(table))
    if docs:
        body = note + "\n\n" + "\n".join(table) + "\n\n" + "\n".join(f"    {line}" for line in lines + record.get("warm_ups", []))
        write_block(ROOT / "docs" / "benchmarks.md", "speed-goals-table", body)


def _per_query(runs: dict[int, dict[str, Any]], label: str) -> dict[str, dict[str, list[float]]]:
    return {f"{n:,d}{label}": {"first_ms": [round(t * 1000, 1) for t in r["first_s"]],
                               "warm_ms": [round(statistics.median(r["warm_s"][i::10]) * 1000, 3) for i in range(10)]}
            for n, r in runs.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--data", type=Path, default=Path("/tmp/wikimem-bench"))
    parser.add_argument("--previous-commit", help="also run that commit's wikimem, interleaved")
    parser.add_argument("--pure", action="store_true", help="also run with the index's numpy path off (WIKIMEM_NUMPY=0)")
    parser.add_argument("--app", type=Path, help="bench_app.py --json output: the app rows")
    parser.add_argument("--save", help="write today's figures to bench/rounds/NAME.json")
    parser.add_argument("--from-round", help="measure nothing: show bench/rounds/NAME.json (with --readme/--docs, write it)")
    parser.add_argument("--readme", action="store_true", help="rewrite README.md's speed-goals table")
    parser.add_argument("--docs", action="store_true", help="rewrite docs/benchmarks.md's speed-goals-table block")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--reference", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="fresh", choices=["fresh", "cached"], help=argparse.SUPPRESS)
    parser.add_argument("--cached", action="store_true",
                        help="also warm() once (writing the postings and segment caches) and measure first use in a later process")
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.reference, args.mode)))
        return 0
    if args.from_round:
        path = ROUNDS / f"{args.from_round}.json"
        if not path.is_file():
            raise SystemExit(f"no round {path}")
        publish(json.loads(path.read_text("utf-8")), args.from_round, args.readme, args.docs)
        return 0
    record = measure(args, argv if argv is not None else sys.argv[1:])
    if args.save:
        ROUNDS.mkdir(exist_ok=True)
        (ROUNDS / f"{args.save}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", "utf-8")
    publish(record, args.save, args.readme, args.docs)
    return 0


def measure(args: argparse.Namespace, argv: list[str]) -> dict[str, Any]:
    """Run every size's children and return the round's record (what ``--save`` writes)."""
    from synth import ensure_store  # noqa: PLC0415

    sizes = sorted(int(s) for s in args.sizes.split(",") if s)
    tree = _archive(args.previous_commit) if args.previous_commit else None
    runs: dict[int, dict[str, Any]] = {}
    old_runs: dict[int, dict[str, Any]] = {}
    pure_runs: dict[int, dict[str, Any]] = {}
    cached_runs: dict[int, dict[str, Any]] = {}
    warm_ups: list[str] = []
    for n in sizes:
        root = ensure_store(args.data, n, 1)
        print(f"... {n:,d} items", file=sys.stderr)
        if tree is not None:
            old_runs[n] = run_child(root, n == 100_000, tree)
        if args.pure:
            pure_runs[n] = run_child(root, n == 100_000, None, pure=True)
        runs[n] = run_child(root, n == 100_000, None)
        if args.cached:
            caches = [root / "postings.cache", root / "postings.segments"]
            try:
                warmed = run_child(root, False, None, mode="warm")
                warm_ups.append(f"warm() at {n:,d}: {warmed['warm_s']:.1f} s ({warmed['warm_cpu_s']:.1f} s CPU), "
                                f"postings cache {warmed['cache_mb']:.0f} MB, segment cache {warmed.get('tables_mb', 0):.0f} MB")
                print("    " + warm_ups[-1], file=sys.stderr)
                cached_runs[n] = run_child(root, False, None, mode="cached")
            finally:
                for cache in caches:
                    cache.unlink(missing_ok=True)  # later fresh runs stay fresh
    values, shown = figures(runs)
    for n, key in ((100_000, "first_100k_cached"), (1_000_000, "first_1m_cached")):
        if n in cached_runs and 100_000 in runs:
            worst = max(cached_runs[n]["first_s"])
            values[key] = worst / statistics.median(runs[100_000]["ref_s"])
            shown[key] = f"{worst * 1000:.0f} ms"
    if args.app is not None:
        app = json.loads(args.app.read_text("utf-8"))
        values.update({k: v for k, v in app.items() if k in KEYS})
        for key in KEYS & set(app):
            shown[key] = f"app run at load {app.get('load_avg', 0):.1f}"
    command = "python bench/bench_goals.py " + " ".join(a for a in argv if not a.startswith("--readme") and a != "--docs")
    record: dict[str, Any] = {"commit": _head(), "date": time.strftime("%Y-%m-%d"), "command": command.strip(),
                              "cores": os.cpu_count(), "figures": values, "shown": shown,
                              "load_avg": statistics.mean(r["load_avg"] for r in runs.values()),
                              "per_query": {**_per_query(runs, ""), **_per_query(pure_runs, " (numpy off)")},
                              "warm_ups": warm_ups}
    if tree is not None:
        record["previous_code"] = {"commit": args.previous_commit, "figures": figures(old_runs)[0]}
    if args.pure:
        record["numpy_off"] = figures(pure_runs)[0]
    return record


if __name__ == "__main__":
    raise SystemExit(main())
