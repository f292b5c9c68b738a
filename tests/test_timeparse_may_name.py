"""``may_name_a_time`` is a safe pre-check: whenever a text names a window, it says it may.

The pipeline skips the clock and the rules for a text it calls time-free, so
a false "no" would silently drop a query's time window. Every text of the
time-word tests is checked on several reference days (a rule's handler may
depend on the day; the pre-check must not).
"""

from __future__ import annotations

import pytest

import test_timeparse
import test_timeparse_english
from wikimem.timeparse import match_time_range, may_name_a_time

DAYS = ("2026-07-22", "2026-01-01", "2024-02-29", "2026-12-31")


def _texts() -> list[str]:
    texts: set[str] = set()
    objects = [*vars(test_timeparse).values(), *vars(test_timeparse_english).values()]
    for obj in objects:
        for mark in getattr(obj, "pytestmark", []):
            if mark.name != "parametrize":
                continue
            for row in mark.args[1]:
                for value in row if isinstance(row, tuple) else (row,):
                    if isinstance(value, str):
                        texts.add(value)
    return sorted(texts)


TEXTS = _texts()


def test_the_time_word_tests_give_enough_texts_to_check() -> None:
    named = [t for t in TEXTS if any(match_time_range(t, today=d) is not None for d in DAYS)]
    assert len(TEXTS) > 180 and len(named) > 120


@pytest.mark.parametrize("today", DAYS)
def test_every_text_that_names_a_window_may_name_a_time(today: str) -> None:
    for text in TEXTS:
        for variant in (text, f"what did I say {text} about tea", text.upper(), f"  {text}\n"):
            if match_time_range(variant, today=today) is not None:
                assert may_name_a_time(variant), variant


@pytest.mark.parametrize("text", ["robot company work", "手冲咖啡 加糖", "rain summer trip", "", "jasmine tea"])
def test_plain_queries_are_time_free(text: str) -> None:
    assert not may_name_a_time(text)
    assert match_time_range(text, today="2026-07-22") is None
