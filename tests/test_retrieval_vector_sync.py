"""Who embeds the wiki: ``vector_sync="manual"`` leaves it to the caller, and ``vector_cache="read"`` writes nothing."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

pytest.importorskip("numpy")

from wikimem import MemoryIndex, MemoryStore  # noqa: E402
from wikimem.vectors import SyncCancelled, VectorCache  # noqa: E402

_CONCEPTS = [("海", "sea", "beach", "ocean"), ("咖啡", "coffee"), ("茶", "tea"), ("work", "job")]


class CountingEmbedder:
    """Texts sharing a concept point the same way; every embedded text is recorded."""

    def __init__(self, model: str = "concept-v1") -> None:
        self.model = model
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return [[0.1] + [float(sum(t.lower().count(w) for w in words)) for words in _CONCEPTS] for t in texts]


@pytest.fixture()
def store(tmp_path: Path) -> MemoryStore:
    root = tmp_path / "memory"
    root.mkdir()
    store = MemoryStore(root)
    store.add("prefs", "likes-the-sea", "喜欢海边，想去海边玩。")
    store.add("prefs", "coffee", "只喝手冲咖啡。")
    store.add("work", "job", "Robotics company, busy weeks.")
    return store


def manual(store: MemoryStore, embedder: CountingEmbedder, **kwargs: object) -> MemoryIndex:
    return MemoryIndex(store, use_jieba=False, embedder=embedder, vector_sync="manual", **kwargs)  # type: ignore[arg-type]


def tree_bytes(root: Path) -> dict[str, str]:
    """Every file under ``root`` by path, with a hash of its bytes (and every directory)."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        out[rel] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def test_manual_first_query_embeds_no_item_and_ranks_bm25_only(store: MemoryStore) -> None:
    embedder = CountingEmbedder()
    index = manual(store, embedder)
    result = index.retrieve("咖啡 coffee")
    assert not result.embedding_used
    assert embedder.texts == []
    assert [e.item.name for e in result.items] == ["coffee"]
    status = index.vector_status()
    assert status is not None and (status.embedded, status.total, status.ready) == (0, 3, False)
    assert not VectorCache(store.root).keys_path.exists()


def test_plan_says_what_a_sync_would_embed_without_writing(store: MemoryStore) -> None:
    embedder = CountingEmbedder()
    index = manual(store, embedder)
    plan = index.plan_vectors()
    assert (plan.entries, plan.to_embed, plan.reused) == (3, 3, 0)
    assert embedder.texts == [] and not VectorCache(store.root).keys_path.exists()


def test_sync_makes_queries_fuse_and_they_embed_only_the_query(store: MemoryStore) -> None:
    embedder = CountingEmbedder()
    index = manual(store, embedder)
    seen: list[tuple[int, int]] = []
    status = index.sync_vectors(progress=lambda done, total: seen.append((done, total)))
    assert status is not None and status.ready and status.embedded == status.total == 3
    assert len(embedder.texts) == 3 and seen[-1] == (3, 3)
    result = index.retrieve("ocean holiday")
    assert result.embedding_used and result.items[0].item.name == "likes-the-sea"
    assert embedder.texts[3:] == ["ocean holiday"]


def test_cancelled_sync_keeps_its_rows_stays_bm25_and_the_next_sync_resumes(store: MemoryStore) -> None:
    embedder = CountingEmbedder()
    index = manual(store, embedder)
    batches = [0]

    def stop() -> bool:
        batches[0] += 1
        return batches[0] > 1  # one batch, then stop

    with pytest.raises(SyncCancelled):
        index.sync_vectors(should_stop=stop, batch_size=1)
    assert len(embedder.texts) == 1
    status = index.vector_status()
    assert status is not None and (status.embedded, status.ready) == (1, False)
    assert not index.retrieve("ocean").embedding_used
    assert len(VectorCache(store.root).load()[0]) == 1  # the partial cache is valid
    index.sync_vectors()
    assert len(embedder.texts) == 3  # the two it lacked, not all three again
    assert index.retrieve("ocean").embedding_used


def test_an_item_written_after_the_sync_waits_for_the_next_one(store: MemoryStore) -> None:
    embedder = CountingEmbedder()
    index = manual(store, embedder)
    index.sync_vectors()
    store.add("prefs", "tea", "jasmine tea 茶")
    before = len(embedder.texts)
    result = index.retrieve("tea")
    assert embedder.texts[before:] == ["tea"]  # the query only: the new item is not embedded by a query
    assert result.embedding_used
    tea = next(e for e in result.items if e.item.name == "tea")
    assert tea.cos_score is None and tea.bm25_score > 0
    status = index.vector_status()
    assert status is not None and status.missing == 1 and status.ready
    plan = index.plan_vectors()
    assert (plan.to_embed, plan.reused) == (1, 3)
    index.sync_vectors()
    assert embedder.texts[-1] == "tea\njasmine tea 茶"
    tea = next(e for e in index.retrieve("tea").items if e.item.name == "tea")
    assert tea.cos_score is not None and tea.cos_score > 0.9


def test_a_complete_cache_from_an_earlier_run_is_used_at_once(store: MemoryStore) -> None:
    manual(store, CountingEmbedder()).sync_vectors()
    embedder = CountingEmbedder()
    index = manual(store, embedder)
    result = index.retrieve("ocean")
    assert result.embedding_used and embedder.texts == ["ocean"]


def test_a_partial_cache_from_an_earlier_run_is_not_used_until_synced(store: MemoryStore) -> None:
    VectorCache(store.root).sync([(("prefs", "coffee"), "coffee\n只喝手冲咖啡。")], CountingEmbedder())
    embedder = CountingEmbedder()
    index = manual(store, embedder)
    assert not index.retrieve("ocean").embedding_used and embedder.texts == []
    assert index.plan_vectors().to_embed == 2


def test_cache_of_another_model_is_reported_and_replaced_only_by_an_explicit_sync(store: MemoryStore) -> None:
    manual(store, CountingEmbedder("old-model")).sync_vectors()
    embedder = CountingEmbedder("new-model")
    index = manual(store, embedder)
    status = index.vector_status()
    assert status is not None and status.mismatch is not None and not status.ready
    assert not index.retrieve("ocean").embedding_used and embedder.texts == []
    plan = index.plan_vectors()
    assert plan.mismatch is not None and plan.to_embed == 3
    index.sync_vectors()
    assert VectorCache(store.root).header()["model"] == "new-model"
    assert index.retrieve("ocean").embedding_used


def test_query_mode_is_unchanged_the_first_query_embeds_the_store(store: MemoryStore) -> None:
    embedder = CountingEmbedder()
    index = MemoryIndex(store, use_jieba=False, embedder=embedder)
    assert index.retrieve("ocean").embedding_used
    assert len(embedder.texts) == 4  # three items and the query


def test_bad_modes_are_refused(store: MemoryStore) -> None:
    with pytest.raises(ValueError):
        MemoryIndex(store, embedder=CountingEmbedder(), vector_sync="never")
    with pytest.raises(ValueError):
        MemoryIndex(store, embedder=CountingEmbedder(), vector_cache="write-only")


def test_without_an_embedder_there_is_nothing_to_plan_or_sync(store: MemoryStore) -> None:
    index = MemoryIndex(store, use_jieba=False, vector_sync="manual")
    assert index.plan_vectors() is None and index.sync_vectors() is None and index.vector_status() is None


# -- read-only: vectors in memory only ------------------------------------------------------------


def test_read_only_cache_embeds_in_memory_and_leaves_the_directory_byte_identical(store: MemoryStore) -> None:
    store.diary.append("去了海边看日落", date="2026-07-21", time="18:00")
    before = tree_bytes(store.root)
    embedder = CountingEmbedder()
    index = manual(store, embedder, vector_cache="read")
    assert index.plan_vectors().to_embed == 3
    status = index.sync_vectors()
    assert status is not None and status.ready and not status.persist
    result = index.retrieve("ocean", time_range=("2026-07-21", "2026-07-21"))
    assert result.embedding_used
    diary = [e for e in result.items if e.item.file == "2026-07-21"]
    assert diary and diary[0].cos_score is not None and diary[0].cos_score > 0.9
    store_write_free = tree_bytes(store.root)
    assert store_write_free == before


def test_read_only_reuses_the_cache_on_disk_and_never_touches_it(store: MemoryStore) -> None:
    manual(store, CountingEmbedder()).sync_vectors()
    store.add("prefs", "tea", "jasmine tea")  # one item the cache lacks
    before = tree_bytes(store.root)
    embedder = CountingEmbedder()
    index = manual(store, embedder, vector_cache="read")
    plan = index.plan_vectors()
    assert (plan.to_embed, plan.reused) == (1, 3)
    index.sync_vectors()
    assert embedder.texts == ["tea\njasmine tea"]
    assert index.retrieve("茶 tea").embedding_used
    assert tree_bytes(store.root) == before


def test_read_only_query_mode_also_writes_nothing(store: MemoryStore) -> None:
    before = tree_bytes(store.root)
    index = MemoryIndex(store, use_jieba=False, embedder=CountingEmbedder(), vector_cache="read")
    assert index.retrieve("ocean").embedding_used
    assert tree_bytes(store.root) == before


def test_cos_floor_can_be_changed_on_a_live_index(store: MemoryStore) -> None:
    index = manual(store, CountingEmbedder())
    index.set_cos_floor(0.5)
    assert (index.cos_floor, index.cos_floor_source) == (0.5, "explicit")
    index.set_cos_floor(None)
    assert (index.cos_floor, index.cos_floor_source) == (None, "off")
    with pytest.raises(ValueError):
        index.set_cos_floor(3.0)
    assert (index.cos_floor, index.cos_floor_source) == (None, "off")


def test_a_replacement_index_shares_the_in_memory_vectors(store: MemoryStore) -> None:
    embedder = CountingEmbedder()
    old = manual(store, embedder, vector_cache="read")
    old.sync_vectors()
    new = MemoryIndex(store, use_jieba=False, embedder=embedder, vector_sync="manual", vector_cache="read")
    new.share_vectors(old)
    assert new.plan_vectors().to_embed == 0
    assert new.retrieve("ocean").embedding_used
    assert len(embedder.texts) == 4  # three items once, then the query
