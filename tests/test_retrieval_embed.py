"""Embedding fusion: cosine joins BM25 when the embedder works, and never breaks retrieval."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

pytest.importorskip("numpy")

from wikimem import MemoryIndex, MemoryStore  # noqa: E402
from wikimem.vectors import VectorCache  # noqa: E402

# Concept axes: a text's vector counts the concept words it contains.
_CONCEPTS = [("海", "sea", "beach", "ocean"), ("咖啡", "coffee"), ("茶", "tea"), ("work", "job")]


class ConceptEmbedder:
    """Deterministic stand-in: texts sharing a concept point the same way."""

    def __init__(self, model: str | None = "concept-v1") -> None:
        self.model = model
        self.calls = 0

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [[0.1] + [float(sum(t.lower().count(w) for w in words)) for words in _CONCEPTS] for t in texts]


class DownEmbedder:
    model = "down"

    def embed(self, texts: list[str]) -> list[list[float]]:
        raise ConnectionError("endpoint unreachable")


@pytest.fixture()
def store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    store.add("prefs", "likes-the-sea", "喜欢海边，想去海边玩。")
    store.add("prefs", "coffee", "只喝手冲咖啡。")
    store.add("work", "job", "Robotics company, busy weeks.")
    return store


def test_working_embedder_fuses_cosine_into_the_ranking(store: MemoryStore) -> None:
    result = MemoryIndex(store, use_jieba=False, embedder=ConceptEmbedder()).retrieve("coffee 咖啡")
    assert result.embedding_used
    top = result.items[0]
    assert top.item.name == "coffee" and top.cos_score is not None and top.cos_score > 0.9


def test_meaning_is_found_with_no_shared_words(store: MemoryStore) -> None:
    result = MemoryIndex(store, use_jieba=False, embedder=ConceptEmbedder()).retrieve("ocean holiday")
    assert result.items[0].item.name == "likes-the-sea"
    assert result.items[0].bm25_score == 0.0


def test_fusion_weight_one_ranks_by_bm25_alone(store: MemoryStore) -> None:
    index = MemoryIndex(store, use_jieba=False, embedder=ConceptEmbedder(), fusion_weight=1.0, fusion="minmax")
    plain = MemoryIndex(store, use_jieba=False).retrieve("手冲")
    fused = index.retrieve("手冲")
    assert [e.item.name for e in fused.items][:1] == [e.item.name for e in plain.items][:1]


def test_unknown_fusion_method_is_rejected(store: MemoryStore) -> None:
    with pytest.raises(ValueError):
        MemoryIndex(store, embedder=ConceptEmbedder(), fusion="nope")


def test_failing_embedder_falls_back_to_bm25_without_raising(store: MemoryStore) -> None:
    result = MemoryIndex(store, use_jieba=False, embedder=DownEmbedder()).retrieve("手冲咖啡")
    assert not result.embedding_used
    assert [e.item.name for e in result.items] == ["coffee"]
    assert result.items[0].cos_score is None and result.items[0].score == result.items[0].bm25_score


def test_embedder_returning_garbage_falls_back_to_bm25(store: MemoryStore) -> None:
    class Garbage:
        def embed(self, texts: list[str]) -> list[list[float]]:
            return [[float("nan")]]

    result = MemoryIndex(store, use_jieba=False, embedder=Garbage()).retrieve("手冲咖啡")
    assert not result.embedding_used and result.items[0].item.name == "coffee"


def test_vectors_are_cached_and_not_reembedded_for_the_next_query(store: MemoryStore) -> None:
    embedder = ConceptEmbedder()
    index = MemoryIndex(store, use_jieba=False, embedder=embedder)
    index.retrieve("coffee")
    calls = embedder.calls
    index.retrieve("tea")
    assert embedder.calls == calls + 1  # the query only
    assert VectorCache(store.root).header()["model"] == "concept-v1"


def test_cache_from_another_model_warns_once_and_ranks_bm25_only(
    store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    MemoryIndex(store, use_jieba=False, embedder=ConceptEmbedder("old-model")).retrieve("coffee")
    keys_before = VectorCache(store.root).keys_path.read_bytes()
    embedder = ConceptEmbedder("new-model")
    index = MemoryIndex(store, use_jieba=False, embedder=embedder)
    with caplog.at_level(logging.WARNING):
        first = index.retrieve("coffee 咖啡")
        index.rebuild()
        index.retrieve("coffee")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].startswith("vector cache was built with model") and "BM25 only" in warnings[0]
    assert not first.embedding_used and embedder.calls == 0
    assert VectorCache(store.root).keys_path.read_bytes() == keys_before


def test_diary_entries_in_a_window_get_cosine_scores(store: MemoryStore) -> None:
    store.diary.append("去了海边看日落", date="2026-07-21", time="18:00")
    result = MemoryIndex(store, use_jieba=False, embedder=ConceptEmbedder()).retrieve(
        "ocean", time_range=("2026-07-21", "2026-07-21")
    )
    diary = [e for e in result.items if e.item.file == "2026-07-21"]
    assert result.embedding_used and diary and diary[0].cos_score is not None and diary[0].cos_score > 0.9
    assert (store.root / "diary-vectors" / "vectors.keys.jsonl").exists()


def test_vectors_dir_holds_the_wiki_cache(store: MemoryStore, tmp_path: Path) -> None:
    elsewhere = tmp_path / "vec"
    MemoryIndex(store, use_jieba=False, embedder=ConceptEmbedder(), vectors_dir=elsewhere).retrieve("coffee")
    assert (elsewhere / "vectors.keys.jsonl").exists()


def test_written_item_gets_its_vector_on_the_next_query(store: MemoryStore) -> None:
    index = MemoryIndex(store, use_jieba=False, embedder=ConceptEmbedder())
    index.retrieve("coffee")
    store.add("prefs", "tea", "jasmine tea")
    result = index.retrieve("茶")
    assert result.embedding_used and result.items[0].item.name == "tea"
