"""Start-up: hidden panes mount after the first frame, the store is read after them, early keys wait."""

from __future__ import annotations

import asyncio

import pytest

from conftest import make_app, screen_text, wait_for
from wikimem_tui.common.startup import LazyPane
from wikimem_tui.query.query_panel import QueryPanel


@pytest.fixture
def held_panes(monkeypatch):  # type: ignore[no-untyped-def]
    """The hidden panes' mount waits until the test sets the returned event (the first frame is long past).

    In a task of its own: waiting inside the placeholder's handler would
    block its queue, and Pilot waits for every queue to drain.
    """
    release = asyncio.Event()
    mount = LazyPane._mount_pane
    tasks: list[asyncio.Task[None]] = []

    async def late(self):  # type: ignore[no-untyped-def]
        async def when_released() -> None:
            await release.wait()
            await mount(self)

        tasks.append(asyncio.get_running_loop().create_task(when_released()))

    monkeypatch.setattr(LazyPane, "_mount_pane", late)
    return release


async def test_the_first_frame_has_only_the_shown_pane_and_nothing_reads_the_store_before_the_rest(
    backend, held_panes
) -> None:
    app = make_app(backend)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: "Item" in screen_text(app), "the first frame")
        assert not app.query(QueryPanel) and not app.startup.done
        assert app.catalogue is None and not app.index_ready
        assert not [w for w in app.workers if w.group in ("catalogue", "index")]  # the store is not read yet
        held_panes.set()
        assert await wait_for(pilot, lambda: app.catalogue is not None and app.index_ready, "the store read")
        assert app.query_one(QueryPanel).is_attached


async def test_keys_typed_before_the_panes_are_mounted_reach_them_in_order(backend, held_panes) -> None:
    """``/coffee`` the moment the screen shows: the query pane did not exist yet (a NoMatches crash)."""
    app = make_app(backend)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("slash", *"coffee")
        assert not app.startup.done and not app.query(QueryPanel)
        held_panes.set()
        assert await wait_for(pilot, lambda: "preferences:coffee" in screen_text(app), "the early query answered")
        assert app.query_one("#query-input").value == "coffee"


async def test_a_pane_mounted_late_hears_the_catalogue_and_the_index_state(backend, held_panes) -> None:
    """The calendar takes the catalogue, the query pane says the index builds, then answers."""
    app = make_app(backend)
    async with app.run_test(size=(100, 30)) as pilot:
        held_panes.set()
        assert await wait_for(pilot, lambda: app.catalogue is not None and app.index_ready, "the store read")
        from wikimem_tui.calendar.calendar import DiaryCalendar

        assert app.query_one(DiaryCalendar).grid.counts == app.catalogue.diary_counts != {}
        await pilot.press("slash", *"tea")
        assert await wait_for(pilot, lambda: "preferences:tea" in screen_text(app), "the query answered")
