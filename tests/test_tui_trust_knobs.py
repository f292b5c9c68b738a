"""A knob value the query cannot use is never dropped silently: the knob and the status line say so.

A fusion weight of 1.5 (or a cos floor of 2) was reported once, then the
next query's status line replaced the message while the box still showed
1.5 and the ranking quietly kept the old weight. Now the knob is marked and
every status line says which value is not used and which one is.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Static

from conftest import started, wait_for
from test_tui_query_embed import ScriptedEmbedder, embed_app, root  # noqa: F401 -- root: the fixture
from wikimem_tui.query.query_panel import QueryPanel


def query_status(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.query_one("#query-status", Static).render())


@pytest.mark.parametrize(("knob", "value", "said"), [
    ("#query-fusion", "1.5", "fusion 1.5 not used"),
    ("#query-floor", "2", "floor 2 not used"),
])
async def test_an_out_of_range_knob_stays_reported_while_queries_run(root: Path, knob: str, value: str,
                                                                     said: str) -> None:
    async with started(embed_app(root, ScriptedEmbedder(seconds_per_text=0.0)), (120, 40)) as pilot:
        app = pilot.app
        panel = app.query_one(QueryPanel)
        await pilot.press("slash", *"sea")
        assert await wait_for(pilot, lambda: panel.last_result is not None)
        box = app.query_one(knob, Input)
        box.value = value
        assert await wait_for(pilot, lambda: said in query_status(app))
        runs = panel.last_result
        app.query_one("#query-input", Input).value = "sea house"  # the next query runs…
        panel.run_query()
        assert await wait_for(pilot, lambda: panel.last_result is not runs)
        await wait_for(pilot)  # the status line that result set
        assert said in query_status(app)  # …and the status still says the knob's value is not used
        assert box.has_class("-ignored")
        box.value = "0.5" if knob == "#query-fusion" else "auto"
        assert await wait_for(pilot, lambda: "not used" not in query_status(app))
        assert not box.has_class("-ignored")


async def test_a_limit_or_budget_that_stops_the_query_is_marked_on_its_knob(root: Path) -> None:
    async with started(embed_app(root, ScriptedEmbedder(seconds_per_text=0.0)), (120, 40)) as pilot:
        app = pilot.app
        panel = app.query_one(QueryPanel)
        await pilot.press("slash", *"sea")
        assert await wait_for(pilot, lambda: panel.last_result is not None)
        budget = app.query_one("#query-budget", Input)
        budget.value = "0"
        assert await wait_for(pilot, lambda: budget.has_class("-ignored"))
        assert "must be positive" in query_status(app)
        budget.value = "50"
        assert await wait_for(pilot, lambda: not budget.has_class("-ignored"))
