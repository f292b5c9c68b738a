"""The tests' own waiting and reading helpers (tests/app_waits.py) do what the suite relies on under load.

Each check here is an event, never a time: a reading of the screen that
must leave the app's picture alone, a settle that must outlast a changing
picture, a safety net already reached (0 s) that must fail saying so.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

import app_waits
from conftest import make_app, open_item, ready, wait_for
from wikimem_tui.common.confirm import ConfirmScreen


async def test_reading_the_screen_leaves_a_dialogs_background_as_the_app_paints_it(backend) -> None:  # type: ignore[no-untyped-def]
    """The delete dialog snapshot's failure, made certain: a read right after a refresh renders first.

    Read without the app's screen stack, the dialog's translucent background
    rendered over nothing, that render was cached, and the next screenshot
    showed the dialog on a blank screen (tree, item and footer gone).
    """
    async with make_app(backend).run_test(size=(120, 40)) as pilot:
        app = pilot.app
        await ready(pilot)
        await open_item(pilot, "preferences", "coffee")
        await pilot.press("d")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await wait_for(pilot)
        app.screen.refresh()  # what any repaint does: the next render, the test's or the app's, is cached
        text = app_waits.screen_text(app)
        assert "their links will dangle" in text and "Backlinks" in text  # the dialog over the item it deletes
        await pilot.pause()
        shot = app.export_screenshot()
        assert "Backlinks" in shot and "Delete" in shot  # the screenshot still has the screen beneath the dialog


class _Tiny(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("still", id="word")


async def test_settled_waits_until_two_pictures_in_a_row_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    pictures = iter(["first", "second", "third", "third"])
    seen: list[str] = []

    def frame(app: Any) -> str:  # noqa: ANN401
        seen.append(next(pictures))
        return seen[-1]

    monkeypatch.setattr(app_waits, "frame", frame)
    async with _Tiny().run_test() as pilot:
        assert await app_waits.settled(pilot)
    assert seen == ["first", "second", "third", "third"]  # not before the picture stopped changing


async def test_settled_fails_saying_so_when_the_picture_keeps_changing(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = itertools.count()
    monkeypatch.setattr(app_waits, "frame", lambda app: next(counter))
    async with _Tiny().run_test() as pilot:
        with pytest.raises(AssertionError, match="picture to settle: it kept changing"):
            await app_waits.settled(pilot, safety_net=0.0)  # a bound already reached: the failure is certain


async def test_a_running_animation_keeps_the_app_busy_until_it_ends() -> None:
    async with _Tiny().run_test() as pilot:
        word = pilot.app.query_one("#word", Static)
        word.styles.animate("opacity", 0.0, duration=0.5)
        assert "an animation is running or scheduled" in app_waits.busy(pilot.app)
        assert await wait_for(pilot)  # the app quiet: the animation done
        assert word.styles.opacity == 0.0 and not app_waits.busy(pilot.app)
