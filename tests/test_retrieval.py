"""The retrieval pipeline: ranking, one-hop link expansion and the token budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikimem import DiaryItem, MemoryIndex, MemoryStore, RecallItem, as_recall_item
from wikimem.tokenize import est_tokens


@pytest.fixture()
def store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    store.add("preferences", "likes-the-sea", "喜欢海边，提到过想去海边玩。[[daily_life:beach-trip-plan]] [[daily_life:gone]]")
    store.add("daily_life", "beach-trip-plan", "计划夏天去海边旅行，看日出。")
    store.add("daily_life", "coffee", "只喝手冲咖啡，从不加糖。")
    store.add("work", "job", "Works at a robotics company; likes the sea on weekends. [[daily_life:gone]]")
    return store


def _index(store: MemoryStore) -> MemoryIndex:
    return MemoryIndex(store, use_jieba=False)


def _names(result) -> list[tuple[str, str]]:
    return [(e.source, e.item.name) for e in result.items]


def test_best_matching_item_ranks_first(store: MemoryStore) -> None:
    assert _index(store).retrieve("手冲咖啡").items[0].item.name == "coffee"


def test_hit_carries_sorted_matched_terms_and_its_token_estimate(store: MemoryStore) -> None:
    entry = _index(store).retrieve("咖啡 手冲").items[0]
    assert entry.matched_terms == sorted(entry.matched_terms) == ["咖啡", "手冲"]
    assert entry.tokens_est == est_tokens(entry.item.content)
    assert entry.score == entry.bm25_score > 0 and entry.cos_score is None


def test_link_target_is_inserted_right_after_its_hit_with_via(store: MemoryStore) -> None:
    result = _index(store).retrieve("想去海边玩", limit=1)
    assert _names(result) == [("hit", "likes-the-sea"), ("link", "beach-trip-plan")]
    assert result.items[1].via == "likes-the-sea"


def test_item_that_is_also_a_later_hit_appears_once_as_the_link(store: MemoryStore) -> None:
    result = _index(store).retrieve("想去海边玩")
    keys = [(e.item.file, e.item.name) for e in result.items]
    assert len(keys) == len(set(keys))
    assert _names(result)[:2] == [("hit", "likes-the-sea"), ("link", "beach-trip-plan")]


def test_missing_link_targets_are_reported_once_as_rendered_links(store: MemoryStore) -> None:
    result = _index(store).retrieve("海边 sea")
    assert result.unresolved_links == ["[[daily_life:gone]]"]


def test_no_link_rows_without_expansion(store: MemoryStore) -> None:
    result = _index(store).retrieve("想去海边玩", limit=1, expand_links=False)
    assert _names(result) == [("hit", "likes-the-sea")]
    assert result.unresolved_links == []


def test_limit_caps_the_number_of_hits(store: MemoryStore) -> None:
    result = _index(store).retrieve("海边 sea 咖啡", limit=2, expand_links=False)
    assert len(result.items) == 2


def test_first_entry_survives_a_budget_smaller_than_it(store: MemoryStore) -> None:
    result = _index(store).retrieve("想去海边玩", budget_tokens=1)
    assert _names(result) == [("hit", "likes-the-sea")]
    assert result.budget_used == result.items[0].tokens_est


def test_budget_is_a_prefix_cut_reported_in_dropped_with_explain(store: MemoryStore) -> None:
    full = _index(store).retrieve("想去海边玩")
    budget = full.items[0].tokens_est + 1
    result = _index(store).retrieve("想去海边玩", budget_tokens=budget, explain=True)
    assert result.items == full.items[:1]
    assert result.dropped == full.items[1:]
    assert result.budget_tokens == budget and result.budget_used <= budget


def test_dropped_stays_empty_without_explain(store: MemoryStore) -> None:
    result = _index(store).retrieve("想去海边玩", budget_tokens=1)
    assert result.dropped == []


@pytest.mark.parametrize("query", ["", "   ", "，。！?", "--"])
def test_empty_or_punctuation_query_returns_nothing(store: MemoryStore, query: str) -> None:
    result = _index(store).retrieve(query)
    assert result.items == [] and result.time_range is None


def test_query_matching_nothing_returns_nothing(store: MemoryStore) -> None:
    assert _index(store).retrieve("zebra").items == []


def test_retrieval_on_an_empty_store_returns_nothing(tmp_path: Path) -> None:
    assert _index(MemoryStore(tmp_path / "missing")).retrieve("anything").items == []


def test_as_recall_item_maps_day_and_time_and_keeps_provenance() -> None:
    entry = DiaryItem("2026-07-21", "14:30", "去了海边", "user:x", "conv_1", "2026-07-21T06:30:00+00:00")
    assert as_recall_item(entry) == RecallItem(
        "2026-07-21", "14:30", "去了海边", "user:x", "conv_1", "2026-07-21T06:30:00+00:00"
    )


def test_links_of_a_link_target_are_not_followed(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("a", "first", "alpha [[a:second]]")
    store.add("a", "second", "beta [[a:third]]")
    store.add("a", "third", "gamma")
    assert _names(_index(store).retrieve("alpha")) == [("hit", "first"), ("link", "second")]


def test_link_to_a_whitespace_variant_of_a_name_resolves(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("a", "first", "alpha [[a: the  second ]]")
    store.add("a", "the second", "beta")
    assert _names(_index(store).retrieve("alpha")) == [("hit", "first"), ("link", "the second")]


def test_a_row_that_is_only_a_link_target_is_unranked(store: MemoryStore) -> None:
    link = _index(store).retrieve("想去海边玩", limit=1).items[1]
    assert (link.source, link.score, link.bm25_score, link.cos_score, link.matched_terms, link.rank) == (
        "link", 0.0, 0.0, None, [], None
    )


def test_a_hit_placed_as_a_link_keeps_its_own_rank_and_scores(store: MemoryStore) -> None:
    index = _index(store)
    ranked = index.retrieve("想去海边玩", expand_links=False).items
    assert [(e.item.name, e.rank) for e in ranked][:2] == [("likes-the-sea", 1), ("beach-trip-plan", 2)]
    row = index.retrieve("想去海边玩").items[1]
    assert (row.source, row.via, row.item.name) == ("link", "likes-the-sea", "beach-trip-plan")
    assert row.rank == 2 and row.is_hit
    assert (row.score, row.bm25_score, row.matched_terms) == (
        ranked[1].score, ranked[1].bm25_score, ranked[1].matched_terms
    )
    assert row.bm25_score > 0 and row.matched_terms


def test_hit_rows_carry_their_rank_among_the_hits(store: MemoryStore) -> None:
    rows = _index(store).retrieve("海边 sea 咖啡").items
    hits = [row for row in rows if row.source == "hit"]
    assert [row.rank for row in hits] == sorted(row.rank for row in hits)
    assert hits[0].rank == 1
