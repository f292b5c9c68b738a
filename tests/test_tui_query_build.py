"""A query typed while the index builds says how far the build is, and is answered the moment it is ready.

The build is held back at a known point by an index whose ``build`` reports
progress and then waits for the test, so what the pane says meanwhile is
observed, not raced.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from textual.widgets import Input

from conftest import NOW, SAFETY_NET, TODAY, make_app, wait_for
from wikimem import MemoryIndex, MemoryStore
from wikimem_tui.core.backend import Backend
from wikimem_tui.query.query_panel import QueryPanel


class HeldIndex(MemoryIndex):
    """A real index whose first build stops at 1 of 4 files until ``release`` is set."""

    def __init__(self, store: MemoryStore) -> None:
        super().__init__(store, use_jieba=False)
        self.release = threading.Event()
        self.held = threading.Event()

    def build(self, progress: Any = None) -> None:
        if progress is not None and not self.release.is_set():
            progress(1, 4)
            self.held.set()
            assert self.release.wait(SAFETY_NET), "the test never released the build"
        super().build(progress)


def status(app: Any) -> str:
    return str(app.query_one("#query-status").render())


async def test_a_query_typed_during_the_build_waits_with_progress_then_is_answered(memory_dir: Path) -> None:
    store = MemoryStore(memory_dir)
    index = HeldIndex(store)
    backend = Backend(root=memory_dir, store=store, index=index, owner="tui:test", clock=lambda: NOW,
                      today=lambda: TODAY)
    app = make_app(backend)
    async with app.run_test(size=(120, 40)) as pilot:
        assert await wait_for(pilot, index.held.is_set)
        await pilot.press("slash")
        # Not "the app is quiet": the held build keeps its worker busy on purpose.
        await wait_for(pilot, lambda: app.focused is app.query_one("#query-input"), "the query box's focus")
        app.query_one("#query-input", Input).value = "coffee"
        panel = app.query_one(QueryPanel)
        assert await wait_for(pilot, lambda: "waiting for the index (25%)" in status(app))
        assert panel.last_result is None and "index: building 25%" in str(app.query_one("#status").render())
        index.release.set()
        assert await wait_for(pilot, lambda: panel.last_result is not None)
        assert ("preferences", "coffee") in [(e.item.file, e.item.name) for e in panel.last_result.items]
        assert await wait_for(pilot, lambda: status(app).endswith(" ms"))  # the answer replaced "waiting"
