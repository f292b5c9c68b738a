"""Time-word parsing cost per query: the cheap pre-check and the full parse.

Every query a surface sends passes :func:`wikimem.timeparse.may_name_a_time`
first; only a text it lets through pays for every rule's pattern in
:func:`~wikimem.timeparse.match_time_range`. So this prints, per query
(microseconds, uncached -- the pre-check's memo is bypassed):

* the pre-check over plain questions (no time word: the common case),
* the pre-check over questions that name a time,
* the full parse over both kinds,
* searching every rule's own pattern instead (what the one-pattern
  pre-check replaces),

and, as a reference in the same run, one ``str.lower()`` plus one
``re.search`` of a single word over the same texts (what the cheapest
conceivable check costs on this machine). Compare the ratios within one
run; absolute figures drift on a shared machine.

``--before DIR`` adds the same rows for another checkout's parser (e.g.
``/work/main``: its ``wikimem/timeparse/__init__.py`` loaded beside this
one), so a change is measured before/after in one run.

    python bench/bench_timeparse.py [--rounds 100] [--before DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from wikimem.timeparse import _RULES, match_time_range, may_name_a_time  # noqa: E402

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


def per_call_us(fn: Callable[[str], object], texts: list[str], rounds: int, repeats: int = 5) -> float:
    """Best of ``repeats`` timings (a shared machine only ever adds time)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(rounds):
            for text in texts:
                fn(text)
        best = min(best, time.perf_counter() - start)
    return best / (rounds * len(texts)) * 1e6


def every_rule(text: str) -> bool:
    """A pre-check that searches every rule's own pattern (what one pattern replaces)."""
    lowered = text.lower()
    return any(rule[0].search(lowered) for rule in _RULES)


def parser_rows(tag: str, module: Any) -> list[tuple[str, list[str], Callable[[str], object]]]:
    precheck: Callable[[str], bool] = module.may_name_a_time.__wrapped__  # the memo would hide the cost
    match = module.match_time_range
    return [
        (f"may_name_a_time, plain questions{tag}", PLAIN, precheck),
        (f"may_name_a_time, time questions{tag}", TIMED, precheck),
        (f"match_time_range, plain questions{tag}", PLAIN, lambda t: match(t, today="2026-07-22")),
        (f"match_time_range, time questions{tag}", TIMED, lambda t: match(t, today="2026-07-22")),
    ]


def load_before(checkout: Path) -> Any:
    """Another checkout's parser module, loaded under its own name beside this one."""
    path = checkout / "wikimem" / "timeparse" / "__init__.py"
    spec = importlib.util.spec_from_file_location("timeparse_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--before", type=Path, help="another checkout whose parser to time beside this one")
    args = parser.parse_args()
    precheck: Callable[[str], bool] = may_name_a_time.__wrapped__
    word = re.compile(r"\bago\b")
    rows: list[tuple[str, list[str], Callable[[str], object]]] = [
        ("reference: lower() + one regex", PLAIN, lambda t: word.search(t.lower())),
        ("every rule's pattern, plain questions", PLAIN, every_rule),
        *parser_rows("", sys.modules["wikimem.timeparse"]),
    ]
    if args.before is not None:
        rows += parser_rows(" [before]", load_before(args.before))
    said_yes = sum(bool(precheck(t)) for t in PLAIN)
    reference = per_call_us(rows[0][2], rows[0][1], args.rounds)
    print(f"{'what':<46} {'us/query':>9} {'x ref':>7}")
    for name, texts, fn in rows:
        cost = per_call_us(fn, texts, args.rounds)
        print(f"{name:<46} {cost:>9.1f} {cost / reference:>7.1f}")
    print(f"pre-check said 'may' for {said_yes} of {len(PLAIN)} plain questions")


if __name__ == "__main__":
    main()
