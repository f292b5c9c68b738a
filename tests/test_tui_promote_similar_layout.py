"""Similar items that answer before the promote dialog is laid out are fitted to its width, not to 20 cells.

Seen in the capture screenshots: ``Replies in the lang…`` in a 90-cell list,
the answer having come while the list still had no width.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import wait_for
from test_tui_reconcile import QueueApp, loaded, pane, queue_store
from wikimem_tui.queue.promote import PromoteScreen

LONG = "Sandy beach by the harbour. The user swims there in the cold water."


async def test_an_answer_before_the_layout_waits_for_it(tmp_path: Path, monkeypatch: Any) -> None:
    def answer_at_once(self: PromoteScreen, text: str, lookup: int) -> None:  # no worker: before any layout
        result = self.index.retrieve(text, limit=5, expand_links=False)
        self._show_similar(list(result.items), "", lookup)

    monkeypatch.setattr(PromoteScreen, "_find_similar", answer_at_once)
    app = QueueApp(queue_store(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        pane(app).rows_view.focus()
        await pilot.press("down", "p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, PromoteScreen) and app.screen.similar_ready)
        await wait_for(pilot)
        prompts = [str(option.prompt) for option in app.screen.query_one("#rp-similar").options]
        assert any(LONG in prompt for prompt in prompts), prompts
