"""The explain wording, written once in ``wikimem.ranking.explain`` for the CLI and the app."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from wikimem import MemoryIndex, MemoryStore
from wikimem.ranking.explain import TABLE_HEADER, explain_lines, header_lines, row_note, why_not_lines


@pytest.fixture()
def store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    store.add("preferences", "likes-the-sea", "喜欢海边，提到过想去海边玩。[[daily_life:beach-trip-plan]]")
    store.add("daily_life", "beach-trip-plan", "计划夏天去海边旅行，看日出。")
    store.add("hobbies", "piano", "每周练钢琴。")
    store.diary.append("上周去上了钢琴课。", date="2026-07-15", time="19:00")
    return store


def _index(store: MemoryStore) -> MemoryIndex:
    return MemoryIndex(store, use_jieba=False, today=lambda: dt.date(2026, 7, 22))


def test_a_hit_in_its_link_place_shows_its_rank_and_terms(store: MemoryStore) -> None:
    result = _index(store).retrieve("想去海边玩", explain=True)
    lines = explain_lines("想去海边玩", result)
    row = lines[lines.index(TABLE_HEADER) + 2]
    assert row.startswith("2  link  ") and "  0.000  0.000  " not in row
    assert row.endswith("daily_life:beach-trip-plan  (via likes-the-sea)  hit #2 [去海, 海边]")


def test_a_pure_link_row_keeps_the_contract_tail(store: MemoryStore) -> None:
    entry = _index(store).retrieve("想去海边玩", limit=1).items[1]
    assert row_note(entry) == "(via likes-the-sea)"


def test_time_words_are_listed_and_not_among_the_tokens(store: MemoryStore) -> None:
    result = _index(store).retrieve("上周 钢琴", explain=True)
    lines = header_lines("上周 钢琴", result)
    assert lines[1] == "query tokens: 钢琴"
    assert lines[3] == "time gate: 2026-07-13..2026-07-19  [parsed]"
    assert lines[4] == "time words: 上周 (chose the window; not scored)"
    assert all("上周" not in entry.matched_terms for entry in result.items)


def test_the_first_four_lines_keep_the_contract_order(store: MemoryStore) -> None:
    lines = explain_lines("钢琴", _index(store).retrieve("钢琴", explain=True))
    assert [line.split(":")[0] for line in lines[:4]] == ["query", "query tokens", "ranking", "time gate"]
    assert lines[4] == TABLE_HEADER


def test_why_not_lines_give_the_verdict_and_evidence(store: MemoryStore) -> None:
    why = _index(store).why_not("想去海边玩", "daily_life", "beach-trip-plan")
    lines = why_not_lines(why)
    assert lines[0] == "item: daily_life:beach-trip-plan"
    assert lines[1].startswith("verdict: deduplicated -- recalled at position 2: hit #2")
    assert "missing tokens: 想去, 边玩" in lines and "bm25: 0.906 (rank #2)" in lines


def test_why_not_lines_for_a_missing_item(store: MemoryStore) -> None:
    assert why_not_lines(_index(store).why_not("x", "a", "b")) == [
        "item: a:b", "verdict: missing -- there is no item a:b"
    ]
