"""SVG snapshots of the main screen and the query pane (80x24) and the tree / item / editor / help views (120x40).

Each test hands ``snap_compare`` an App instance over the pinned test memory
(fixed today and clock, no cursor blink, animations off) and waits for the
catalogue and index before the shot, so the picture never depends on timing.
"""

from __future__ import annotations

from conftest import make_app, open_item, ready, screen_text, wait_for
from wikimem_tui.common.messages import OpenDiaryDay
from wikimem_tui.query.query_panel import QueryPanel


def test_main_screen_80x24(backend, snap_compare) -> None:
    assert snap_compare(make_app(backend), terminal_size=(80, 24), run_before=ready)


def test_tree_and_item_view_120x40(backend, snap_compare) -> None:
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        await pilot.press("down", "enter", "down", "enter")  # people expanded, then preferences
        await open_item(pilot, "people", "Alice")

    assert snap_compare(make_app(backend), terminal_size=(120, 40), run_before=run_before)


def test_markup_content_shown_literally_120x40(backend, snap_compare) -> None:
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        await pilot.press("enter")  # expand "notes"
        await open_item(pilot, "notes", "[bold]loud[/bold]")

    assert snap_compare(make_app(backend), terminal_size=(120, 40), run_before=run_before)


def test_editor_120x40(backend, snap_compare) -> None:
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        await open_item(pilot, "preferences", "coffee")
        await pilot.press("e")
        await wait_for(pilot)

    assert snap_compare(make_app(backend), terminal_size=(120, 40), run_before=run_before)


def test_diary_day_in_item_view_120x40(backend, snap_compare) -> None:
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        pilot.app.post_message(OpenDiaryDay("2026-07-20", "18:00"))
        await wait_for(pilot)

    assert snap_compare(make_app(backend), terminal_size=(120, 40), run_before=run_before)


def test_help_screen_120x40(backend, snap_compare) -> None:
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        await pilot.press("f1")
        await wait_for(pilot)

    assert snap_compare(make_app(backend), terminal_size=(120, 40), run_before=run_before)


def test_query_results_80x24_tree_folded_away(backend, snap_compare) -> None:
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        pilot.app.query_one(QueryPanel).show_timing = False
        await pilot.press("slash", *"coffee")
        assert await wait_for(pilot, lambda: "preferences:coffee" in screen_text(pilot.app))

    assert snap_compare(make_app(backend), terminal_size=(80, 24), run_before=run_before)


def test_editor_with_hidden_characters_120x40(backend, memory_dir, snap_compare) -> None:
    from wikimem import MemoryStore

    MemoryStore(memory_dir).add("notes", "osc-title", "t \x1b]0;HOOK-PWNED\x07 \x1b[31mred\x1b[0m", owner="agent",
                                ts="2026-07-20T09:00:00+00:00")

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        await open_item(pilot, "notes", "osc-title")
        await pilot.press("e")
        assert await wait_for(pilot, lambda: "hidden characters" in screen_text(pilot.app))

    assert snap_compare(make_app(backend), terminal_size=(120, 40), run_before=run_before)


def test_delete_dialog_lists_backlinks_120x40(backend, snap_compare) -> None:
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        await open_item(pilot, "preferences", "coffee")
        await pilot.press("d")
        assert await wait_for(pilot, lambda: "their links will dangle" in screen_text(pilot.app))

    assert snap_compare(make_app(backend), terminal_size=(120, 40), run_before=run_before)
