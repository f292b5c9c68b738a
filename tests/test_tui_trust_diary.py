"""Issue 13, the diary in the app: a queue longer than the screen, same-minute entries, diary backlinks.

Each test drives the app (Pilot) and asserts what the user sees and what is
on disk afterwards.
"""

from __future__ import annotations

from pathlib import Path
from test_tui_reconcile import QueueApp, loaded, pane, queue_store, rows


async def test_the_queue_scrolls_past_the_visible_rows_without_crashing(tmp_path: Path) -> None:
    backend = queue_store(tmp_path)
    for minute in range(60):
        backend.store.diary.append(f"Entry number {minute}.", date="2026-07-10", time=f"10:{minute:02d}",
                                   owner="agent", ts="2026-07-10T08:00:00+00:00")
    async with QueueApp(backend).run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        view = pane(pilot.app).rows_view
        view.focus()
        await pilot.pause()
        await pilot.press(*["down"] * 30)  # 30 rows never fit in an 80x24 screen
        await pilot.pause()
        assert view.cursor == 30
        visible = view.scrollable_content_region.height
        top = round(view.scroll_y)
        assert 0 < visible < 30 and top > 0
        assert top <= view.cursor < top + visible  # the highlighted row is on screen
        await pilot.press("end")
        await pilot.pause()
        assert view.cursor == len(rows(pilot.app)) - 1
        assert round(view.scroll_y) + visible > view.cursor
        await pilot.press("home")
        await pilot.pause()
        assert (view.cursor, round(view.scroll_y)) == (0, 0)
        assert pilot.app.is_running

