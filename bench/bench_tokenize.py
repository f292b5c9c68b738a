"""Tokenizer throughput: character bigrams vs jieba, and what jieba costs to load.

Tokenizing is most of a cold index build, so this prints characters per
second for each mode on the same items, tokenized one item per call as the
index does. Absolute figures drift on shared machines; compare the modes
within one run. jieba's import and dictionary load are timed in a fresh
interpreter, since that is the price a first query pays.

Two corpora, both ~60% Chinese / 40% English items:
* ``real``: Chinese passages from ``data/cmrc2018_trial.json`` (real words,
  which is what jieba's dictionary is for), when the file is found;
* ``synth``: the Zipf-vocabulary sentences of ``bench/synth.py`` (random
  ideographs, the store the retrieval benchmarks use).

    python bench/bench_tokenize.py [--items 20000] [--data PATH]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from synth import Generator  # noqa: E402

from wikimem.tokenize import est_tokens, jieba_available, tokenize  # noqa: E402

DEFAULT_DATA = Path("/work/shared/data/cmrc2018_trial.json")

_LOAD_JIEBA = """
import time
t0 = time.perf_counter()
import jieba
t1 = time.perf_counter()
jieba.setLogLevel(60)
jieba.lcut("我喜欢海边")
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def synth_items(n: int, seed: int = 1) -> list[str]:
    gen = Generator(seed)
    return [gen.text(gen.rng.random() < 0.6) for _ in range(n)]


def real_items(n: int, data: Path, seed: int = 1) -> list[str]:
    """Real Chinese sentences (cmrc2018 passages) mixed with synthetic English."""
    doc = json.loads(data.read_text(encoding="utf-8"))
    contexts = [p["context"] for art in doc["data"] for p in art["paragraphs"]]
    sentences = [s for c in contexts for s in re.split(r"(?<=[。！？])", c) if len(s) > 4]
    rng, gen = random.Random(seed), Generator(seed)
    items = []
    for _ in range(n):
        if rng.random() < 0.6:
            items.append("".join(rng.choices(sentences, k=rng.randint(1, 3))))
        else:
            items.append(gen.text(False))
    return items


def throughput(fn: Callable[[str], object], items: list[str], repeat: int) -> float:
    """Best-of-``repeat`` characters per second for ``fn`` applied to each item.

    Every mode is timed with the same ``repeat`` (best of the same number of
    runs), so the ratio between modes compares like with like.
    """
    chars = sum(map(len, items))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, time.perf_counter() - t0)
    return chars / best


def jieba_load_times() -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, "-c", _LOAD_JIEBA], capture_output=True, text=True, check=True
    )
    imp, load = out.stdout.split()
    return float(imp), float(load)


def bench(label: str, items: list[str], repeat: int) -> None:
    chars = sum(map(len, items))
    print(f"[{label}] {len(items)} items, {chars / 1e6:.2f} M chars, best of {repeat} runs per mode")
    bigram = throughput(lambda t: tokenize(t, use_jieba=False), items, repeat)
    print(f"  bigrams     {bigram / 1e6:7.2f} M chars/s")
    print(f"  est_tokens  {throughput(est_tokens, items, repeat) / 1e6:7.2f} M chars/s")
    if jieba_available():
        tokenize("预热", use_jieba=True)  # import + dictionary outside the timing
        jieba_rate = throughput(lambda t: tokenize(t, use_jieba=True), items, repeat)
        print(f"  jieba       {jieba_rate / 1e6:7.2f} M chars/s  ({bigram / jieba_rate:.1f}x slower)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs, for every mode")
    args = parser.parse_args(argv)
    if jieba_available():
        imp, load = jieba_load_times()
        print(f"jieba: import {imp:.2f} s, dictionary load on first cut {load:.2f} s")
    else:
        print("jieba: not installed (bigrams only)")
    if args.data.exists():
        bench("real", real_items(args.items, args.data), args.repeat)
    bench("synth", synth_items(args.items), args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
