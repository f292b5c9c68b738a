"""The collector kept off a large store's long-lived heap (wikimem_tui/core/long_lived.py, ADR 0017)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from conftest import wait_for
from wikimem_tui.core import long_lived
from wikimem_tui.core.long_lived import LARGE, SLOW, LongLivedHeap


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gc.unfreeze()
    if was:
        gc.enable()


def test_a_small_store_pauses_the_collector_during_the_reads_and_freezes_nothing() -> None:
    heap = LongLivedHeap()
    heap.pause()
    assert not gc.isenabled()
    heap.settled(LARGE - 1)
    assert gc.isenabled() and heap.freezes == 0 and gc.get_freeze_count() == 0
    heap.close()
    assert gc.isenabled()


def test_a_large_store_freezes_what_the_reads_built_and_close_gives_it_back() -> None:
    heap = LongLivedHeap()
    heap.pause()
    kept = [[i] for i in range(1000)]  # long-lived containers, as the catalogue's link lists
    heap.settled(LARGE)
    assert gc.isenabled() and heap.freezes == 1
    assert gc.get_freeze_count() >= len(kept)
    heap.close()
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    assert heap._collected not in gc.callbacks


def test_a_collector_off_before_the_app_stays_off() -> None:
    gc.disable()
    heap = LongLivedHeap()
    heap.pause()
    heap.settled(0)
    assert not gc.isenabled()
    heap.close()
    assert not gc.isenabled()


def test_a_slow_collection_freezes_its_survivors_a_quick_one_does_not() -> None:
    now = [0.0]
    heap = LongLivedHeap(clock=lambda: now[0])
    heap.pause()
    heap.settled(LARGE)
    assert heap._collected in gc.callbacks
    frozen = heap.freezes
    for generation in (0, 1, 2):
        heap._collected("start", {"generation": generation})
        now[0] += SLOW / 2
        heap._collected("stop", {"generation": generation})
    assert heap.freezes == frozen
    for generation in (0, 2):  # a young one after the library's own pause, a full one after the heap grew
        heap._collected("start", {"generation": generation})
        now[0] += SLOW * 2
        heap._collected("stop", {"generation": generation})
    assert heap.freezes == frozen + 2
    heap.close()


def test_the_app_turns_the_collector_back_on_once_the_store_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the real App: the first reads pause it, the catalogue after the index settles it (a small store)."""
    import asyncio
    from pathlib import Path
    from tempfile import TemporaryDirectory

    from wikimem import MemoryIndex, MemoryStore
    from wikimem_tui.app import WikimemApp
    from wikimem_tui.core.backend import Backend

    settled: list[int] = []
    real = LongLivedHeap.settled
    monkeypatch.setattr(long_lived.LongLivedHeap, "settled", lambda self, items: settled.append(items) or real(self, items))

    async def run(root: Path) -> tuple[bool, bool]:
        store = MemoryStore(root)
        store.add("notes", "one", "coffee by the sea")
        store.add("notes", "two", "tea in the morning")
        backend = Backend(root=root, store=store, index=MemoryIndex(store, use_jieba=False), owner="t")
        app = WikimemApp(backend, watch=False, cursor_blink=False)
        async with app.run_test() as pilot:
            assert await wait_for(pilot, lambda: app.catalogue is not None and app.index_ready and settled)
            return gc.isenabled(), app.sync.heap.freezes == 0

    with TemporaryDirectory() as tmp:
        enabled, none_frozen = asyncio.run(run(Path(tmp)))
    assert settled == [2] and enabled and none_frozen
