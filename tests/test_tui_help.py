"""F1: the keys of where you are first (widget, pane, screen), then the ones that work everywhere.

The sections are read from the help screen the user sees (``HelpScreen.sections``,
the same rows its tables draw).
"""

from __future__ import annotations

import math
from pathlib import Path

from conftest import make_app, open_item, screen_text, started, wait_for
from wikimem_tui.common.help import HelpScreen, HelpSection


def sections(app) -> list[HelpSection]:  # type: ignore[no-untyped-def]
    assert isinstance(app.screen, HelpScreen)
    return app.screen.sections


def rows(section: HelpSection) -> dict[str, tuple[str, str]]:
    """description -> (keys, binding id)."""
    return {description: (keys, binding_id) for keys, description, binding_id, _ in section.rows}


async def press_help(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("f1")
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))


async def test_help_in_the_tree_starts_with_the_tree_and_ends_with_the_global_keys(backend) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await press_help(pilot)
        found = sections(pilot.app)
        assert found[0].title == "Topic tree" and rows(found[0])["Filter"] == ("f", "tree.filter")
        assert "starts the filter" in found[0].note
        assert found[-1].title == "Everywhere"
        everywhere = rows(found[-1])
        assert everywhere["Quit"][0].endswith("q") and everywhere["Help"] == ("f1 / ?", "help")
        assert everywhere["Go to"] == ("g", "goto") and everywhere["Delete"] == ("d", "delete")


async def test_help_in_the_query_box_lists_escape_and_copy_first(backend) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await pilot.press("slash")
        await press_help(pilot)
        found = sections(pilot.app)
        assert found[0].title == "Query pane"
        assert rows(found[0])["Query → results"] == ("esc", "query.toggle-focus")
        assert rows(found[0])["Copy result"] == ("^y", "query.copy")
        # Letters type into the box there, so the letter commands are not offered.
        assert "Delete" not in rows(found[-1]) and "Help" in rows(found[-1])


async def test_help_in_the_filter_box_lists_its_keys(backend) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await pilot.press("f", "x")
        await press_help(pilot)
        found = sections(pilot.app)
        assert [s.title for s in found[:2]] == ["Tree filter", "Topic tree"]
        assert rows(found[0])["Next match"][0] == "↓" and rows(found[0])["Previous match"][0] == "↑"
        assert rows(found[1])["Clear filter"][0] == "esc"


async def test_help_in_the_calendar_lists_its_day_keys(backend) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await pilot.press("c")
        await press_help(pilot)
        titles = [s.title for s in sections(pilot.app)]
        assert titles[:2] == ["Month grid", "Diary calendar"]
        calendar = rows(sections(pilot.app)[1])
        assert calendar["Today"] == (".", "calendar.today") and calendar["Next entry day"] == ("]", "calendar.next-entry-day")


async def test_help_on_the_conflict_screen_lists_its_choices(backend) -> None:
    from wikimem_tui.item.conflict import ConflictScreen

    async with started(make_app(backend), (120, 40)) as pilot:
        await open_item(pilot, "preferences", "tea")
        pilot.app.push_screen(ConflictScreen("preferences", "tea", "mine", "disk", cursor_blink=False))
        await wait_for(pilot)
        await press_help(pilot)
        every_row = {d: k for s in sections(pilot.app) for d, k in rows(s).items()}
        assert every_row["Keep mine"] == ("^k", "conflict.keep") and every_row["Take disk"] == ("^t", "conflict.disk")


async def test_help_shows_remapped_keys(backend, tmp_path: Path) -> None:
    config = tmp_path / "keymap.toml"
    config.write_text('[keymap]\ngoto = "ctrl+o"\n', encoding="utf-8")
    async with started(make_app(backend, config=config), (120, 40)) as pilot:
        await press_help(pilot)
        assert rows(sections(pilot.app)[-1])["Go to"] == ("^o", "goto")


async def test_help_closes_with_escape(backend) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await press_help(pilot)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: not isinstance(pilot.app.screen, HelpScreen))


async def test_the_footer_shows_quit_and_help_first_at_80_columns(backend) -> None:
    async with started(make_app(backend), (80, 24)) as pilot:
        await pilot.press("c")  # the calendar's own keys would come first in Textual's order
        await wait_for(pilot)
        keys = list(pilot.app.query("FooterKey"))
        assert [(k.key, k.description) for k in keys[:2]] == [("q", "Quit"), ("f1", "Help")]  # type: ignore[attr-defined]
        assert all(k.region.right <= 80 and k.region.width > 0 for k in keys[:2])
        assert ("pagedown", "Next month") in [(k.key, k.description) for k in keys]  # type: ignore[attr-defined]


async def test_a_toast_is_not_drawn_over_the_help_and_shows_again_when_it_closes(backend) -> None:
    notice = "demo: a temporary copy in /tmp/x/memory (removed when you quit)"
    async with started(make_app(backend), (100, 30), notifications=True) as pilot:
        pilot.app.notify(notice, markup=False, timeout=math.inf)  # as `--demo` says at start-up, but kept: a timed toast could expire under load before help closes
        assert await wait_for(pilot, lambda: "demo: a temporary copy" in screen_text(pilot.app))
        await press_help(pilot)
        assert "Topic tree" in screen_text(pilot.app)
        assert "demo: a temporary copy" not in screen_text(pilot.app)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: "demo: a temporary copy" in screen_text(pilot.app))
