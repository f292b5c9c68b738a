"""Cold ``wikimem recall`` (a prompt hook: one fresh process a prompt) with jieba and with bigrams, CPU.

With the ``zh`` extra installed jieba is picked up automatically, so this
is the path a Chinese user's hook runs. Each row is a real process
(``python -m wikimem -s STORE recall QUERY``); its CPU (user + system) is
read from ``resource.getrusage(RUSAGE_CHILDREN)`` around it. ``WIKIMEM_JIEBA=0``
gives the bigram path on the same install. The segmentation cache lives in
a fresh ``XDG_CACHE_HOME`` per size, so the first jieba run is a
first-ever one (nothing segmented yet) and the next ones are repeats; the
last figure edits one file of a copy of the store first (the hook after a
write: that file is segmented again).

    python bench/bench_zh_recall.py                      # 10k and 100k
    python bench/bench_zh_recall.py --sizes 10000 --repeats 5

:func:`measure` returns the rows (a dict per size) for a goal table.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from synth import ensure_store  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: A prompt of the synthetic store's Chinese words (seed 1) with a latin word.
QUERY = "感存琯醌深的方案 deploy"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def recall_cpu(store: Path, env: dict[str, str], query: str = QUERY) -> tuple[float, float]:
    """CPU seconds and wall seconds of one cold ``wikimem recall`` process."""
    before, start = _children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-m", "wikimem", "-s", str(store), "recall", query], env=env, check=True,
                   stdout=subprocess.DEVNULL, cwd=ROOT)
    return _children_cpu() - before, time.perf_counter() - start


def measure(sizes: list[int], data: Path, repeats: int = 3) -> list[dict[str, Any]]:
    """Per size: bigram CPU (median of ``repeats``), jieba first-ever CPU and repeat CPU (median), their ratio."""
    rows = []
    for size in sizes:
        store = ensure_store(data, size, seed=1)
        with tempfile.TemporaryDirectory(prefix="wikimem-zh-cache-") as cache:
            base = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": cache}
            bigram_env = {**base, "WIKIMEM_JIEBA": "0"}
            zh_env = {**base, "WIKIMEM_JIEBA": "1"}
            recall_cpu(store, bigram_env)  # the page cache warm for both
            first, first_wall = recall_cpu(store, zh_env)
            bigram, zh = [], []
            for _ in range(repeats):  # interleaved: both see the same machine load
                bigram.append(recall_cpu(store, bigram_env)[0])
                zh.append(recall_cpu(store, zh_env)[0])
            edited = Path(cache) / "store"
            shutil.copytree(store, edited)
            recall_cpu(edited, zh_env)  # its segmentation cached
            _append(edited)
            after_edit = recall_cpu(edited, zh_env)[0]
        row = {
            "items": size,
            "bigram_cpu_s": statistics.median(bigram),
            "zh_first_cpu_s": first,
            "zh_first_wall_s": first_wall,
            "zh_repeat_cpu_s": statistics.median(zh),
            "zh_after_edit_cpu_s": after_edit,
        }
        row["ratio"] = row["zh_repeat_cpu_s"] / row["bigram_cpu_s"]
        rows.append(row)
    return rows


def _append(store: Path) -> None:
    """One more item in the first wiki file, as a write would leave it (the file's content changes)."""
    first = sorted((store / "wiki").glob("*.md"))[0]
    with first.open("a", encoding="utf-8") as out:
        out.write("\n## bench-edit\n\n写入之后的新内容 written after\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "data")
    args = parser.parse_args(argv)
    print(f"{'items':>8} {'bigram CPU':>11} {'zh first-ever':>14} {'zh repeat':>10} {'zh/bigram':>10} {'zh after edit':>14}")
    for row in measure(args.sizes, args.data, args.repeats):
        print(f"{row['items']:>8} {row['bigram_cpu_s']:>10.2f}s {row['zh_first_cpu_s']:>13.2f}s "
              f"{row['zh_repeat_cpu_s']:>9.2f}s {row['ratio']:>9.2f}x {row['zh_after_edit_cpu_s']:>13.2f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
