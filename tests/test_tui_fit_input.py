"""A text box's placeholder cut at the box's edge ends in "…" (at 100x30: the tree's and the queue's were cut bare)."""

from __future__ import annotations

import re
from pathlib import Path

from rich.cells import cell_len

from conftest import make_app, screen_text, started, wait_for
from wikimem_tui.common.fit_input import fitted_placeholder

PACKAGE = Path(__file__).resolve().parent.parent / "wikimem_tui"


def test_a_placeholder_too_wide_is_cut_with_an_ellipsis_and_one_that_fits_is_whole() -> None:
    assert fitted_placeholder("f: filter names, content", 10).plain == "f: filter…"
    assert fitted_placeholder("owner contains…", 20).plain == "owner contains…"
    cut = fitted_placeholder("query… (e.g. beach 昨天)", 20)
    assert cell_len(cut.plain) <= 20 and cut.plain.endswith("…")


def test_no_pane_builds_a_bare_textual_input() -> None:
    """Every box is a FitInput (SafeInput is one), so no placeholder is ever cut without saying so."""
    bare = [f"{path.relative_to(PACKAGE)}:{n}" for path in PACKAGE.rglob("*.py") if path.name != "fit_input.py"
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(r"(?<![\w.])Input\(", line) or re.search(r"class \w+\(Input\)", line)]
    assert bare == []


async def test_at_100x30_the_tree_and_queue_filters_end_in_an_ellipsis(backend) -> None:
    async with started(make_app(backend), (100, 30)) as pilot:
        app = pilot.app
        text = screen_text(app)
        assert "f: filter names, conte…" in text, "the tree's box (25 cells) cuts its hint with …"
        await pilot.press("R")
        assert await wait_for(pilot, lambda: app.query_one("#panes").active == "tab-queue", "the queue")
        assert await wait_for(pilot, lambda: "days: 2026-07-21" in screen_text(app), "the queue's filter row")
        line = next(row for row in screen_text(app).splitlines() if "days: 2026-07-21" in row)
        assert re.search(r"days: 2026-07-21 · [^ ]* ·?…", line), line
        assert "2026-07-01..2026-07-15" not in line  # it was cut (a wider box would show it whole)


async def test_the_query_panes_time_hint_is_whole_at_120x40_and_80x24(backend) -> None:
    """Narrow, the time knob sat in a 15-cell column and showed ``time A or A..B…``: it now takes the row's rest."""
    for size in ((120, 40), (80, 24)):
        async with started(make_app(backend), size) as pilot:
            app = pilot.app
            await pilot.press("slash")
            hint = "time last week, A..B, 昨天"
            assert await wait_for(pilot, lambda: hint in screen_text(app), f"the whole time hint at {size}")
