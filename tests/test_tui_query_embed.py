"""Embeddings in the app: the cost is shown before they start, the sync runs in a worker, queries never wait for it.

Every test runs the real ``WikimemApp`` over a real ``MemoryIndex`` built as
``wikimem-tui`` builds it (``make_index``: ``vector_sync="manual"``), with a
fake embedder whose cost is scripted (``estimate_seconds``) and whose
batches can be held back, so progress and pausing are observed, not slept
through.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("numpy")

from conftest import NOW, SAFETY_NET, TODAY, make_app, record_toasts, wait_for  # noqa: E402
from wikimem import MemoryStore  # noqa: E402
from wikimem.vectors import VectorCache  # noqa: E402
from wikimem_tui.__main__ import make_index  # noqa: E402
from wikimem_tui.core.backend import Backend  # noqa: E402
from wikimem_tui.query.embed_plan import EmbedPlanScreen  # noqa: E402
from wikimem_tui.query.embed import EmbedStatus  # noqa: E402
from wikimem_tui.query.query_panel import QueryPanel  # noqa: E402

_CONCEPTS = [("sea", "beach", "ocean", "海"), ("coffee", "咖啡"), ("tea", "茶")]


class ScriptedEmbedder:
    """Concept vectors; ``seconds_per_text`` is its cost estimate; ``gate`` holds each batch back."""

    model = "concept-test"

    def __init__(self, seconds_per_text: float = 60.0) -> None:
        self.seconds_per_text = seconds_per_text
        self.texts: list[str] = []
        self.gate: threading.Semaphore | None = None
        self.fail: Exception | None = None
        self.batches_started = 0
        """Item batches that reached ``embed`` (with a gate: the last one may be held there)."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        if self.fail is not None:
            raise self.fail
        if any("\n" in t for t in texts):  # item texts, not a query
            self.batches_started += 1
            if self.gate is not None:
                assert self.gate.acquire(timeout=SAFETY_NET), "the test never let this batch through"
        self.texts.extend(texts)
        return [[0.1] + [float(sum(t.lower().count(w) for w in words)) for words in _CONCEPTS] for t in texts]

    def estimate_seconds(self, texts: list[str]) -> float:
        return self.seconds_per_text * len(texts)

    @property
    def items_embedded(self) -> list[str]:
        """Embedded item texts (``name\\ncontent``), not queries."""
        return [t for t in self.texts if "\n" in t]


def fill(root: Path, n_extra: int = 0) -> None:
    store = MemoryStore(root)
    store.add("places", "seaside", "A house by the sea.", ts="2026-07-20T09:00:00+00:00")
    store.add("drinks", "coffee", "Flat white, no sugar.", ts="2026-07-20T09:00:00+00:00")
    store.add("drinks", "tea", "Jasmine tea in the afternoon.", ts="2026-07-20T09:00:00+00:00")
    for i in range(n_extra):
        store.add("misc", f"note-{i}", f"Note number {i} about nothing.", ts="2026-07-20T09:00:00+00:00")


def embed_app(root: Path, embedder: ScriptedEmbedder, *, read_only: bool = False) -> Any:
    store = MemoryStore(root)
    index = make_index(store, root, embedder=embedder, use_jieba=False, read_only=read_only)
    backend = Backend(root=root, store=store, index=index, owner="tui:test", read_only=read_only,
                      clock=lambda: NOW, today=lambda: TODAY, embedder=embedder, embed_label="test")
    return make_app(backend)


def embed_state(app: Any) -> EmbedStatus | SimpleNamespace:
    """The query pane's EmbedStatus; until the pane is mounted (after the first frame) a stand-in saying so."""
    panels = app.query(QueryPanel)
    if not panels:
        return SimpleNamespace(state="the query pane is not mounted yet", plan=None)
    embed = panels.first().embed_status
    assert embed is not None
    return embed


def summary(app: Any) -> str:
    return str(app.query_one("#query-summary").render())


def status_line(app: Any) -> str:
    return str(app.query_one("#status").render())


async def ask_query(pilot: Any, text: str) -> None:
    await pilot.press("slash")
    # Not "the app is quiet": a held sync keeps its worker busy on purpose.
    await wait_for(pilot, lambda: pilot.app.focused is pilot.app.query_one("#query-input"), "the query box's focus")
    pilot.app.query_one("#query-input").value = text
    pilot.app.query_one(QueryPanel).run_query()


async def plan_dialog(pilot: Any) -> EmbedPlanScreen:
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, EmbedPlanScreen), "the cost dialog")
    await wait_for(pilot)
    return pilot.app.screen


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    root.mkdir()
    fill(root)
    return root


async def test_the_cost_is_shown_before_anything_is_embedded(root: Path) -> None:
    embedder = ScriptedEmbedder(seconds_per_text=20)
    async with embed_app(root, embedder).run_test(size=(120, 40)) as pilot:
        screen = await plan_dialog(pilot)
        text = " ".join(str(s.render()) for s in screen.query("Static"))
        assert "3 items to embed (0 reused), about 60 s" in text
        assert "Embeddings: concept-test" in text
        assert embedder.items_embedded == []
        assert not VectorCache(root).keys_path.exists()


async def test_bm25_only_for_now_embeds_nothing_and_queries_say_why(root: Path) -> None:
    embedder = ScriptedEmbedder()
    app = embed_app(root, embedder)
    async with app.run_test(size=(120, 40)) as pilot:
        await plan_dialog(pilot)
        await pilot.press("b")
        assert await wait_for(pilot, lambda: embed_state(app).state == "deferred")
        await ask_query(pilot, "ocean house")
        assert await wait_for(pilot, lambda: "ranking:" in summary(app))
        result = app.query_one(QueryPanel).last_result
        assert result is not None and not result.embedding_used
        assert ("ranking: BM25 (embedding: BM25 only for now: 3 items not embedded; E embeds them)"
                in summary(app))
        assert "BM25 only for now" in status_line(app)
        assert embedder.items_embedded == []  # the first query did not embed the store


@pytest.fixture()
def held(monkeypatch: pytest.MonkeyPatch) -> ScriptedEmbedder:
    """An embedder whose batches (one text each) wait for the test: progress is watched batch by batch."""
    import wikimem_tui.query.embed as query_embed

    monkeypatch.setattr(query_embed, "BATCH", 1)
    embedder = ScriptedEmbedder()
    embedder.gate = threading.Semaphore(0)
    return embedder


async def start_now(pilot: Any) -> None:
    """Answer the cost dialog with "start now"; the sync is then running (its batches held)."""
    await plan_dialog(pilot)
    await pilot.press("s")
    assert await wait_for(pilot, lambda: embed_state(pilot.app).state == "syncing")


async def test_start_now_syncs_in_a_worker_with_progress_and_then_queries_fuse(root: Path, held: ScriptedEmbedder) -> None:
    embedder = held
    app = embed_app(root, embedder)
    async with app.run_test(size=(120, 40)) as pilot:
        await start_now(pilot)
        await ask_query(pilot, "ocean")  # answered while the sync is held back: BM25 only, says so
        assert await wait_for(pilot, lambda: "not ready: embedding 0% (0/3)" in summary(app))
        embedder.gate.release()
        assert await wait_for(pilot, lambda: "embedding 33% (1/3)" in status_line(app))
        embedder.gate.release(2)
        assert await wait_for(pilot, lambda: embed_state(app).state == "ready")
        assert await wait_for(pilot, lambda: "ranking: BM25 + cosine (fused)" in summary(app))
        rows = app.query_one(QueryPanel).last_result.items
        assert rows[0].item.name == "seaside" and rows[0].bm25_score == 0.0  # found by meaning alone
        assert await wait_for(pilot, lambda: "embed test · on" in status_line(app))
    assert len(VectorCache(root).load()[0]) == 3


async def test_e_pauses_the_sync_keeps_its_rows_and_the_next_start_resumes(root: Path, held: ScriptedEmbedder) -> None:
    embedder = held
    app = embed_app(root, embedder)
    async with app.run_test(size=(120, 40)) as pilot:
        await start_now(pilot)
        embedder.gate.release()
        assert await wait_for(pilot, lambda: "(1/3)" in status_line(app))
        # "(1/3)" is drawn before the worker asks for batch 2: E pressed in between pauses at 1/3.
        assert await wait_for(pilot, lambda: embedder.batches_started == 2, "the second batch to be in flight")
        app.query_one("#topic-tree").focus()
        await pilot.press("E")
        embedder.gate.release()  # the batch in flight finishes; no further batch starts
        assert await wait_for(pilot, lambda: embed_state(app).state == "paused")
        assert "paused at 2/3" in status_line(app)
        await ask_query(pilot, "ocean")
        assert await wait_for(pilot, lambda: "ranking: BM25 (embedding: paused at 2 of 3; E resumes)" in summary(app))
    assert len(VectorCache(root).load()[0]) == 2 and len(embedder.items_embedded) == 2

    again = ScriptedEmbedder(seconds_per_text=1)  # 1 text left: small, starts without asking
    app = embed_app(root, again)
    async with app.run_test(size=(120, 40)) as pilot:
        assert await wait_for(pilot, lambda: embed_state(app).state == "ready")
        assert embed_state(app).plan.reused == 2
    assert len(again.items_embedded) == 1


async def test_a_small_sync_starts_by_itself_and_says_so(root: Path) -> None:
    embedder = ScriptedEmbedder(seconds_per_text=0.5)
    app = embed_app(root, embedder)
    async with app.run_test(size=(120, 40)) as pilot:
        assert await wait_for(pilot, lambda: embed_state(app).state == "ready")
        assert not isinstance(app.screen, EmbedPlanScreen)
        assert "embeddings: on" in str(embed_state(app).render())


async def test_a_failing_embedder_is_reported_and_queries_stay_on_bm25(root: Path) -> None:
    embedder = ScriptedEmbedder(seconds_per_text=0.5)
    embedder.fail = ConnectionError("endpoint unreachable")
    app = embed_app(root, embedder)
    async with app.run_test(size=(120, 40)) as pilot:
        assert await wait_for(pilot, lambda: embed_state(app).state == "failed")
        await ask_query(pilot, "tea")
        assert await wait_for(pilot, lambda: "ranking:" in summary(app))
        assert "ranking: BM25 (embedding: failed: ConnectionError: endpoint unreachable; E retries)" in summary(app)
        assert [r.item.name for r in app.query_one(QueryPanel).last_result.items] == ["tea"]


async def test_an_embedder_failing_on_one_query_after_the_sync_is_flagged(root: Path) -> None:
    embedder = ScriptedEmbedder(seconds_per_text=0.5)
    app = embed_app(root, embedder)
    async with app.run_test(size=(120, 40)) as pilot:
        assert await wait_for(pilot, lambda: embed_state(app).state == "ready")
        embedder.fail = ConnectionError("down")
        await ask_query(pilot, "tea")
        assert await wait_for(pilot, lambda: "ranking:" in summary(app))
        assert "ranking: BM25 (embedding: failed for this query, BM25 only)" in summary(app)


async def test_an_item_the_app_writes_is_embedded_by_the_worker_not_by_a_query(root: Path) -> None:
    embedder = ScriptedEmbedder(seconds_per_text=0.5)
    app = embed_app(root, embedder)
    async with app.run_test(size=(120, 40)) as pilot:
        assert await wait_for(pilot, lambda: embed_state(app).state == "ready")
        app.backend.save("drinks", "cocoa", "Hot cocoa by the ocean.", expected=None)
        assert await wait_for(pilot, lambda: "cocoa\nHot cocoa by the ocean." in embedder.items_embedded)
        assert await wait_for(pilot, lambda: embed_state(app).state == "ready")
        assert len(embedder.items_embedded) == 4


async def test_e_without_embeddings_says_how_to_turn_them_on(tmp_path: Path) -> None:
    from conftest import make_backend

    root = tmp_path / "memory"
    root.mkdir()
    fill(root)
    app = make_app(make_backend(root))
    async with app.run_test(size=(120, 40)) as pilot:
        said = record_toasts(app)
        app.query_one("#topic-tree").focus()
        await pilot.press("E")
        assert await wait_for(pilot, lambda: bool(said))
        assert "--embed local" in said[0]


# -- read-only: vectors in memory only --------------------------------------------------------------


def tree_bytes(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))}


async def test_read_only_embeds_in_memory_and_leaves_the_directory_byte_identical(root: Path) -> None:
    before = tree_bytes(root)
    embedder = ScriptedEmbedder()
    app = embed_app(root, embedder, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await plan_dialog(pilot)
        text = " ".join(str(s.render()) for s in screen.query("Static"))
        assert "kept in memory only" in text
        await pilot.press("s")
        assert await wait_for(pilot, lambda: embed_state(app).state == "ready")
        await ask_query(pilot, "ocean")
        assert await wait_for(pilot, lambda: "ranking: BM25 + cosine (fused)" in summary(app))
    assert tree_bytes(root) == before


def test_the_app_builds_its_index_so_that_queries_never_embed_and_read_only_never_writes(root: Path) -> None:
    store = MemoryStore(root)
    index = make_index(store, root, embedder=ScriptedEmbedder(), use_jieba=False, read_only=True)
    assert (index.vector_sync, index.vector_cache) == ("manual", "read")
    index = make_index(store, root, embedder=ScriptedEmbedder(), use_jieba=False, read_only=False)
    assert (index.vector_sync, index.vector_cache) == ("manual", "readwrite")
