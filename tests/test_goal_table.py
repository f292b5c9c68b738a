"""The speed goal table: misses are marked, regressions warned, and the published copy is the committed round's.

The last check is the one that matters to a reader: the table in
docs/benchmarks.md must be what ``bench/bench_goals.py --from-round NAME
--docs`` makes of the newest ``bench/rounds/NAME.json``, so a hand-edited
or stale table fails here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import goal_table  # noqa: E402


def test_a_figure_above_its_goal_is_marked_a_miss_and_one_below_ok() -> None:
    table, _ = goal_table.report({"warm_100k": 0.04, "rss_1m": 600.0}, {"warm_100k": "4 ms"}, None, {})
    rows = {line.split(" | ")[0].lstrip("| "): line for line in table[2:]}
    assert rows["100k warm query p50 (a full retrieve) / reference p50"].endswith("**MISS** (2.00) |")
    assert "0.040x (4 ms)" in rows["100k warm query p50 (a full retrieve) / reference p50"]
    assert rows["1M peak RSS, MB"].endswith("| ok |")
    assert "not run" in rows["1M cold load (build + first query), s"]


def test_a_warm_figure_worse_than_the_previous_rounds_by_half_again_is_warned() -> None:
    prev = ("round-a", {"figures": {"warm_100k": 0.004, "cold_1m": 5.0}})
    _, warnings = goal_table.report({"warm_100k": 0.007, "cold_1m": 9.0}, {}, prev, {})
    assert len(warnings) == 1 and "100k warm query p50" in warnings[0] and "round-a" in warnings[0]
    _, quiet = goal_table.report({"warm_100k": 0.005}, {}, prev, {})
    assert quiet == []


def test_write_block_replaces_only_what_stands_between_its_markers(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("head\n<!-- t -->\nold\n<!-- /t -->\ntail\n", "utf-8")
    goal_table.write_block(page, "t", "new\nlines")
    assert page.read_text("utf-8") == "head\n<!-- t -->\nnew\nlines\n<!-- /t -->\ntail\n"
    with pytest.raises(SystemExit, match="no <!-- other -->"):
        goal_table.write_block(page, "other", "x")


def test_the_published_table_is_the_newest_rounds() -> None:
    newest = sorted(goal_table.ROUNDS.glob("*.json"))[-1]
    record = json.loads(newest.read_text("utf-8"))
    table, _ = goal_table.report(record["figures"], record["shown"], goal_table.previous_round(newest.stem),
                                 goal_table.same_run_columns(record))
    page = (ROOT / "docs" / "benchmarks.md").read_text("utf-8")
    block = page.split("<!-- speed-goals-table -->\n", 1)[1].split("<!-- /speed-goals-table -->", 1)[0]
    assert "\n".join(table) in block, \
        f"docs/benchmarks.md's speed-goals-table is not {newest.name}'s: run bench_goals.py --from-round {newest.stem} --docs"
