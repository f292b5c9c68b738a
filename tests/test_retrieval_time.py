"""The time gate: a window adds that window's diary entries; nothing else is filtered."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from wikimem import MemoryIndex, MemoryStore


@pytest.fixture()
def store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    store.add("prefs", "coffee", "只喝手冲咖啡，从不加糖。")
    store.add("prefs", "sea", "喜欢海边。")
    diary = store.diary
    diary.append("早上喝了咖啡，然后去上班。", date="2026-07-20", time="08:00")
    diary.append("晚上散步。[[prefs:sea]]", date="2026-07-20", time="21:00")
    diary.append("又喝咖啡。", date="2026-07-21", time="09:30")
    diary.append("和朋友吃饭。", date="2026-07-21", time="19:00")
    diary.append("很久以前的咖啡。", date="2026-07-01", time="10:00")
    return store


def _index(store: MemoryStore, today: str = "2026-07-22") -> MemoryIndex:
    return MemoryIndex(store, use_jieba=False, today=lambda: dt.date.fromisoformat(today))


def _rows(result) -> list[tuple[str, str, str]]:
    return [(e.source, e.item.file, e.item.name) for e in result.items]


def test_explicit_window_adds_its_diary_entries_as_candidates(store: MemoryStore) -> None:
    result = _index(store).retrieve("咖啡", time_range=("2026-07-21", "2026-07-21"))
    assert ("hit", "2026-07-21", "09:30") in _rows(result)
    assert result.time_range == ("2026-07-21", "2026-07-21")
    assert result.time_range_source == "explicit" and not result.time_range_widened


def test_wiki_is_not_filtered_by_the_window(store: MemoryStore) -> None:
    result = _index(store).retrieve("咖啡", time_range=("2026-07-21", "2026-07-21"))
    assert ("hit", "prefs", "coffee") in _rows(result)


def test_diary_outside_the_window_is_not_a_candidate(store: MemoryStore) -> None:
    rows = _rows(_index(store).retrieve("咖啡", time_range=("2026-07-21", "2026-07-21")))
    assert not any(file in ("2026-07-20", "2026-07-01") for _, file, _ in rows)


def test_diary_is_not_searched_without_a_window(store: MemoryStore) -> None:
    result = _index(store).retrieve("咖啡")
    assert _rows(result) == [("hit", "prefs", "coffee")]
    assert result.time_range is None and result.time_range_source is None


def test_window_parsed_from_the_query_uses_the_pinned_today(store: MemoryStore) -> None:
    result = _index(store, today="2026-07-22").retrieve("昨天喝咖啡了吗")
    assert result.time_range == ("2026-07-21", "2026-07-21")
    assert result.time_range_source == "parsed"
    assert _rows(result)[0] == ("hit", "2026-07-21", "09:30")


def test_query_time_words_resolve_against_the_today_an_app_supplies(store: MemoryStore) -> None:
    index = MemoryIndex(store, use_jieba=False)
    index.today = lambda: dt.date(2026, 7, 22)
    assert index.retrieve("昨天喝咖啡了吗").time_range == ("2026-07-21", "2026-07-21")


def test_window_entry_matching_no_search_word_is_not_a_hit(store: MemoryStore) -> None:
    result = _index(store).retrieve("咖啡", time_range=("2026-07-21", "2026-07-21"))
    rows = _rows(result)
    assert ("hit", "2026-07-21", "09:30") in rows
    assert ("hit", "2026-07-21", "19:00") not in rows
    assert all(e.bm25_score > 0 for e in result.items if e.source == "hit")


def test_window_of_unmatched_entries_adds_no_zero_score_rows(store: MemoryStore) -> None:
    result = _index(store).retrieve("手冲", time_range=("2026-07-20", "2026-07-21"))
    assert _rows(result) == [("hit", "prefs", "coffee")]


def test_query_of_time_words_only_still_returns_the_window_newest_first(store: MemoryStore) -> None:
    result = _index(store, today="2026-07-22").retrieve("昨天", expand_links=False)
    assert _rows(result) == [("hit", "2026-07-21", "19:00"), ("hit", "2026-07-21", "09:30")]
    assert result.time_words == ["昨天"] and result.query_tokens == []


def test_time_words_that_chose_the_window_are_not_scored(store: MemoryStore) -> None:
    store.add("prefs", "yesterday-note", "昨天 昨天 昨天")
    result = _index(store, today="2026-07-22").retrieve("昨天 咖啡")
    assert "昨天" not in result.query_tokens and result.time_words == ["昨天"]
    assert ("hit", "prefs", "yesterday-note") not in _rows(result)
    assert all("昨天" not in e.matched_terms for e in result.items)


def test_english_time_words_do_not_match_items_containing_them(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("work", "busy", "A busy week at work, every week the same.")
    store.add("health", "sleep", "Sleep has been poor lately.")
    store.diary.append("Slept badly again.", date="2026-07-15", time="23:00")
    result = _index(store, today="2026-07-22").retrieve("last week sleep")
    assert result.time_range == ("2026-07-13", "2026-07-19")
    assert result.query_tokens == ["sleep"] and result.time_words == ["last week"]
    assert [e.item.name for e in result.items] == ["sleep"]


def test_an_iso_date_does_not_match_its_digits_in_items(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("events", "launch", "The launch slipped to November 11, 2026.")
    store.diary.append("Dentist at nine.", date="2026-11-21", time="09:00")
    result = _index(store).retrieve("2026-11-21")
    assert result.time_range == ("2026-11-21", "2026-11-21") and result.query_tokens == []
    assert _rows(result) == [("hit", "2026-11-21", "09:00")]


def test_time_words_of_an_empty_window_stay_search_words(tmp_path: Path) -> None:
    # An empty window (even widened) filters nothing: the words are content.
    store = MemoryStore(tmp_path)
    store.add("history", "moon", "1969年7月 人类登月。")
    result = _index(store, today="2026-07-22").retrieve("1969年7月")
    assert result.time_range_widened and result.time_words == []
    assert [e.item.name for e in result.items] == ["moon"]


def test_an_explicit_window_leaves_the_query_words_alone(store: MemoryStore) -> None:
    store.add("prefs", "yesterday-note", "昨天的事")
    result = _index(store).retrieve("昨天", time_range=("2026-07-21", "2026-07-21"))
    assert result.query_tokens == ["昨天"] and result.time_words == []
    assert ("hit", "prefs", "yesterday-note") in _rows(result)


def test_empty_query_with_a_window_lists_its_entries_newest_first(store: MemoryStore) -> None:
    result = _index(store).retrieve("", time_range=("2026-07-20", "2026-07-21"), expand_links=False)
    assert [(e.item.file, e.item.name) for e in result.items] == [
        ("2026-07-21", "19:00"),
        ("2026-07-21", "09:30"),
        ("2026-07-20", "21:00"),
        ("2026-07-20", "08:00"),
    ]


def test_reversed_bounds_are_normalized(store: MemoryStore) -> None:
    result = _index(store).retrieve("", time_range=("2026-07-21", "2026-07-20"))
    assert result.time_range == ("2026-07-20", "2026-07-21")
    assert len([e for e in result.items if e.source == "hit"]) == 4


def test_empty_window_widens_one_day_each_side_once(store: MemoryStore) -> None:
    result = _index(store).retrieve("", time_range=("2026-07-02", "2026-07-02"))
    assert result.time_range_widened
    assert result.time_range == ("2026-07-01", "2026-07-03")
    assert _rows(result) == [("hit", "2026-07-01", "10:00")]


def test_window_still_empty_after_widening_yields_nothing(store: MemoryStore) -> None:
    result = _index(store).retrieve("", time_range=("2026-06-10", "2026-06-10"))
    assert result.items == [] and result.time_range_widened


def test_links_in_diary_entries_are_expanded(store: MemoryStore) -> None:
    result = _index(store).retrieve("散步", time_range=("2026-07-20", "2026-07-20"))
    rows = _rows(result)
    hit = rows.index(("hit", "2026-07-20", "21:00"))
    assert rows[hit + 1] == ("link", "prefs", "sea")
    assert result.items[hit + 1].via == "21:00"


def test_diary_hit_keeps_its_provenance(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.diary.append("去了海边", date="2026-07-21", time="14:30", owner="user:x", source_conv="conv_1")
    item = _index(store).retrieve("海边", time_range=("2026-07-21", "2026-07-21")).items[0].item
    assert (item.owner, item.source_conv) == ("user:x", "conv_1")


def test_an_agent_asking_what_it_did_last_tuesday_gets_that_days_entries(tmp_path: Path) -> None:
    """Saturday 2026-12-05: "last Tuesday" may be 12-01 or 11-24; the entry of either is recalled, nothing else."""
    store = MemoryStore(tmp_path)
    store.add("bikes", "chain", "The bike chain squeaks in the rain.")
    store.diary.append("Fixed the bike chain and oiled it.", date="2026-12-01", time="18:00")
    store.diary.append("Booked the dentist.", date="2026-11-24", time="09:00")
    store.diary.append("Bought groceries.", date="2026-11-20", time="12:00")
    index = _index(store, today="2026-12-05")
    result = index.retrieve("what did I do last Tuesday?", search_diary=True)
    assert result.time_range == ("2026-11-24", "2026-12-01") and result.time_words == ["last Tuesday"]
    assert _rows(result) == [("hit", "2026-12-01", "18:00"), ("hit", "2026-11-24", "09:00")]
    on_tuesday = index.retrieve("what happened to the bike on Tuesday?", search_diary=True)
    assert on_tuesday.time_range == ("2026-12-01", "2026-12-01")
    assert _rows(on_tuesday)[0] == ("hit", "2026-12-01", "18:00")


@pytest.mark.parametrize("use_jieba", [False, True])
@pytest.mark.parametrize("question", ["上周二我做了什么", "上周二做了什么？", "我上周二干嘛了", "上周二发生了什么", "上周二有什么事"])
def test_a_chinese_question_of_what_took_place_is_answered_by_its_window(tmp_path: Path, question: str,
                                                                        use_jieba: bool) -> None:
    """Its other words ask what took place (我 做 了 什么 发生): every entry of the window, on both tokenizer paths."""
    if use_jieba:
        pytest.importorskip("jieba")
    store = MemoryStore(tmp_path)
    store.add("bikes", "chain", "自行车链条在雨里会响。")
    store.diary.append("修好了自行车链条。", date="2026-11-24", time="18:00")
    store.diary.append("Fixed the bike chain.", date="2026-11-24", time="19:00")
    store.diary.append("去看了牙医。", date="2026-11-25", time="09:00")
    index = MemoryIndex(store, use_jieba=use_jieba, today=lambda: dt.date(2026, 12, 5))
    result = index.retrieve(question, search_diary=True)
    assert result.time_range == ("2026-11-24", "2026-11-24")
    assert sorted(_rows(result)) == [("hit", "2026-11-24", "18:00"), ("hit", "2026-11-24", "19:00")]
    subject = index.retrieve("上周二自行车怎么了", search_diary=True)  # names a subject: its matches only
    assert ("hit", "2026-11-24", "19:00") not in _rows(subject) and ("hit", "2026-11-24", "18:00") in _rows(subject)
