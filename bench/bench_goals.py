"""The speed goal table (BENCH.md "Warm, first use, and 1M"), with the previous round beside today.

Why this exists: warm queries once got 5-8x slower between two rounds and
no benchmark said so, because each printed only today's figures. This one
prints every goal row with the previous round's figure next to today's,
marks each MISS, and warns when a warm figure got worse by more than 1.5x.

Each size runs in a fresh interpreter (``--child``), so its peak RSS is its
own and its first use of a term is a real first use. In the 100k child the
reference -- a straightforward build and a pure-Python BM25 that scores
every document (``bench_core.Reference``) -- is measured in the same
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
ROUNDS = ROOT / "bench" / "rounds"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
if os.environ.get("WIKIMEM_BENCH_TREE"):  # a previous commit's library, same script and data
    sys.path.insert(0, os.environ["WIKIMEM_BENCH_TREE"])

#: (key, label, goal, unit, warm): a figure is met when <= goal; warm rows warn on a >1.5x regression.
GOALS: list[tuple[str, str, float, str, bool]] = [
    ("warm_100k", "100k warm query p50 / reference p50", 0.01, "x", True),
    ("warm_vs_bm25s", "100k warm query p50 / bm25s warm p50", 1.0, "x", True),
    ("first_100k", "100k first use of a query's terms, worst of ten / reference p50", 0.25, "x", False),
    ("add_100k", "100k query right after one add() / reference p50", 0.01, "x", True),
    ("cold_100k", "100k cold load / reference build", 0.33, "x", False),
    ("cold_1m", "1M cold load (build + first query), s", 6.0, "s", False),
    ("warm_1m_over_100k", "1M warm p50 / 100k warm p50", 10.0, "x", True),
    ("first_1m", "1M first use, worst of ten / reference 100k p50", 1.5, "x", False),
    ("rss_1m", "1M peak RSS, MB", 1000.0, "MB", False),
    ("first_100k_cached", "  the same 100k first use, with the caches an earlier process's warm() wrote", 0.25, "x", False),
    ("first_1m_cached", "  the same 1M first use, with the caches an earlier process's warm() wrote", 1.5, "x", False),
    ("app_keystroke_1m", "app at 1M: keystroke -> results after the debounce, worst, ms", 100.0, "ms", True),
    ("app_expand_1m", "app at 1M: expand a 5,000-item file, ms", 200.0, "ms", False),
]
WORSE = 1.5


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
        from bench_core import Reference  # noqa: PLC0415

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
    """bm25s (numpy) over the reference's tokens, top 10 as bench_core ranks it; None when not installed."""
    try:
        import bm25s  # noqa: PLC0415
    except ImportError:
        print("(bm25s not installed: pip install -e '.[bench]')", file=sys.stderr)
        return None
    from bench_core import B, K1, top_k, toks  # noqa: PLC0415

    from wikimem.disk.loader import gc_paused  # noqa: PLC0415

    retriever = bm25s.BM25(k1=K1, b=B, method="lucene")
    with gc_paused():
        retriever.index([list(c.elements()) for c in ref.tfs], show_progress=False)
    vocab = retriever.vocab_dict

    def search(q: str) -> Any:
        terms = [t for t in toks(q) if t in vocab]
        return top_k(retriever.get_scores(terms)) if terms else []

    return search


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


def previous_round(save: str | None) -> tuple[str, dict[str, Any]] | None:
    files = sorted(p for p in ROUNDS.glob("*.json") if p.stem != save)
    if not files:
        return None
    return files[-1].stem, json.loads(files[-1].read_text("utf-8"))


def report(values: dict[str, float], shown: dict[str, str], prev: tuple[str, dict[str, Any]] | None,
           same_run: dict[str, dict[str, float]]) -> tuple[list[str], list[str]]:
    """The table (``same_run``: more columns, label -> figures) and the warnings, as lines."""
    before = prev[1]["figures"] if prev else {}
    table = [f"| figure | previous round ({prev[0] if prev else 'none'}) | today | "
             + "".join(f"{label} | " for label in same_run) + "goal | |",
             "|---|---|---|" + "---|" * len(same_run) + "---|---|"]
    warnings = []
    for key, label, target, unit, warm in GOALS:
        now = values.get(key)
        old = before.get(key)
        cell_now = "not run" if now is None else f"{_fmt(now, unit)} ({shown.get(key, '')})".replace(" ()", "")
        verdict = "" if now is None else ("ok" if now <= target else f"**MISS** ({now / target:.2f})")
        row = f"| {label} | {_fmt(old, unit) if old is not None else '-'} | {cell_now} | "
        for column in same_run.values():
            row += f"{_fmt(column[key], unit) if key in column else '-'} | "
        table.append(row + f"<= {_fmt(target, unit)} | {verdict} |")
        if warm and now is not None and old is not None and now > WORSE * old:
            warnings.append(f"WARNING: {label} got worse: {_fmt(now, unit)} vs {_fmt(old, unit)} "
                            f"in {prev[0] if prev else '?'} ({now / old:.1f}x)")
    return table, warnings


def write_readme(table: list[str], note: str) -> None:
    """Replace README.md's scale table (between its ``speed-goals`` markers) with this run's."""
    readme = ROOT / "README.md"
    text = readme.read_text("utf-8")
    start, end = "<!-- speed-goals -->\n", "<!-- /speed-goals -->"
    if start not in text or end not in text:
        raise SystemExit("README.md has no <!-- speed-goals --> ... <!-- /speed-goals --> block")
    head, rest = text.split(start, 1)
    tail = rest.split(end, 1)[1]
    readme.write_text(head + start + note + "\n\n" + "\n".join(table) + "\n" + end + tail, "utf-8")


def _fmt(value: float, unit: str) -> str:
    if unit == "x":
        return f"{value:.3f}x" if value < 0.1 else f"{value:.2f}x"
    return f"{value:.0f} {unit}" if value >= 100 else f"{value:.2f} {unit}"


def _head() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()


def _archive(rev: str) -> Path:
    out = Path(tempfile.mkdtemp(prefix="wikimem-prev-"))
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "wikimem"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(out)], input=tar.stdout, check=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--data", type=Path, default=Path("/tmp/wikimem-bench"))
    parser.add_argument("--previous-commit", help="also run that commit's wikimem, interleaved")
    parser.add_argument("--pure", action="store_true", help="also run with the index's numpy path off (WIKIMEM_NUMPY=0)")
    parser.add_argument("--app", type=Path, help="bench_app.py --json output: the app rows")
    parser.add_argument("--save", help="write today's figures to bench/rounds/NAME.json")
    parser.add_argument("--readme", action="store_true", help="rewrite README.md's speed-goals table with today's")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--reference", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="fresh", choices=["fresh", "cached"], help=argparse.SUPPRESS)
    parser.add_argument("--cached", action="store_true",
                        help="also warm() once (writing the postings and segment caches) and measure first use in a later process")
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.reference, args.mode)))
        return 0
    from bench_core import ensure_store  # noqa: PLC0415

    sizes = sorted(int(s) for s in args.sizes.split(",") if s)
    tree = _archive(args.previous_commit) if args.previous_commit else None
    runs: dict[int, dict[str, Any]] = {}
    old_runs: dict[int, dict[str, Any]] = {}
    pure_runs: dict[int, dict[str, Any]] = {}
    cached_runs: dict[int, dict[str, Any]] = {}
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
                print(f"    warm() at {n:,d}: {warmed['warm_s']:.1f} s ({warmed['warm_cpu_s']:.1f} s CPU), "
                      f"postings cache {warmed['cache_mb']:.0f} MB, segment cache {warmed.get('tables_mb', 0):.0f} MB",
                      file=sys.stderr)
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
        values.update({k: v for k, v in app.items() if k in {g[0] for g in GOALS}})
    same_run = {}
    if tree is not None:
        same_run["previous code, same run"] = figures(old_runs)[0]
    if args.pure:
        same_run["numpy off, same run"] = figures(pure_runs)[0]
    prev = previous_round(args.save)
    print(f"\nspeed goals (ratios: ours / the reference in the same process; load average "
          f"{statistics.mean(r['load_avg'] for r in runs.values()):.1f} on {os.cpu_count()} cores)\n")
    table, warnings = report(values, shown, prev, same_run)
    print("\n".join(table + warnings))
    if args.readme:
        load = statistics.mean(r["load_avg"] for r in runs.values())
        write_readme(table, f"`python bench/bench_goals.py {' '.join(argv if argv is not None else sys.argv[1:])}` "
                            f"on {time.strftime('%Y-%m-%d')} (commit {_head()}, load average {load:.1f} on "
                            f"{os.cpu_count()} cores; ratios are against a reference run in the same process).")
    for label, per_size in (("", runs), (" (numpy off)", pure_runs)):
        for n, r in per_size.items():
            print(f"\n{n:,d}{label}: first use per query (ms) " + " ".join(f"{t * 1000:.0f}" for t in r["first_s"]))
            per_query = [statistics.median(r["warm_s"][i::10]) * 1000 for i in range(10)]
            print(f"{n:,d}{label}: warm per query, median of 3 (ms) " + " ".join(f"{t:.2f}" for t in per_query))
    if args.save:
        ROUNDS.mkdir(exist_ok=True)
        record = {"commit": _head(), "date": time.strftime("%Y-%m-%d"), "figures": values, "shown": shown,
                  "load_avg": statistics.mean(r["load_avg"] for r in runs.values())}
        if tree is not None:
            record["previous_code"] = {"commit": args.previous_commit, "figures": same_run["previous code, same run"]}
        if args.pure:
            record["numpy_off"] = same_run["numpy off, same run"]
        (ROUNDS / f"{args.save}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
