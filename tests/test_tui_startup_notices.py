"""Start-up notices (the demo copy, read-only) give way to the first key; the status line keeps them.

`wikimem-tui --demo` then `c` at once: the demo's 12-second toast sat over the
calendar's month title (top right, where every pane has its title or filter).
"""

from __future__ import annotations

import math
import re

from conftest import make_app, make_backend, notices, screen_text, started, wait_for

DEMO = "demo: a temporary copy in /tmp/wikimem-demo-x/memory (removed when you quit)"


def demo_app(backend):  # type: ignore[no-untyped-def]
    """The app as `wikimem-tui --demo` starts it (``__main__._run``)."""
    app = make_app(backend)
    app.notices.timeout = math.inf  # only a key takes it away: a timed notice could expire under load mid-test
    app.status_tag = "demo copy"
    app.notices.show(DEMO)
    return app


def status(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.query_one("#status").render())


async def test_the_first_key_takes_the_demo_notice_away_and_the_calendar_title_is_whole(backend) -> None:
    async with started(demo_app(backend), (100, 30), notifications=True) as pilot:
        app = pilot.app
        assert await wait_for(pilot, lambda: "demo: a temporary copy" in screen_text(app), "the demo notice")
        assert "(demo copy)" in status(app)
        await pilot.press("c")
        assert await wait_for(pilot, lambda: app.query_one("#panes").active == "tab-calendar", "the calendar")
        await wait_for(pilot)
        text = screen_text(app)
        assert "demo: a temporary copy" not in text and DEMO not in notices(app)
        assert re.search(r"‹ +July 2026 +›", text), "the month title, both arrows included, is not covered"
        assert "(demo copy)" in status(app)  # what the notice said stays where it covers nothing


async def test_other_toasts_outlive_the_first_key(backend) -> None:
    async with started(demo_app(backend), (100, 30), notifications=True) as pilot:
        app = pilot.app
        assert await wait_for(pilot, lambda: DEMO in notices(app), "the demo notice")
        app.notify("a write's result", markup=False)
        assert await wait_for(pilot, lambda: "a write's result" in notices(app), "the other toast")
        await pilot.press("j")
        assert await wait_for(pilot, lambda: DEMO not in notices(app), "the demo notice gone")
        assert "a write's result" in notices(app)
        app.notices.show("shown after the first key")  # an ordinary toast then: no key takes it
        assert await wait_for(pilot, lambda: "shown after the first key" in notices(app))
        await pilot.press("c")
        await wait_for(pilot)
        assert "shown after the first key" in notices(app)


async def test_the_read_only_notice_goes_at_the_first_key_and_the_status_line_keeps_it(memory_dir) -> None:
    app = make_app(make_backend(memory_dir, read_only=True))
    app.notices.timeout = math.inf
    async with started(app, (100, 30), notifications=True) as pilot:
        app = pilot.app
        assert await wait_for(pilot, lambda: any(n.startswith("read-only:") for n in notices(app)), "the notice")
        await pilot.press("h")
        assert await wait_for(pilot, lambda: not any(n.startswith("read-only:") for n in notices(app)), "it gone")
        assert "READ-ONLY" in status(app)
