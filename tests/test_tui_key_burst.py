"""``f`` and the keys typed right after it arrive together in a real terminal: all go into the filter.

Pilot waits after each key, so the keys are queued first here, as a fast
typist or a paste delivers them (see ``wikimem_tui.common.key_gate``).
In the reconcile queue ``x`` marks the highlighted entry reviewed (a write)
and ``u`` takes a mark back; in the health pane ``r`` re-lints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events
from textual.widgets import Input

from conftest import make_app, make_backend, started, wait_for
from wikimem_tui.core.demo import make_demo_copy


async def burst(pilot: Any, keys: str) -> None:
    """Keys that arrive together: all queued before any is handled."""
    for key in keys:
        pilot.app.post_message(events.Key("space" if key == " " else key, key))
    await wait_for(pilot)


async def test_f_then_fast_typing_in_the_queue_fills_the_day_box_and_marks_nothing(tmp_path: Path) -> None:
    root = make_demo_copy(tmp_path)
    async with started(make_app(make_backend(root)), (120, 40)) as pilot:
        app = pilot.app
        await pilot.press("R")
        assert await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "queue-list")
        await burst(pilot, "fxu2026")
        days = app.query_one("ReconcilePane").filters.days_box
        assert await wait_for(pilot, lambda: app.focused is days and days.value == "xu2026")
    assert not (root / "reviewed.json").exists()  # x did not mark an entry reviewed


async def test_f_then_fast_typing_in_the_health_pane_fills_the_filter(tmp_path: Path) -> None:
    root = make_demo_copy(tmp_path)
    async with started(make_app(make_backend(root)), (120, 40)) as pilot:
        app = pilot.app
        await pilot.press("h")
        assert await wait_for(pilot, lambda: app.focused is not None and app.focused.id != "health-filter"
                              and "health" in str(app.focused.ancestors_with_self))
        await burst(pilot, "frevidence")
        box = app.query_one("#health-filter", Input)
        assert await wait_for(pilot, lambda: box.value == "revidence")
