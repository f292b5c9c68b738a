"""Time-word parsing cost per query: the cheap pre-check and the full parse.

Every query a surface sends passes :func:`wikimem.timeparse.may_name_a_time`
first; only a text it lets through pays for every rule's pattern in
:func:`~wikimem.timeparse.match_time_range`. So this prints, per query
(microseconds, uncached -- the pre-check's memo is bypassed):

* the pre-check over plain questions (no time word: the common case),
* the pre-check over questions that name a time,
* the full parse over both kinds,

and, as a reference in the same run, one ``str.lower()`` plus one
``re.search`` of a single word over the same texts (what the cheapest
conceivable check costs on this machine). Compare the ratios within one
run; absolute figures drift on a shared machine.

    python bench/bench_timeparse.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from wikimem.timeparse import match_time_range, may_name_a_time  # noqa: E402

PLAIN = [
    "What does Melanie paint?",
    "When did Caroline go to the support group?",
    "what do I like about the sea and sunrise?",
    "how do I configure the robot arm controller",
    "Which restaurant did we pick for the team dinner",
    "我喜欢什么样的咖啡",
    "手冲咖啡 加糖",
    "jasmine tea notes",
    "What is the name of Caroline's dog and why did she pick it",
    "did the deployment script fail on the staging cluster",
]
TIMED = [
    "What did I do on May 8, 2023?",
    "notes from 8 May 2023",
    "what happened in May 2023",
    "three years ago at the lake",
    "last week sleep",
    "上周三 去海边",
    "the meeting in 2023",
    "昨天 手机",
    "2023-05 budget",
    "what did Caroline say two weeks ago",
]


def per_call_us(fn: Callable[[str], object], texts: list[str], rounds: int) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        for text in texts:
            fn(text)
    return (time.perf_counter() - start) / (rounds * len(texts)) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    precheck: Callable[[str], bool] = may_name_a_time.__wrapped__  # the memo would hide the cost
    word = re.compile(r"\bago\b")
    rows: list[tuple[str, list[str], Callable[[str], object]]] = [
        ("reference: lower() + one regex", PLAIN, lambda t: word.search(t.lower())),
        ("may_name_a_time, plain questions", PLAIN, precheck),
        ("may_name_a_time, time questions", TIMED, precheck),
        ("match_time_range, plain questions", PLAIN, lambda t: match_time_range(t, today="2026-07-22")),
        ("match_time_range, time questions", TIMED, lambda t: match_time_range(t, today="2026-07-22")),
    ]
    said_yes = sum(bool(precheck(t)) for t in PLAIN)
    reference = per_call_us(rows[0][2], rows[0][1], args.rounds)
    print(f"{'what':<36} {'us/query':>9} {'x ref':>7}")
    for name, texts, fn in rows:
        cost = per_call_us(fn, texts, args.rounds)
        print(f"{name:<36} {cost:>9.1f} {cost / reference:>7.1f}")
    print(f"pre-check said 'may' for {said_yes} of {len(PLAIN)} plain questions")


if __name__ == "__main__":
    main()
