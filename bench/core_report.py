"""The retrieval-core benchmark's printout: the figure table, the ratios, the BENCH.md goals.

Kept apart from the measuring (``bench_core.py``) so the wording of a
figure and the goals it is held to are read in one place; a missed goal is
printed as ``MISS``, never hidden.
"""

from __future__ import annotations

import math

from goals import goal

__all__ = ["print_goals", "report"]


def _fmt(seconds: float) -> str:
    return f"{seconds * 1000:9.2f} ms" if seconds < 10 else f"{seconds:9.2f} s "


def report(results: dict[int, dict[str, float]]) -> None:
    sizes = sorted(results)
    rows = [
        ("cold load: ours", "cold_ours"),
        ("cold load: straightforward build", "cold_ref"),
        ("cold load: ours, jieba (1st: +import)", "cold_jieba_first"),
        ("cold load: ours, jieba (warm)", "cold_jieba"),
        ("query p50 top10: ours, cold (1st use)", "first_pass_ours"),
        ("query p50 top10: ours, repeated", "query_ours"),
        ("warm(): duration", "warm_seconds"),
        ("query p50 top10: first pass after warm()", "first_pass_after_warm"),
        ("query p50: ours full retrieve()", "retrieve_ours"),
        ("query p50 top10: score-everything", "query_ref"),
        ("query p50 top10: rank_bm25", "query_rank_bm25"),
        ("query p50 top10: bm25s (numpy)", "query_bm25s"),
        ("add() + query: ours", "add_query_ours"),
        ("  store.add() alone (write + fsync)", "store_add_alone"),
        ("  => index update + first query", "index_part_of_add_query"),
        ("  a query once the index is updated", "query_after_add_ours"),
        ("external edit + refresh + query", "edit_refresh_query_ours"),
    ]
    head = f"{'figure':40s}" + "".join(f"{n:>14,d}" for n in sizes)
    print(head)
    print("-" * len(head))
    for label, key in rows:
        if any(key in results[n] for n in sizes):
            print(f"{label:40s}" + "".join(f"{_fmt(results[n][key]):>14s}" if key in results[n] else f"{'-':>14s}" for n in sizes))
    if any("mem_ours" in results[n] for n in sizes):
        for label, key in (
            ("peak MB: ours (build)", "mem_ours"),
            ("peak MB: ours (build + warm())", "mem_warm_peak"),
            ("held MB: ours after warm()", "mem_warm_held"),
            ("peak MB: dict-of-Counters", "mem_ref"),
        ):
            print(f"{label:40s}" + "".join(f"{results[n].get(key, math.nan):14.1f}" for n in sizes))
    print()
    print("ratios (ours / reference; < 1 is better):")
    for n in sizes:
        r = results[n]
        parts = [f"cold {r['cold_ours'] / r['cold_ref']:.2f}"]
        for other in ("ref", "rank_bm25", "bm25s"):
            if f"query_{other}" in r:
                name = "score-everything" if other == "ref" else other
                parts.append(
                    f"query vs {name} {r['first_pass_ours'] / r[f'query_{other}']:.3f} cold"
                    f" / {r['query_ours'] / r[f'query_{other}']:.3f} repeated"
                )
        if "mem_ours" in r:
            parts.append(f"memory {r['mem_ours'] / r['mem_ref']:.2f}")
        parts.append(f"top-10 identical to reference {int(r['agree_top10_of_10'])}/10")
        print(f"  {n:>7,d}: " + ", ".join(parts))
    for lo, hi in zip(sizes, sizes[1:]):
        for key, label in (("first_pass_ours", "ours, cold"), ("query_ours", "ours, repeated"), ("query_ref", "score-everything")):
            growth = results[hi][key] / results[lo][key]
            print(f"  query p50 growth {lo:,d} -> {hi:,d} ({hi / lo:g}x items): {label} x{growth:.1f}")
    print_goals(results)


def print_goals(results: dict[int, dict[str, float]]) -> None:
    """Every BENCH.md retrieval-core goal at the largest size run: ratio, then ok or MISS."""
    sizes = sorted(results)
    n = sizes[-1]
    r = results[n]
    print(f"\nBENCH.md goals at {n:,d} items (ratio = figure / goal; <= 1 meets it):")
    for kind, key in (("cold", "first_pass_ours"), ("repeated", "query_ours")):
        if "query_bm25s" in r:
            goal(f"query p50 ({kind}) <= bm25s", r[key] / r["query_bm25s"])
        if "query_rank_bm25" in r:
            goal(f"query p50 ({kind}) <= 1/10 of rank_bm25", r[key] / (r["query_rank_bm25"] / 10))
    if len(sizes) > 1:
        lo = sizes[-2]
        for kind, key in (("cold", "first_pass_ours"), ("repeated", "query_ours")):
            growth = r[key] / results[lo][key]
            goal(f"query p50 ({kind}) growth {lo:,d} -> {n:,d} sub-linear (x{growth:.1f} for x{n / lo:g} items)", growth / (n / lo))
    goal("cold load <= 1/3 of a straightforward build", (r["cold_ours"] / r["cold_ref"]) * 3)
    goal(f"one add() then a query <= 20 ms ({r['add_query_ours'] * 1000:.1f} ms)", r["add_query_ours"] / 0.020)
    goal(f"  of which index update + query <= 20 ms ({r['index_part_of_add_query'] * 1000:.1f} ms)", r["index_part_of_add_query"] / 0.020)
    print(f"  external edit + refresh + query: {r['edit_refresh_query_ours'] * 1000:.1f} ms, "
          f"{r['edit_refresh_query_ours'] / r['cold_ref']:.4f} of a rebuild; "
          f"files re-read per edit (max) {r['files_reread_per_edit']:g} "
          f"({'ok' if r['files_reread_per_edit'] == 1 else 'MISS'}: only the changed one)")
    if "mem_ours" in r:
        goal("peak memory <= 1/2 of a dict-of-Counters index", (r["mem_ours"] / r["mem_ref"]) * 2)
    else:
        print("  peak memory: not measured (--no-memory)")
