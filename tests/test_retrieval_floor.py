"""The relevance floor: a candidate without a BM25 match needs a real cosine."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("numpy")

from wikimem import MemoryIndex, MemoryStore  # noqa: E402
from wikimem.ranking.floor import COS_FLOORS  # noqa: E402

# Concept axes plus a small constant: unrelated texts get a tiny positive cosine.
_AXES = [("海", "sea", "ocean", "beach"), ("咖啡", "coffee"), ("茶", "tea"), ("robot", "work")]


class AxisEmbedder:
    """Deterministic vectors: one axis per concept, and 0.1 everywhere."""

    def __init__(self, model: str | None = "axis-v1", cos_floor: float | None = None) -> None:
        self.model = model
        if cos_floor is not None:
            self.cos_floor = cos_floor

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [[0.1] + [float(sum(t.lower().count(w) for w in words)) for words in _AXES] for t in texts]


@pytest.fixture()
def store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    store.add("prefs", "likes-the-sea", "喜欢海边。")
    store.add("prefs", "coffee", "只喝手冲咖啡。")
    store.add("prefs", "tea", "下午喝茶。")
    store.add("work", "job", "Builds robots.")
    return store


def _names(result) -> list[str]:
    return [e.item.name for e in result.items]


def test_without_a_floor_every_positive_cosine_becomes_a_hit(store: MemoryStore) -> None:
    # The bug the floor fixes: fusion normalises, so unrelated items still rank.
    result = MemoryIndex(store, use_jieba=False, embedder=AxisEmbedder(), cos_floor=None).retrieve("ocean")
    assert _names(result)[0] == "likes-the-sea" and len(result.items) == 4


def test_floor_keeps_only_candidates_with_a_real_cosine(store: MemoryStore) -> None:
    index = MemoryIndex(store, use_jieba=False, embedder=AxisEmbedder(), cos_floor=0.5)
    result = index.retrieve("ocean")
    assert _names(result) == ["likes-the-sea"]
    assert result.cos_floor == 0.5 and result.cos_floor_source == "explicit"
    assert result.below_floor == 3


def test_floor_never_removes_a_bm25_match(store: MemoryStore) -> None:
    # "咖啡" matches by BM25; its cosine to "coffee 海" is modest but it stays.
    index = MemoryIndex(store, use_jieba=False, embedder=AxisEmbedder(), cos_floor=0.99)
    result = index.retrieve("咖啡 ocean")
    assert "coffee" in _names(result) and "tea" not in _names(result)


def test_non_positive_cosine_is_never_a_hit_even_without_a_floor(tmp_path: Path) -> None:
    class Signed:
        model = "signed"

        def embed(self, texts: list[str]) -> list[list[float]]:
            return [[1.0, 0.0] if "sea" in t else [-1.0, 0.2] for t in texts]

    store = MemoryStore(tmp_path)
    store.add("a", "sea", "the sea")
    store.add("a", "desk", "a desk lamp")
    result = MemoryIndex(store, use_jieba=False, embedder=Signed(), cos_floor=None).retrieve("sea")
    assert _names(result) == ["sea"]


def test_auto_floor_uses_the_embedders_own_then_the_calibrated_one(store: MemoryStore) -> None:
    own = MemoryIndex(store, embedder=AxisEmbedder(cos_floor=0.4))
    assert (own.cos_floor, own.cos_floor_source) == (0.4, "embedder")
    model = next(iter(COS_FLOORS))
    known = MemoryIndex(store, embedder=AxisEmbedder(model=model))
    assert (known.cos_floor, known.cos_floor_source) == (COS_FLOORS[model], "calibrated")
    unknown = MemoryIndex(store, embedder=AxisEmbedder(model="never-calibrated"))
    assert (unknown.cos_floor, unknown.cos_floor_source) == (None, None)
    assert MemoryIndex(store).cos_floor is None
    off = MemoryIndex(store, embedder=AxisEmbedder(cos_floor=0.4), cos_floor=None)
    assert (off.cos_floor, off.cos_floor_source) == (None, "off")


def test_explicit_floor_beats_the_embedders(store: MemoryStore) -> None:
    index = MemoryIndex(store, embedder=AxisEmbedder(cos_floor=0.4), cos_floor=0.2)
    assert (index.cos_floor, index.cos_floor_source) == (0.2, "explicit")


@pytest.mark.parametrize("bad", [1.5, -2.0, float("nan"), "high", True])
def test_bad_floor_is_a_value_error(store: MemoryStore, bad: object) -> None:
    with pytest.raises(ValueError):
        MemoryIndex(store, embedder=AxisEmbedder(), cos_floor=bad)  # type: ignore[arg-type]


def test_floor_is_not_reported_when_embeddings_are_off(store: MemoryStore) -> None:
    result = MemoryIndex(store, use_jieba=False, cos_floor=0.5).retrieve("咖啡")
    assert not result.embedding_used and result.cos_floor is None and result.below_floor == 0


def test_floor_applies_to_window_entries_too(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("prefs", "sea", "喜欢海边。")
    store.diary.append("去了 beach。", date="2026-07-21", time="10:00")
    store.diary.append("修好了 robot。", date="2026-07-21", time="15:00")
    index = MemoryIndex(store, use_jieba=False, embedder=AxisEmbedder(), cos_floor=0.5)
    result = index.retrieve("ocean", time_range=("2026-07-21", "2026-07-21"), expand_links=False)
    assert {(e.item.file, e.item.name) for e in result.items} == {("prefs", "sea"), ("2026-07-21", "10:00")}
    assert result.below_floor == 1  # the robot entry: positive cosine, below the floor
