"""A result row's derived data, made the cheap way, equals what brute force says.

retrieve() looks the wiki hits' matched terms up together (a one-term query
not at all), and remembers a text's analysis and time words: none of it may
change what a row says, nor leak from one query into the next.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

import pytest

from wikimem import MemoryIndex, MemoryStore

WORDS = ["tea", "coffee", "zebra", "plan", "winter", "cocoa", "morning", "walk", "茶", "咖啡", "计划"]


def _store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    rng = random.Random(5)
    for i in range(60):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9)))
        if i % 7 == 0:
            text += f" see [[notes:n{(i + 3) % 60}]]"
        store.add("notes" if i % 2 else "more", f"n{i}", text)
    store.diary.append("zebra plan for the winter", ts="2026-11-30T09:00:00+00:00")
    return store


@pytest.mark.parametrize("index_path", ["pure", "numpy"], indirect=True)
def test_matched_terms_are_the_query_terms_each_row_holds(tmp_path: Path, index_path: str) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False, today=lambda: dt.date(2026, 12, 1))
    index.build()
    indexed = index.indexed()
    rng = random.Random(9)
    queries = list(WORDS) + [" ".join(rng.sample(WORDS, k)) for k in (2, 3, 4) for _ in range(8)]
    queries += ["yesterday zebra", "yesterday zebra plan"]
    rows = 0
    for query in queries:
        result = index.retrieve(query, limit=20)
        terms = set(result.query_tokens)
        for row in result.items:
            if row.source != "hit":
                continue
            held = set(indexed.terms(row.item))
            assert row.matched_terms == sorted(terms & held), (query, row.item.name)
            rows += 1
    assert rows > 100


def test_a_query_analysis_is_the_callers_to_change(tmp_path: Path) -> None:
    index = MemoryIndex(_store(tmp_path), use_jieba=False)
    first = index.retrieve("zebra plan")
    first.query_tokens.append("cocoa")
    first.stop_words.append("x")
    again = index.retrieve("zebra plan")
    assert again.query_tokens == ["zebra", "plan"] and again.stop_words == []
    assert [r.item.name for r in again.items] == [r.item.name for r in first.items]


def test_the_same_time_words_follow_today(tmp_path: Path) -> None:
    days = iter([dt.date(2026, 12, 1), dt.date(2026, 12, 2)])
    index = MemoryIndex(_store(tmp_path), use_jieba=False, today=lambda: next(days))
    assert index.retrieve("yesterday zebra").time_range == ("2026-11-30", "2026-11-30")
    # Another day, the same text: another window (nothing in it: widened by a day on each side).
    assert index.retrieve("yesterday zebra").time_range == ("2026-11-30", "2026-12-02")
