"""``MemoryIndex.why_not``: which stage removed an item, read off the same pipeline run."""

from __future__ import annotations

import datetime as dt
import importlib.util
from pathlib import Path

import pytest

from wikimem import MemoryIndex, MemoryStore


@pytest.fixture()
def store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    store.add("prefs", "likes-the-sea", "喜欢海边，想去海边玩。[[trips:beach-plan]]")
    store.add("trips", "beach-plan", "计划去海边旅行，看日出。")
    store.add("prefs", "coffee", "只喝手冲咖啡。")
    store.add("prefs", "sea-food", "海边的海鲜很好吃，海边的风也好。")
    store.add("notes", "long-sea", "海边 " + "很长的一段话。" * 60)
    store.diary.append("今天在海边散步。", date="2026-07-21", time="18:00")
    store.diary.append("开会。", date="2026-07-21", time="09:00")
    return store


def _index(store: MemoryStore, **kwargs) -> MemoryIndex:
    return MemoryIndex(store, use_jieba=False, today=lambda: dt.date(2026, 7, 22), **kwargs)


def test_a_recalled_hit_reports_its_position_and_evidence(store: MemoryStore) -> None:
    index = _index(store)
    why = index.why_not("手冲咖啡", "prefs", "coffee")
    assert (why.stage, why.recalled, why.position, why.rank, why.source) == ("recalled", True, 1, 1, "hit")
    assert why.bm25_rank == 1 and why.bm25_score == index.retrieve("手冲咖啡").items[0].bm25_score
    assert why.matched_terms == ["冲咖", "咖啡", "手冲"] and why.missing_terms == []


def test_a_hit_placed_as_a_link_is_deduplicated(store: MemoryStore) -> None:
    why = _index(store).why_not("想去海边玩", "trips", "beach-plan")
    assert why.stage == "deduplicated" and why.recalled
    assert (why.source, why.via, why.position) == ("link", "likes-the-sea", 2)
    assert why.rank is not None and why.rank > 1


def test_an_unranked_link_target_is_recalled_as_a_link(store: MemoryStore) -> None:
    why = _index(store).why_not("想去海边玩", "trips", "beach-plan", limit=1)
    assert (why.stage, why.source, why.rank, why.position) == ("recalled", "link", None, 2)


def test_below_the_limit(store: MemoryStore) -> None:
    index = _index(store)
    second = index.retrieve("海边", limit=2, expand_links=False).items[1].item
    why = index.why_not("海边", second.file, second.name, limit=1, expand_links=False)
    assert why.stage == "limit" and not why.recalled
    assert why.bm25_rank == 2 and "below the limit of 1" in why.reason
    assert [e.item.name for e in why.result.items] == [
        e.item.name for e in index.retrieve("海边", limit=1, expand_links=False).items
    ]


def test_no_shared_token_is_not_a_candidate(store: MemoryStore) -> None:
    why = _index(store).why_not("手冲咖啡", "prefs", "sea-food")
    assert why.stage == "not_candidate" and why.bm25_score == 0.0 and why.bm25_rank is None
    assert why.missing_terms == ["冲咖", "咖啡", "手冲"] and why.matched_terms == []


def test_cut_by_the_budget(store: MemoryStore) -> None:
    why = _index(store).why_not("海边", "notes", "long-sea", budget_tokens=30, expand_links=False)
    assert why.stage == "budget" and why.rank is not None and not why.recalled
    assert "budget" in why.reason


def test_diary_outside_the_window_is_the_time_gate(store: MemoryStore) -> None:
    why = _index(store).why_not("海边", "2026-07-21", "18:00")
    assert why.stage == "time_gate" and "names none" in why.reason
    why = _index(store).why_not("海边", "2026-07-21", "18:00", time_range=("2026-07-01", "2026-07-02"))
    assert why.stage == "time_gate" and "2026-06-30..2026-07-03" in why.reason


def test_window_entry_matching_nothing_is_removed_by_the_floor(store: MemoryStore) -> None:
    why = _index(store).why_not("海边", "2026-07-21", "09:00", time_range=("2026-07-21", "2026-07-21"))
    assert why.stage == "floor" and why.missing_terms == ["海边"]


def test_window_entry_found_by_parsed_time_words(store: MemoryStore) -> None:
    why = _index(store).why_not("昨天 海边", "2026-07-21", "18:00")
    assert why.stage == "recalled" and why.result.time_words == ["昨天"]


def test_missing_item(store: MemoryStore) -> None:
    assert _index(store).why_not("海边", "prefs", "nope").stage == "missing"
    assert _index(store).why_not("海边", "2026-07-30", "10:00").stage == "missing"


def test_verdict_agrees_with_retrieve_for_every_item(store: MemoryStore) -> None:
    index = _index(store)
    for query, knobs in (("海边", {"limit": 2}), ("想去海边玩", {}), ("海边", {"budget_tokens": 40})):
        result = index.retrieve(query, **knobs)
        recalled = {(e.item.file, e.item.name): p for p, e in enumerate(result.items, 1)}
        for item in store.items():
            why = index.why_not(query, item.file, item.name, **knobs)
            assert why.recalled == ((item.file, item.name) in recalled)
            assert why.position == recalled.get((item.file, item.name))


needs_numpy = pytest.mark.skipif(importlib.util.find_spec("numpy") is None, reason="embeddings need numpy")


class AxisEmbedder:
    model = "axis-why"

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [[0.1, float("海" in t or "ocean" in t), float("咖啡" in t or "coffee" in t)] for t in texts]


@needs_numpy
def test_below_the_relevance_floor_with_embeddings(store: MemoryStore) -> None:
    index = _index(store, embedder=AxisEmbedder(), cos_floor=0.5)
    why = index.why_not("ocean", "prefs", "coffee")
    assert why.stage == "floor" and why.embedding_used
    assert why.cos_score is not None and 0 < why.cos_score < 0.5 and "below the floor" in why.reason
    assert index.why_not("ocean", "prefs", "likes-the-sea").recalled


@needs_numpy
def test_cosine_is_reported_for_an_item_that_was_not_a_candidate(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    for i in range(60):
        store.add("many", f"sea-{i}", f"海边 {i}")
    store.add("many", "coffee", "咖啡")
    index = MemoryIndex(store, use_jieba=False, embedder=AxisEmbedder(), cos_floor=None)
    why = index.why_not("ocean", "many", "coffee", limit=1)
    assert why.stage == "not_candidate" and why.cos_score is not None and why.cos_score < 0.2
