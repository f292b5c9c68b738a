"""Why (not) recalled: a pinned item's fate, live as the query and the knobs change (issue 8, item 6).

The verdict is ``MemoryIndex.why_not`` on the very run the table shows, in
``wikimem explain --why``'s words. Pinned from the panel, from the tree
(``w`` on an item), from the item view (``w``), or by name in a picker.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from textual.widgets import Checkbox, Input

from conftest import make_app, make_backend, open_item, started
from test_tui_query import QueryApp, table_rows, type_query, wait_for
from wikimem import MemoryIndex, MemoryStore, why_not_lines
from wikimem.index.analyzer import Analyzer
from wikimem_tui.core.backend import Backend
from wikimem_tui.query.pin_picker import PinPicker
from wikimem_tui.query.table import ResultsTable
from wikimem_tui.query.query_panel import QueryPanel
from wikimem_tui.query.why import STAGE_WORDS, WhyNotBox


def beach_store(root: Path) -> MemoryIndex:
    """Two items about the beach (the short one ranks first), one about boats, one diary entry."""
    store = MemoryStore(root)
    store.add("places", "beach", "Beach.")
    store.add("places", "dunes", "The dunes behind the beach, sand and grass everywhere you look.")
    store.add("places", "harbour", "Boats moored here.")
    store.diary.append("Walked on the beach.", date="2026-07-21", time="07:00")
    return MemoryIndex(store, use_jieba=False)


def box(app: Any) -> str:
    return str(app.query_one(WhyNotBox).render())


def verdict(app: Any) -> str:
    return next((line for line in box(app).splitlines() if line.startswith("verdict:")), "")


async def pin_and_ask(pilot: Any, file: str, name: str, query: str, stage: str = "") -> QueryPanel:
    """Pin ``file:name``, type ``query`` (plain words), and wait for its verdict (starting with ``stage``).

    The debounce may run a prefix of ``query`` on a loaded machine ("bea"),
    whose verdict can have the same stage: wait for the run of the whole query.
    """
    panel = pilot.app.query_one(QueryPanel)
    panel.pin(file, name)
    await type_query(pilot, query)

    def answered() -> bool:
        result = panel.last_result
        whole = result is not None and result.query_tokens == query.split()
        return whole and verdict(pilot.app).startswith(f"verdict: {STAGE_WORDS.get(stage, stage)}")

    await wait_for(pilot, answered)
    return panel


async def test_pinned_item_below_the_limit_then_recalled_as_the_limit_grows(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, beach_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        app = pilot.app
        panel = app.query_one(QueryPanel)
        app.query_one("#query-limit", Input).value = "1"
        panel.pin("places", "dunes")
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: verdict(app).startswith("verdict: cut by the limit"))
        assert verdict(app) == "verdict: cut by the limit — BM25 rank #2, below the limit of 1"
        assert "bm25: " in box(app) and "(rank #2)" in box(app)
        assert "missing tokens: (none)" in box(app)
        app.query_one("#query-limit", Input).value = "5"
        await wait_for(pilot, lambda: verdict(app).startswith("verdict: recalled"))
        assert verdict(app) == "verdict: recalled — recalled at position 2 (hit #2)"


async def test_the_verdict_is_about_the_very_rows_shown(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, beach_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        app = pilot.app
        panel = await pin_and_ask(pilot, "places", "harbour", "beach", "not_candidate")
        why = app.query_one(WhyNotBox).why
        assert why is not None and panel.last_result is why.result  # one run, not two
        # explain --why's words, the verdict's stage in words instead of its identifier
        assert box(app).splitlines()[2:] == why_not_lines(why)[2:]
        assert verdict(app) == f"verdict: not a candidate — {why.reason}" and "not_candidate" not in box(app)
        assert "missing tokens: beach" in box(app)
        assert [r[6] for r in table_rows(app)] == ["places:beach", "places:dunes", "diary 2026-07-21 07:00"]


async def test_budget_cut_and_time_gate_are_named(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, beach_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        app = pilot.app
        app.query_one("#query-budget", Input).value = "3"
        panel = await pin_and_ask(pilot, "places", "dunes", "beach", "budget")
        assert "cut by the token budget" in verdict(app)
        app.query_one("#query-diary", Checkbox).value = False  # the diary only inside a time window
        panel.pin("2026-07-21", "07:00")
        await wait_for(pilot, lambda: verdict(app).startswith("verdict: outside the time window"))
        assert "searched only within a time window" in verdict(app)
        app.query_one("#query-time", Input).value = "2026-07-21"
        app.query_one("#query-budget", Input).value = ""
        await wait_for(pilot, lambda: verdict(app).startswith("verdict: recalled"))


async def test_x_on_the_box_unpins_and_the_table_stays(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, beach_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        app = pilot.app
        panel = await pin_and_ask(pilot, "places", "harbour", "beach")
        assert app.query_one(WhyNotBox).display
        app.query_one(WhyNotBox).focus()
        await pilot.press("x")
        await wait_for(pilot, lambda: not app.query_one(WhyNotBox).display)
        assert panel.pinned is None
        await wait_for(pilot, lambda: [r[6] for r in table_rows(app)] ==
                       ["places:beach", "places:dunes", "diary 2026-07-21 07:00"])


async def test_before_a_query_the_box_says_what_to_do(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, beach_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        pilot.app.query_one(QueryPanel).pin("places", "dunes")
        await wait_for(pilot, lambda: "type a query" in box(pilot.app))
        assert "why (not) recalled  places:dunes" in box(pilot.app)


# -- pinning from the app: the tree, the item view, the picker --------------------------------------


async def test_w_on_a_tree_item_pins_it_in_the_query_pane(backend: Backend) -> None:
    app = make_app(backend)
    async with started(app, (120, 40)) as pilot:
        tree = app.query_one("TopicTree")
        tree.reveal("preferences", "tea")
        tree.node_tree.focus()
        await wait_for(pilot)
        await pilot.press("w")
        await wait_for(pilot, lambda: app.query_one(QueryPanel).pinned == ("preferences", "tea"))
        assert app.query_one("#panes").active == "tab-query"
        app.query_one("#query-input", Input).value = "coffee"
        await wait_for(pilot, lambda: verdict(app).startswith("verdict:"))
        term = Analyzer().term("coffee")  # a stem where wikimem[en] is installed
        assert f"missing tokens: {term if term == 'coffee' else f'{term} (coffee)'}" in box(app)


async def test_w_in_the_item_view_pins_the_open_item(backend: Backend) -> None:
    app = make_app(backend)
    async with started(app, (120, 40)) as pilot:
        await open_item(pilot, "people", "Alice")
        app.query_one("#item-view").focus()
        await pilot.press("w")
        await wait_for(pilot, lambda: app.query_one(QueryPanel).pinned == ("people", "Alice"))


async def test_w_elsewhere_picks_by_name_offering_the_row_under_the_cursor(backend: Backend) -> None:
    app = make_app(backend)
    async with started(app, (120, 40)) as pilot:
        await pilot.press("slash")
        await type_query(pilot, "coffee")
        await wait_for(pilot, lambda: bool(table_rows(app)) and table_rows(app)[0][0] == "1")
        top = app.query_one(QueryPanel).last_result.items[0].item
        first = f"{top.file}:{top.name}"  # the picker names a diary row DAY:HH:MM, as --why takes it
        app.query_one("#query-results", ResultsTable).focus()
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, PinPicker))
        await wait_for(pilot)
        assert app.screen.query_one(Input).value == first
        app.screen.query_one(Input).value = "張伟"  # nothing matches: keep typing
        app.screen.query_one(Input).value = "tea"
        await wait_for(pilot, lambda: app.screen.shown[:1] == [("preferences", "tea")])
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.query_one(QueryPanel).pinned == ("preferences", "tea"))
        await wait_for(pilot, lambda: verdict(app).startswith("verdict:"))


async def test_the_box_offers_the_picker_by_mouse_and_key(backend: Backend) -> None:
    app = make_app(backend)
    async with started(app, (120, 40)) as pilot:
        app.query_one(QueryPanel).pin("preferences", "tea")
        app.action_pane("query")
        app.query_one(WhyNotBox).focus()
        await pilot.press("w")  # the box has no w of its own: the app's picker opens
        await wait_for(pilot, lambda: isinstance(app.screen, PinPicker))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, PinPicker))
        await wait_for(pilot)
        assert app.query_one(QueryPanel).pinned == ("preferences", "tea")


# -- what it looks like ----------------------------------------------------------------------------


def test_query_pane_with_a_pinned_item_snapshot(tmp_path: Path, snap_compare: Any) -> None:
    from pane_harness import PaneApp

    index = beach_store(tmp_path)
    backend = Backend(root=tmp_path, store=index.store, index=index, owner="tui:test",
                      today=lambda: dt.date(2026, 7, 22))
    app = PaneApp(backend, QueryPanel)

    async def pinned(pilot: Any) -> None:
        panel = pilot.app.query_one(QueryPanel)
        pilot.app.query_one("#query-limit", Input).value = "1"
        panel.pin("places", "beach")
        pilot.app.query_one("#query-input", Input).value = "beach sand"
        panel.run_query()
        await wait_for(pilot, lambda: verdict(pilot.app).startswith("verdict: cut by the limit"))

    assert snap_compare(app, terminal_size=(120, 40), run_before=pinned)
