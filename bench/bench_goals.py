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
next three passes are warm. The BM25 top 10 alone (no budget, no links) is
timed against bm25s over the index's own terms.

The index runs as a user gets it: jieba when the ``zh`` extra is installed
(as ``wikimem[all]`` installs it), the default analyzer; each column says
which tokenizer it ran. When jieba is installed, a same-run "bigram path"
column runs the children with jieba off, so the ratios the goals set
between the two paths are taken in one run. The paths users run (a hook's
cold ``wikimem recall``, an MCP server's first answer, diary-wide recall)
come from ``user_paths.py``.

Rounds live in ``bench/rounds/*.json`` (one small file a round, committed);
"previous" is the newest file other than the one ``--save`` writes.
``--previous-commit REV`` also runs the children with that commit's
``wikimem`` (``git archive``), interleaved, so a regression shows as a
same-run ratio too.

    python bench/bench_goals.py                        # 100k and 1M
    python bench/bench_goals.py --sizes 100000 --previous-commit cb3d446
    python bench/bench_goals.py --sizes 100000 --only-user-paths
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
from collections.abc import Callable
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
if os.environ.get("WIKIMEM_BENCH_TREE"):  # a previous commit's library, same script and data
    sys.path.insert(0, os.environ["WIKIMEM_BENCH_TREE"])

from measure import child_json  # noqa: E402
from goal_table import (KEYS, ROUNDS, SAME_RUN, per_query_lines, previous_round, report, same_run_columns,  # noqa: E402
                        write_block)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def _timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _index(root: Path) -> Any:
    """The index as a user gets it (jieba auto), or with ``WIKIMEM_BENCH_BIGRAM=1`` on the bigram path.

    A checkout that still has an on-disk postings cache is told to read
    none, so every column measures the same first process on these files.
    """
    import inspect  # noqa: PLC0415

    from wikimem import MemoryIndex, MemoryStore  # noqa: PLC0415

    kwargs: dict[str, Any] = {}
    if os.environ.get("WIKIMEM_BENCH_BIGRAM", "") not in ("", "0"):
        kwargs["use_jieba"] = False
    if os.environ.get("WIKIMEM_BENCH_ANALYZER"):
        kwargs["analyzer"] = os.environ["WIKIMEM_BENCH_ANALYZER"]
    if "postings_cache" in inspect.signature(MemoryIndex).parameters:
        kwargs["postings_cache"] = "off"
    return MemoryIndex(MemoryStore(root), **kwargs)


def _tokenizer(index: Any) -> str:
    """Which tokenizer and analyzer the index ran, for the table's notes."""
    analyzer = getattr(index, "analyzer", None)
    name = getattr(analyzer, "effective", None) or getattr(analyzer, "name", None) or "?"
    return f"{'jieba' if getattr(index, 'use_jieba', False) else 'bigrams'}, analyzer {name}"


def child(root: Path, reference: bool) -> dict[str, Any]:
    """One size in this fresh process: ours (public API), and with ``reference`` the references too."""
    from bench_scale import fixed_queries  # noqa: PLC0415

    import wikimem  # noqa: PLC0415

    queries = fixed_queries(1)
    index = _index(root)
    store = index.store
    out: dict[str, Any] = {"wikimem": str(Path(wikimem.__file__).parent), "tokenizer": _tokenizer(index)}
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
        same = _bm25s_same_terms(index, ref)
        if same is not None:
            out["bm25s_same_s"] = [_timed(lambda q=q: same(q)) for _ in range(4) for q in queries][len(queries):]
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


def _bm25s_same_terms(index: Any, ref: Any) -> Any:
    """bm25s (numpy) over the index's own terms (its tokenizer and analyzer) for the reference's documents.

    The BM25 top 10 alone is compared with this one: with jieba or
    stemming the index's postings differ from the reference's bigrams, and
    a comparison on other tokens would time other posting lists. None when
    bm25s is not installed or the index has no tokenizer to borrow.
    """
    from reference_bm25 import B, K1, top_k  # noqa: PLC0415

    from wikimem.disk.loader import gc_paused  # noqa: PLC0415
    from wikimem.tokenize import tokenize  # noqa: PLC0415

    analyzer, use_jieba = getattr(index, "analyzer", None), getattr(index, "use_jieba", False)
    if analyzer is None:
        return None
    try:
        import bm25s  # noqa: PLC0415 - an optional reference
    except ImportError:
        return None
    retriever = bm25s.BM25(k1=K1, b=B, method="lucene")
    with gc_paused():
        docs = [list(analyzer.terms(tokenize(f"{it.name}\n{it.content}", use_jieba=use_jieba))) for it in ref.items]
        retriever.index(docs, show_progress=False)
    vocab = retriever.vocab_dict

    def search(q: str) -> Any:
        terms = [t for t in index.analyze_query(q).terms if t in vocab]
        return top_k(retriever.get_scores(terms)) if terms else []

    return search


def _top_k_alone(index: Any, queries: list[str]) -> list[float]:
    """The BM25 top 10 alone (what bm25s's figure times), warm, three rounds; [] for a library without it.

    ``retrieve()`` adds what a caller gets on top: items, matched terms,
    token estimates, link expansion, the time-word gate.
    """
    from collections import Counter  # noqa: PLC0415

    corpus = index.indexed().corpus if hasattr(index, "indexed") else getattr(index, "_corpus", None)  # an older tree: no indexed()
    analyze = getattr(index, "analyze_query", None)
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


#: The XDG cache folder the children share (jieba's segmentation cache), one per library tree.
_XDG = Path(tempfile.mkdtemp(prefix="wikimem-bench-goals-xdg-"))
_PRIMED: set[tuple[Path, str]] = set()


def _segmentation_primed(root: Path, tree: Path | None, env: dict[str, str]) -> None:
    """One earlier process's load of ``root``, so a timed cold load finds jieba's segmentation cached.

    That is what a user's process meets from the second one on (a hook's
    repeat, a server's restart); the first-ever segmentation is timed by
    the paths users run (``user_paths.cold_recall``).
    """
    key = (root, str(tree))
    if key in _PRIMED or (tree is not None and not (tree / "wikimem/index/forms/segmentation_cache.py").exists()):
        return  # primed already, or a library with no segmentation cache to fill
    _PRIMED.add(key)
    code = ("import sys, os; t = os.environ.get('WIKIMEM_BENCH_TREE'); t and sys.path.insert(0, t); "
            "from wikimem import MemoryIndex, MemoryStore; MemoryIndex(MemoryStore(sys.argv[1])).build()")
    subprocess.run([sys.executable, "-c", code, str(root)], check=True, env=env, capture_output=True)


def run_child(root: Path, reference: bool, tree: Path | None, pure: bool = False, bigram: bool = False) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("WIKIMEM_BENCH_TREE", "WIKIMEM_BENCH_BIGRAM")}
    env["XDG_CACHE_HOME"] = str(_XDG / (tree.name if tree is not None else "today"))
    if tree is not None:
        env["WIKIMEM_BENCH_TREE"] = str(tree)
    if not bigram:
        _segmentation_primed(root, tree, env)
    if pure:
        env["WIKIMEM_NUMPY"] = "0"  # the index's pure-Python path
    if bigram:
        env["WIKIMEM_BENCH_BIGRAM"] = "1"
    argv = [sys.executable, __file__, "--child", str(root)] + (["--reference"] if reference else [])
    result: dict[str, Any] = child_json(argv, env, f"child {root}")
    return result


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
            shown["warm_100k"] += f"; bm25s warm on the reference's tokens {med(r['bm25s_s']) * 1000:.2f} ms"
        if not r.get("bm25s_same_s"):
            shown["topk_vs_bm25s"] = "bm25s not installed: pip install -e '.[bench]'"
        elif r.get("topk_s"):
            values["topk_vs_bm25s"] = med(r["topk_s"]) / med(r["bm25s_same_s"])
            shown["topk_vs_bm25s"] = f"{med(r['topk_s']) * 1000:.3f} ms vs {med(r['bm25s_same_s']) * 1000:.2f} ms"
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


def bigram_figures(runs: dict[int, dict[str, Any]], bigram_runs: dict[int, dict[str, Any]],
                   values: dict[str, float], shown: dict[str, str]) -> None:
    """The rows that compare the path as installed with the bigram path, same run."""
    if 100_000 in runs and 100_000 in bigram_runs:
        ours, theirs = runs[100_000]["build_s"], bigram_runs[100_000]["build_s"]
        values["cold_100k_vs_bigram"] = ours / theirs
        shown["cold_100k_vs_bigram"] = f"{ours:.2f} s vs {theirs:.2f} s"


def user_path_figures(paths: dict[str, Any], values: dict[str, float], shown: dict[str, str]) -> None:
    """The rows of "The paths users run" from ``user_paths`` measurements (key -> its result)."""
    for n, tag in ((10_000, "10k"), (100_000, "100k")):
        zh, bigram = paths.get(f"recall_{n}"), paths.get(f"recall_{n}_bigram")
        if zh is None or bigram is None:
            continue
        values[f"recall_cold_{tag}_ratio"] = zh["cpu_s"] / bigram["cpu_s"]
        shown[f"recall_cold_{tag}_ratio"] = (f"{zh['tokenizer']} {zh['cpu_s']:.2f} s vs {bigram['tokenizer']} "
                                             f"{bigram['cpu_s']:.2f} s CPU; a hook's repeat")
        if "first_cpu_s" in zh:
            shown[f"recall_cold_{tag}_ratio"] += f", first-ever {zh['first_cpu_s']:.2f} s"
        values[f"recall_cold_{tag}_cpu"] = max(zh["cpu_s"], bigram["cpu_s"])
        shown[f"recall_cold_{tag}_cpu"] = f"wall {zh['wall_s']:.2f} s / {bigram['wall_s']:.2f} s" + _runs(zh)
    if "mcp_100000" in paths:
        m = paths["mcp_100000"]
        values["mcp_first_recall_100k"] = m["first_s"]
        shown["mcp_first_recall_100k"] = f"{m['tokenizer']}; load average {m['load_avg']:.1f}" + _runs(m)
    if "diary_100000" in paths:
        d = paths["diary_100000"]
        values["diary_100k"] = d["p50_ms"] / d["ref_p50_ms"]
        shown["diary_100k"] = (f"{d['p50_ms']:.2f} ms vs {d['ref_p50_ms']:.0f} ms, {d['entries']:,d} entries, "
                               f"{d['tokenizer']}")


def _runs(result: dict[str, Any]) -> str:
    """A median-of-spawns row's every run (rounds before they were medians have none)."""
    runs = result.get("runs")
    return f"; median of {' / '.join(f'{r:.2f}' for r in runs)} s" if runs else ""


def measure_user_paths(sizes: list[int], data: Path, tree: Path | None, label: str) -> dict[str, Any]:
    """Run ``user_paths`` at the sizes its rows name (10k, 100k) that are in ``sizes``.

    The cold recall with jieba is timed on a segmentation cache of its
    own: the first-ever run (shown), then the repeat a hook meets from its
    second prompt on (the row's figure). Each one-shot row is the median of
    :data:`SPAWNS` spawns (a single spawn's figure is at the mercy of one
    scheduling hiccup), on bytecode compiled as an install compiles it.
    """
    from bench_scale import fixed_queries  # noqa: PLC0415
    from synth import ensure_store  # noqa: PLC0415
    from user_paths import HOOK_QUERY_INDEX, cold_recall, diary_recall, jieba_installed, mcp_first_recall  # noqa: PLC0415

    from measure import byte_compiled  # noqa: PLC0415

    query = fixed_queries(1)[HOOK_QUERY_INDEX]
    out: dict[str, Any] = {}
    byte_compiled((tree or ROOT) / "wikimem")  # as installed: a hook's process reads bytecode, compiles nothing
    for n in (s for s in sizes if s in (10_000, 100_000)):
        root = ensure_store(data, n, 1)
        print(f"... the paths users run at {n:,d}{label}", file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="wikimem-bench-xdg-") as cache:  # no segmentation cached yet
            cold_recall(root, query, bigram=True, tree=tree, cache=Path(cache))  # the page cache warm
            if jieba_installed():
                first = cold_recall(root, query, bigram=False, tree=tree, cache=Path(cache))
                out[f"recall_{n}"] = {**_median_of(SPAWNS, "cpu_s", lambda: cold_recall(
                    root, query, bigram=False, tree=tree, cache=Path(cache))), "first_cpu_s": first["cpu_s"]}
            out[f"recall_{n}_bigram"] = _median_of(SPAWNS, "cpu_s", lambda: cold_recall(
                root, query, bigram=True, tree=tree, cache=Path(cache)))
            if n == 100_000:  # the segmentation the hooks above cached, as a user's server finds it
                out[f"mcp_{n}"] = _median_of(SPAWNS, "first_s", lambda: mcp_first_recall(root, query, tree, Path(cache)))
        if n == 100_000:
            out[f"diary_{n}"] = diary_recall(n, tree)
    return out


#: Spawns per one-shot row (a hook's recall, the MCP server's first answer): the median is the figure.
SPAWNS = 3


def _median_of(times: int, key: str, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The run whose ``key`` is the median of ``times`` runs, with every run's ``key`` beside it (``runs``)."""
    runs = sorted((run() for _ in range(times)), key=lambda r: float(r[key]))
    return {**runs[len(runs) // 2], "runs": [r[key] for r in runs]}


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
    tokenizers = {k: v for k, v in record.get("tokenizers", {}).items() if v != "-"}
    if tokenizers:
        print("\ntokenizers: " + "; ".join(f"{k}: {v}" for k, v in tokenizers.items()))
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
    parser.add_argument("--no-bigram", action="store_true",
                        help="skip the same-run bigram-path column (run by default when jieba is installed)")
    parser.add_argument("--only-user-paths", action="store_true",
                        help="measure only the rows of the paths users run (cold recall, MCP, diary)")
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.reference)))
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
    from user_paths import jieba_installed  # noqa: PLC0415

    sizes = sorted(int(s) for s in args.sizes.split(",") if s)
    tree = _archive(args.previous_commit) if args.previous_commit else None
    bigram = jieba_installed() and not args.no_bigram
    runs: dict[int, dict[str, Any]] = {}
    old_runs: dict[int, dict[str, Any]] = {}
    pure_runs: dict[int, dict[str, Any]] = {}
    bigram_runs: dict[int, dict[str, Any]] = {}
    for n in sizes if not args.only_user_paths else []:
        root = ensure_store(args.data, n, 1)
        print(f"... {n:,d} items", file=sys.stderr)
        if tree is not None:
            old_runs[n] = run_child(root, n == 100_000, tree)
        if args.pure:
            pure_runs[n] = run_child(root, n == 100_000, None, pure=True)
        if bigram:
            bigram_runs[n] = run_child(root, n == 100_000, None, bigram=True)
        runs[n] = run_child(root, n == 100_000, None)
    old_paths = measure_user_paths(sizes, args.data, tree, " (previous code)") if tree is not None else {}
    paths = measure_user_paths(sizes, args.data, None, "")
    values, shown = figures(runs)
    bigram_figures(runs, bigram_runs, values, shown)
    user_path_figures(paths, values, shown)
    if args.app is not None:
        app = json.loads(args.app.read_text("utf-8"))
        values.update({k: v for k, v in app.items() if k in KEYS})
        for key in KEYS & set(app):
            shown[key] = f"app run at load {app.get('load_avg', 0):.1f}"
    command = "python bench/bench_goals.py " + " ".join(a for a in argv if not a.startswith("--readme") and a != "--docs")
    loads = [r["load_avg"] for r in runs.values()] or [os.getloadavg()[0]]
    tokenizers = {"today": _first(runs, "tokenizer")}
    record: dict[str, Any] = {"commit": _head(), "date": time.strftime("%Y-%m-%d"), "command": command.strip(),
                              "cores": os.cpu_count(), "figures": values, "shown": shown,
                              "load_avg": statistics.mean(loads), "user_paths": paths, "tokenizers": tokenizers,
                              "per_query": {**_per_query(runs, ""), **_per_query(pure_runs, " (numpy off)"),
                                            **_per_query(bigram_runs, " (bigram path)")}}
    if tree is not None:
        old_values = figures(old_runs)[0]
        user_path_figures(old_paths, old_values, {})
        record["previous_code"] = {"commit": args.previous_commit, "figures": old_values, "user_paths": old_paths}
        tokenizers[SAME_RUN["previous_code"]] = _first(old_runs, "tokenizer")
    if args.pure:
        record["numpy_off"] = figures(pure_runs)[0]
        tokenizers[SAME_RUN["numpy_off"]] = _first(pure_runs, "tokenizer")
    if bigram_runs:
        record["bigram_path"] = figures(bigram_runs)[0]
        tokenizers[SAME_RUN["bigram_path"]] = _first(bigram_runs, "tokenizer")
    return record


def _first(runs: dict[int, dict[str, Any]], key: str) -> str:
    """``key`` of the first size run (every size of a column runs the same index), or "-"."""
    return str(next(iter(runs.values())).get(key, "-")) if runs else "-"

if __name__ == "__main__":
    raise SystemExit(main())
