"""File context with embeddings: a signal of its own in the fused score, for every candidate alike."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("numpy")

from wikimem import MemoryIndex, MemoryStore  # noqa: E402
from wikimem.ranking.explain import row_note  # noqa: E402


class SeaEmbedder:
    """Deterministic stand-in: one axis for the sea, one for everything else."""

    model = "sea-v1"

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, float(t.lower().count("sea") + t.lower().count("ocean"))] for t in texts]


def _store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path / "memory")
    # Sixty short items match "blue" better than the answer does: it is beyond BM25's pool of 50.
    for i in range(60):
        store.add("fill", f"f{i:02d}", f"blue {i}")
    store.add("trip", "asked", "which blue boat did we take on the blue water trip")
    store.add("trip", "answer", "the sea one, it was a long long long long long day out there, blue sky")
    store.add("trip", "after", "lunch")
    return store


def _fused(store: MemoryStore, context: bool) -> MemoryIndex:
    return MemoryIndex(store, use_jieba=False, analyzer="none", embedder=SeaEmbedder(), cos_floor=None,
                       context=context)


def test_a_candidate_only_the_vectors_brought_in_gets_its_context(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = _fused(store, True)
    why = index.why_not("blue boat trip ocean", "trip", "answer", limit=10, expand_links=False)
    assert why.pool == 50 and why.bm25_rank is not None and why.bm25_rank > 50  # a vector-only candidate
    result = index.retrieve("blue boat trip ocean", limit=10, expand_links=False, explain=True)
    assert result.embedding_used
    answer = next(e for e in result.items if e.item.name == "answer")
    assert answer.context_score > 0 and answer.context_via == "trip:asked"
    assert "context +" in row_note(answer)


def test_context_adds_exactly_its_own_share_to_the_fused_score(tmp_path: Path) -> None:
    store = _store(tmp_path)
    query = "blue boat trip ocean"
    without = {e.item.name: e.score for e in _fused(store, False).retrieve(query, limit=80, expand_links=False).items}
    with_context = _fused(store, True).retrieve(query, limit=80, expand_links=False).items
    assert any(e.context_score > 0 for e in with_context)
    for entry in with_context:
        # BM25's and cosine's fused share is what it was without context: context never dilutes them.
        assert entry.score == pytest.approx(without[entry.item.name] + entry.context_score)
