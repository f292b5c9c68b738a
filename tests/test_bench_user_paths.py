"""bench/user_paths.py: the bigram path it measures is the one a user without jieba gets, and its figures are CPU.

The goal table's ratios between the path as installed and the bigram path
are only worth something if the child really tokenizes differently; the
query tokens ``wikimem explain`` prints tell which tokenizer ran.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SAFETY_NET
from wikimem.tokenize import jieba_available

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import user_paths  # noqa: E402

needs_jieba = pytest.mark.skipif(not jieba_available(), reason="jieba not installed")


def _query_tokens(store: Path, *, bigram: bool) -> str:
    argv = user_paths.wikimem_argv(["-s", str(store), "explain", "想去海边玩", "--limit", "1"], bigram=bigram)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=SAFETY_NET,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return next(line for line in done.stdout.splitlines() if line.startswith("query tokens:"))


@needs_jieba
def test_the_bigram_child_tokenizes_with_bigrams_and_the_default_one_with_jieba(tmp_path: Path) -> None:
    store = tmp_path / "memory"
    shutil.copytree(ROOT / "wikimem" / "demo", store)
    assert _query_tokens(store, bigram=True) == "query tokens: 想去, 去海, 海边, 边玩"
    assert "去海" not in _query_tokens(store, bigram=False)


def test_a_cold_recall_reports_the_childs_cpu_and_its_tokenizer(tmp_path: Path) -> None:
    store = tmp_path / "memory"
    shutil.copytree(ROOT / "wikimem" / "demo", store)
    result = user_paths.cold_recall(store, "海边", bigram=True)
    assert result["tokenizer"] == "bigrams"
    assert result["cpu_s"] > 0 and result["wall_s"] > 0 and result["chars"] > 0


def test_the_user_path_rows_are_the_installed_path_over_the_bigram_path_and_the_slower_cpu() -> None:
    import bench_goals  # noqa: PLC0415

    paths = {"recall_100000": {"cpu_s": 3.0, "wall_s": 4.0, "tokenizer": "jieba"},
             "recall_100000_bigram": {"cpu_s": 0.5, "wall_s": 0.6, "tokenizer": "bigrams"},
             "mcp_100000": {"first_s": 0.8, "load_avg": 0.5, "tokenizer": "jieba"},
             "diary_100000": {"p50_ms": 1.0, "ref_p50_ms": 200.0, "entries": 100_000, "tokenizer": "jieba"}}
    values: dict[str, float] = {}
    shown: dict[str, str] = {}
    bench_goals.user_path_figures(paths, values, shown)
    assert values == {"recall_cold_100k_ratio": 6.0, "recall_cold_100k_cpu": 3.0,
                      "mcp_first_recall_100k": 0.8, "diary_100k": 0.005}
    assert "load average 0.5" in shown["mcp_first_recall_100k"]
    assert "jieba 3.00 s vs bigrams 0.50 s CPU" in shown["recall_cold_100k_ratio"]
