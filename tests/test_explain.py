"""The explain wording, written once in ``wikimem.ranking.explain`` for the CLI and the app."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from wikimem import MemoryIndex, MemoryStore
from wikimem.ranking.explain import (
    TABLE_HEADER,
    display_width,
    explain_lines,
    header_lines,
    row_fields,
    row_note,
    why_not_lines,
)


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


def _header_at(lines: list[str]) -> int:
    """Where the table's header is: the header's words, in order, however padded."""
    return next(i for i, line in enumerate(lines) if line.split() == TABLE_HEADER.split())


def _columns_start(line: str, fields: list[str]) -> list[int]:
    """The display column each field of ``line`` starts at (fields found left to right)."""
    starts, at = [], 0
    for field in fields:
        at = line.index(field, at)
        starts.append(display_width(line[:at]))
        at += len(field)
    return starts


def test_the_table_lines_up_by_display_width_with_chinese_names(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("people", "林小雨", "林喜欢海边。")
    store.add("people", "lin-the-long-named-friend", "Lin likes the 海边 too.")
    store.diary.append("和林去了海边。", date="2026-07-21", time="14:30")
    result = _index(store).retrieve("海边", time_range=("2026-07-21", "2026-07-21"), explain=True)
    lines = explain_lines("海边", result)
    table = lines[_header_at(lines) : _header_at(lines) + 1 + len(result.items)]
    header = _columns_start(table[0], TABLE_HEADER.split())
    assert len(result.items) == 3
    for line, (position, entry) in zip(table[1:], enumerate(result.items, 1)):
        fields = row_fields(position, entry, reference=True)  # explain's text: the reference spelling
        starts = _columns_start(line, fields)
        assert [starts[i] for i in (0, 1, 6)] == [header[i] for i in (0, 1, 6)]  # left-aligned under their word
        ends = [start + display_width(field) for start, field in zip(starts, fields)]
        header_ends = [start + display_width(word) for start, word in zip(header, TABLE_HEADER.split())]
        assert ends[2:6] == header_ends[2:6]  # the numbers right-aligned under theirs
    notes = [display_width(line[: line.index(row_note(e))]) for line, e in zip(table[1:], result.items)]
    assert len(set(notes)) == 1  # every note starts in one column, after the widest name (林小雨 counts 6 cells)


def test_a_diary_row_keeps_the_reference_spelling(store: MemoryStore) -> None:
    result = _index(store).retrieve("钢琴", time_range=("2026-07-15", "2026-07-15"), explain=True)
    assert "2026-07-15:19:00" in [row_fields(1, entry, reference=True)[6] for entry in result.items]
    assert "diary 2026-07-15 19:00" in [row_fields(1, entry)[6] for entry in result.items]  # the app's name
    why = _index(store).why_not("钢琴", "2026-07-15", "19:00")
    assert why_not_lines(why, reference=True)[0] == "item: 2026-07-15:19:00"
    assert why_not_lines(why)[0] == "item: diary 2026-07-15 19:00"


def test_display_width_counts_wide_characters_twice_and_combining_marks_not_at_all() -> None:
    assert display_width("abc") == 3 and display_width("林喜欢") == 6 and display_width("ｅ") == 2
    assert display_width("e\u0301") == 1


def test_a_hit_in_its_link_place_shows_its_rank_and_terms(store: MemoryStore) -> None:
    result = _index(store).retrieve("想去海边玩", explain=True)
    lines = explain_lines("想去海边玩", result)
    row = re.sub(r" {2,}", "  ", lines[_header_at(lines) + 2])
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
    assert _header_at(lines) == 4


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
