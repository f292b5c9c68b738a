"""The speed goal table: its rows, how a figure prints, and where the table is written.

Why apart from ``bench_goals.py``: the table is made from a round's saved
figures (``bench/rounds/NAME.json``), so the README's and
docs/benchmarks.md's copies can be regenerated from the committed record
(``bench_goals.py --from-round NAME --readme --docs``) instead of being
re-typed by hand from a log, and a reader can check every cell against the
JSON it came from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = ROOT / "bench" / "rounds"

#: (key, label, goal, unit, warm): a figure is met when <= goal; warm rows warn on a >1.5x regression.
GOALS: list[tuple[str, str, float, str, bool]] = [
    ("warm_100k", "100k warm query p50 (a full retrieve) / reference p50", 0.02, "x", True),
    ("topk_vs_bm25s", "100k BM25 top 10 alone / bm25s warm p50 (same terms)", 1.0, "x", True),
    ("first_100k", "100k first use of a query's terms, worst of ten / reference p50", 0.25, "x", False),
    ("add_100k", "100k query right after one add() / reference p50", 0.05, "x", True),
    ("cold_100k", "100k cold load / reference build", 0.33, "x", False),
    ("cold_100k_vs_bigram", "100k cold load, as installed / bigram path", 2.0, "x", False),
    ("cold_1m", "1M cold load (build + first query), s", 6.0, "s", False),
    ("warm_1m_over_100k", "1M warm p50 / 100k warm p50", 10.0, "x", True),
    ("first_1m", "1M first use, worst of ten / reference 100k p50", 1.5, "x", False),
    ("rss_1m", "1M peak RSS, MB", 1000.0, "MB", False),
    ("app_first_paint_1m", "app at 1M: launch to first paint, s", 1.0, "s", False),
    ("app_keystroke_1m", "app at 1M: keystroke -> results after the debounce, worst, ms", 100.0, "ms", True),
    ("app_expand_1m", "app at 1M: expand a 5,000-item file, ms", 200.0, "ms", False),
    # The paths users run: wikimem[all] installed (jieba picked up), a hook's fresh process, MCP, the diary.
    ("recall_cold_100k_ratio", "cold `wikimem recall` (a hook), 100k, CPU, as installed / bigram path", 2.0, "x", False),
    ("recall_cold_100k_cpu", "cold `wikimem recall`, 100k, CPU s, the slower path", 1.0, "s", False),
    ("recall_cold_10k_ratio", "cold `wikimem recall`, 10k, CPU, as installed / bigram path", 2.0, "x", False),
    ("mcp_first_recall_100k", "MCP: spawn -> first `recall` answered, 100k, s", 1.0, "s", False),
    ("diary_100k", "diary-wide recall at 100k entries, warm p50 / reference p50", 0.01, "x", True),
]
KEYS = {g[0] for g in GOALS}
WORSE = 1.5
SAME_RUN = {"previous_code": "previous code, same run", "numpy_off": "numpy off, same run",
            "bigram_path": "bigram path, same run"}


def previous_round(name: str | None) -> tuple[str, dict[str, Any]] | None:
    """The newest round before ``name`` (round names start with their date, so they sort by time)."""
    files = sorted(p for p in ROUNDS.glob("*.json") if name is None or p.stem < name)
    if not files:
        return None
    return files[-1].stem, json.loads(files[-1].read_text("utf-8"))


def same_run_columns(record: dict[str, Any]) -> dict[str, dict[str, float]]:
    """A saved round's same-run columns (the previous code, numpy off, the bigram path), label -> figures."""
    columns: dict[str, dict[str, float]] = {}
    if "previous_code" in record:
        columns[SAME_RUN["previous_code"]] = record["previous_code"]["figures"]
    for key in ("numpy_off", "bigram_path"):
        if key in record:
            columns[SAME_RUN[key]] = record[key]
    return columns


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
        cell_now = f"{'not run' if now is None else fmt(now, unit)} ({shown.get(key, '')})".replace(" ()", "")
        verdict = "" if now is None else ("ok" if now <= target else f"**MISS** ({now / target:.2f})")
        row = f"| {label} | {fmt(old, unit) if old is not None else '-'} | {cell_now} | "
        for column in same_run.values():
            row += f"{fmt(column[key], unit) if key in column else '-'} | "
        table.append(row + f"<= {fmt(target, unit)} | {verdict} |")
        if warm and now is not None and old is not None and now > WORSE * old:
            warnings.append(f"WARNING: {label} got worse: {fmt(now, unit)} vs {fmt(old, unit)} "
                            f"in {prev[0] if prev else '?'} ({now / old:.1f}x)")
    return table, warnings


def per_query_lines(per_query: dict[str, dict[str, list[float]]]) -> list[str]:
    """Each query's first use and warm median, ms, per size and variant (the record's ``per_query``)."""
    lines = []
    for label, figures in per_query.items():
        lines.append(f"{label}: first use per query (ms) " + " ".join(f"{t:.0f}" for t in figures["first_ms"]))
        lines.append(f"{label}: warm per query, median of 3 (ms) " + " ".join(f"{t:.2f}" for t in figures["warm_ms"]))
    return lines


def write_block(path: Path, marker: str, body: str) -> None:
    """Replace what stands between ``<!-- marker -->`` and ``<!-- /marker -->`` in ``path`` with ``body``."""
    text = path.read_text("utf-8")
    start, end = f"<!-- {marker} -->\n", f"<!-- /{marker} -->"
    if start not in text or end not in text:
        raise SystemExit(f"{path.name} has no <!-- {marker} --> ... <!-- /{marker} --> block")
    head, rest = text.split(start, 1)
    tail = rest.split(end, 1)[1]
    path.write_text(head + start + body.rstrip("\n") + "\n" + end + tail, "utf-8")


def fmt(value: float, unit: str) -> str:
    if unit == "x":
        return f"{value:.3f}x" if value < 0.1 else f"{value:.2f}x"
    return f"{value:.0f} {unit}" if value >= 100 else f"{value:.2f} {unit}"
