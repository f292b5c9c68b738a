"""The query panel: explained retrieval as you type, knobs, and what it never does."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Checkbox, Input, Static

from pane_harness import PaneApp
from conftest import SAFETY_NET, retrieved, screen_text, wait_for
from wikimem import DERIVED_MARKER, MemoryStore, RetrievalResult, agent_text
from wikimem.index.analyzer import Analyzer
from wikimem_tui.core.backend import Backend
from wikimem_tui.query.query_panel import QueryPanel
from wikimem_tui.query.table import ResultsTable

TODAY = dt.date(2026, 7, 22)


class ScriptedIndex:
    """Stands in for MemoryIndex: records calls, answers with a fixed explained result."""

    def __init__(self, result: RetrievalResult, gate: threading.Event | None = None) -> None:
        self.result = result
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.entered: list[str] = []
        """Queries that reached ``retrieve`` (``calls`` has those that returned)."""
        self.gate = gate
        self.fusion_weight = 0.5

    def retrieve(self, query: str, **kwargs: Any) -> RetrievalResult:
        self.entered.append(query)
        if self.gate is not None and query == "slow":
            assert self.gate.wait(SAFETY_NET), "the test never opened the gate"
        self.calls.append((query, kwargs))
        return self.result


EXPLAINED = RetrievalResult(
    items=[
        retrieved("places", "beach", score=0.9, bm25_score=3.21, matched_terms=["beach", "sea"], tokens_est=12, rank=1),
        retrieved("places", "harbour", "link", score=0.0, via="beach", tokens_est=5),
        retrieved("2026-07-21", "14:30", score=0.5, bm25_score=1.5, matched_terms=["swim"], tokens_est=4, rank=2),
    ],
    budget_tokens=25,
    budget_used=21,
    dropped=[retrieved("notes", "[red]long[/red]", score=0.2, tokens_est=40, rank=3)],
    unresolved_links=["[[places:atlantis]]"],
    time_range=("2026-07-20", "2026-07-22"),
    time_range_source="parsed",
    time_range_widened=True,
)


class QueryApp(PaneApp):
    """Mounts only the query panel; ``index`` can be scripted or a real MemoryIndex."""

    def __init__(self, root: Path, index: Any, *, embedder: Any = None) -> None:
        super().__init__(Backend(root=root, store=MemoryStore(root), index=index, today=lambda: TODAY,
                                 embedder=embedder), QueryPanel, timing=True)
        self.NOTIFICATION_TIMEOUT = SAFETY_NET  # type: ignore[misc]  # as make_app: no toast expires mid-test


def table_rows(app: App) -> list[list[str]]:
    table = app.query_one("#query-results", ResultsTable)
    return [[str(cell) for cell in table.row_texts(i)] for i in range(table.row_total)]


def summary(app: App) -> str:
    return str(app.query_one("#query-summary", Static).render())


def status(app: App) -> str:
    return str(app.query_one("#query-status", Static).render())


async def type_query(pilot: Any, text: str) -> None:
    pilot.app.query_one("#query-input", Input).focus()
    await pilot.press(*text)


async def test_results_show_rows_as_explain_prints_them(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, ScriptedIndex(EXPLAINED)).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: len(table_rows(pilot.app)) == 4)
        rows = table_rows(pilot.app)
        assert [c.label for c in pilot.app.query_one(ResultsTable).columns] == [
            "#", "src", "score", "bm25", "cos", "~tok", "item", "terms / via"]
        assert rows[0] == ["1", "hit", "0.900", "3.210", "-", "12", "places:beach", "[beach, sea]"]
        assert rows[1][:2] == ["2", "link"] and rows[1][6].strip() == "places:harbour"
        assert rows[1][7] == "(via beach)"
        assert rows[2][0] == "3" and rows[2][6] == "2026-07-21:14:30"


async def test_a_long_link_note_wraps_in_its_row_instead_of_running_off_the_pane(tmp_path: Path) -> None:
    """A link row that is also a hit says ``(via X)  hit #N [terms]``: the end of it used to be off screen."""
    via = "alice-from-the-coffee-roastery-downtown"
    result = RetrievalResult(items=[
        retrieved("people", via, score=2.4, bm25_score=2.4, matched_terms=["bean", "coffe"], tokens_est=6, rank=1),
        retrieved("preferences", "coffee", "link", score=0.6, bm25_score=0.6, via=via, matched_terms=["coffe"],
                  tokens_est=12, rank=2),
    ])
    async with QueryApp(tmp_path, ScriptedIndex(result)).run_test(size=(84, 30)) as pilot:
        await type_query(pilot, "coffee")
        table = pilot.app.query_one("#query-results", ResultsTable)
        await wait_for(pilot, lambda: table.row_total == 2)
        await wait_for(pilot)
        note = table_rows(pilot.app)[1][7]
        assert note == f"(via {via})  hit #2 [coffe]"
        assert table.virtual_size.width <= table.scrollable_content_region.width  # nothing past the edge
        # Wrapped in the note column, line after line: read in order, it is the whole note.
        assert note.replace(" ", "") in screen_text(pilot.app).replace(" ", "").replace("\n", "")


async def test_a_long_result_draws_only_the_lines_on_screen(tmp_path: Path) -> None:
    """A frame's cost follows the rows on screen, not the rows returned (the DataTable rendered them all)."""
    result = RetrievalResult(items=[retrieved("notes", f"n{i:03d}", score=1.0 - i / 1000, bm25_score=1.0,
                                              matched_terms=["sea"], tokens_est=3, rank=i + 1) for i in range(300)])
    drawn: list[int] = []
    async with QueryApp(tmp_path, ScriptedIndex(result)).run_test(size=(120, 40)) as pilot:
        table = pilot.app.query_one("#query-results", ResultsTable)
        segments = table.row_segments

        def counted(index: int, width: int, base: Any) -> Any:
            drawn.append(index)
            return segments(index, width, base)

        table.row_segments = counted  # type: ignore[method-assign]
        await type_query(pilot, "sea")
        await wait_for(pilot, lambda: table.row_total == 300)
        await wait_for(pilot)
        height = table.scrollable_content_region.height
        assert drawn and max(drawn) < height and len(set(drawn)) <= height  # the lines on screen, nothing below
        table.focus()
        await pilot.press("end")  # the last row scrolled into view, drawn then
        await wait_for(pilot, lambda: table.cursor == 299 and "notes:n299" in screen_text(pilot.app))
        assert 299 in drawn and not set(range(height, 299 - height)) & set(drawn)


async def test_the_mouse_and_the_keys_move_the_highlight_and_open_the_row(tmp_path: Path) -> None:
    """A click highlights a row, a click on the highlighted row opens it; home and end go to the edges."""
    async with QueryApp(tmp_path, ScriptedIndex(EXPLAINED)).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "beach")
        table = pilot.app.query_one("#query-results", ResultsTable)
        await wait_for(pilot, lambda: table.row_total == 4)
        await wait_for(pilot)
        row_y = table.region.y + 1 + 1  # under the header: the second row
        await pilot.click(offset=(table.region.x + 5, row_y))
        await wait_for(pilot, lambda: table.cursor == 1)
        assert pilot.app.opened == []
        await pilot.click(offset=(table.region.x + 5, row_y))
        await wait_for(pilot, lambda: pilot.app.opened == [("item", "places", "harbour")])
        table.focus()
        await pilot.press("end")
        await wait_for(pilot, lambda: table.cursor == 3)  # the dropped row, struck out, is a row too
        await pilot.press("home")
        await wait_for(pilot, lambda: table.cursor == 0)


async def test_the_same_rows_again_keep_the_highlight_and_other_rows_reset_it(tmp_path: Path) -> None:
    """A re-run showing the same rows (a store change, a knob that changed nothing) must not move the user's row.

    Seen in CI: a second run of the query landed between ``down`` and
    ``enter`` and reset the highlight, so ``enter`` opened the first row again.
    """
    async with QueryApp(tmp_path, ScriptedIndex(EXPLAINED)).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "beach")
        table = pilot.app.query_one("#query-results", ResultsTable)
        await wait_for(pilot, lambda: table.row_total == 4)
        table.focus()
        await pilot.press("down", "down")
        await wait_for(pilot, lambda: table.cursor == 2)
        table.show(EXPLAINED)
        await wait_for(pilot)
        assert table.cursor == 2 and table.entry_under_cursor() is EXPLAINED.items[2]
        other = RetrievalResult(items=[*EXPLAINED.items[1:]], dropped=list(EXPLAINED.dropped))
        table.show(other)
        await wait_for(pilot)
        assert table.cursor == 0


async def test_an_empty_result_says_no_results_and_has_no_row_to_open(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, ScriptedIndex(RetrievalResult(items=[]))).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "nothing")
        table = pilot.app.query_one("#query-results", ResultsTable)
        await wait_for(pilot, lambda: table.result is not None)
        await wait_for(pilot)
        assert "no results" in screen_text(pilot.app)
        assert table.row_total == 0 and table.entry_under_cursor() is None and table.row_detail().plain == ""
        table.focus()
        await pilot.press("enter")
        await wait_for(pilot)
        assert pilot.app.opened == []


async def test_an_address_that_fits_is_never_broken_to_make_room_for_a_note(tmp_path: Path) -> None:
    """The note wraps at its spaces; the item keeps its width (the old split cut ``morning-routin`` / ``e``)."""
    via = "a-rather-long-morning-routine-note-name"
    address = "daily_life:morning-routine"
    result = RetrievalResult(items=[
        retrieved("daily_life", "morning-routine", score=2.3, bm25_score=2.3, matched_terms=["coffe"], tokens_est=24,
                  rank=1),
        retrieved("health", "knee-injury", "link", score=0.0, via=via, tokens_est=21),
    ])
    async with QueryApp(tmp_path, ScriptedIndex(result)).run_test(size=(84, 30)) as pilot:
        await type_query(pilot, "coffee")
        table = pilot.app.query_one("#query-results", ResultsTable)
        await wait_for(pilot, lambda: table.row_total == 2)
        await wait_for(pilot)
        item, note = table.columns[-2:]
        assert item.width + note.width < len(address) + len(f"(via {via})")  # both cannot keep their width
        assert item.width >= len(address)  # the address does; the note wraps
        assert table_rows(pilot.app)[1][7] == f"(via {via})"
        assert table.virtual_size.width <= table.scrollable_content_region.width  # nothing past the edge


async def test_summary_shows_budget_dropped_unresolved_and_time_gate(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, ScriptedIndex(EXPLAINED)).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: "budget" in summary(pilot.app))
        text = summary(pilot.app)
        assert "budget: used 21 / 25" in text
        assert "dropped 1:\n  notes:[red]long[/red] (hit, ~40 tok)" in text
        assert "unresolved links: [[places:atlantis]]" in text
        assert "time gate: 2026-07-20..2026-07-22  [parsed] (widened: window was empty)" in text
        assert "ranking: BM25 (embedding: off)" in text
        assert table_rows(pilot.app)[3][0] == "✂"


async def test_knobs_are_passed_to_retrieve(tmp_path: Path) -> None:
    index = ScriptedIndex(EXPLAINED)
    async with QueryApp(tmp_path, index).run_test(size=(140, 40)) as pilot:
        app = pilot.app
        app.query_one("#query-limit", Input).value = "3"
        app.query_one("#query-budget", Input).value = "50"
        app.query_one("#query-links", Checkbox).value = False
        app.query_one("#query-time", Input).value = "2026-07-01..2026-06-20"
        await type_query(pilot, "sea")
        await wait_for(pilot, lambda: any(q == "sea" for q, _ in index.calls))
        kwargs = [kw for q, kw in index.calls if q == "sea"][-1]
        assert kwargs["limit"] == 3 and kwargs["budget_tokens"] == 50
        assert kwargs["expand_links"] is False and kwargs["explain"] is True
        assert kwargs["time_range"] == ("2026-06-20", "2026-07-01")


async def test_malformed_time_range_is_an_inline_error_and_no_query(tmp_path: Path) -> None:
    index = ScriptedIndex(EXPLAINED)
    async with QueryApp(tmp_path, index).run_test(size=(140, 40)) as pilot:
        pilot.app.query_one("#query-time", Input).value = "someday"
        await type_query(pilot, "sea")
        await wait_for(pilot)  # the debounced query has run: here, refused
        assert "bad time range 'someday'" in status(pilot.app)
        assert index.calls == []


async def test_stale_result_never_overwrites_a_newer_query(tmp_path: Path) -> None:
    gate = threading.Event()
    index = ScriptedIndex(EXPLAINED, gate)
    async with QueryApp(tmp_path, index).run_test(size=(140, 40)) as pilot:
        panel = pilot.app.query_one(QueryPanel)
        pilot.app.query_one("#query-input", Input).value = "slow"
        panel.run_query()
        await wait_for(pilot, lambda: index.entered == ["slow"], "the slow query to be under way")
        pilot.app.query_one("#query-input", Input).value = "fast"
        panel.run_query()
        gate.set()
        # "slow" first (it held the lock), then "fast"; the debounce of the typed "fast" may add one more.
        await wait_for(pilot, lambda: [q for q, _ in index.calls][:1] == ["slow"]
                       and [q for q, _ in index.calls][-1:] == ["fast"])
        await wait_for(pilot, lambda: status(pilot.app).startswith("2 hits"))
        await wait_for(pilot)  # both workers done and their results handled: the stale one too
        assert status(pilot.app).startswith("2 hits")


async def test_waits_while_the_index_is_building(tmp_path: Path) -> None:
    index = ScriptedIndex(EXPLAINED)
    async with QueryApp(tmp_path, index).run_test(size=(140, 40)) as pilot:
        panel = pilot.app.query_one(QueryPanel)
        panel.set_index_building(True)
        await type_query(pilot, "sea")
        await wait_for(pilot)  # the debounced query has run: here, held back
        assert "waiting for the index" in status(pilot.app) and index.calls == []
        panel.set_index_building(False)
        await wait_for(pilot, lambda: len(index.calls) == 1)


async def test_selecting_rows_opens_wiki_item_and_diary_day(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, ScriptedIndex(EXPLAINED)).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: len(table_rows(pilot.app)) == 4)
        pilot.app.query_one("#query-results", ResultsTable).focus()
        await pilot.press("enter", "down", "enter", "down", "enter")
        await wait_for(pilot)
        assert pilot.app.opened == [
            ("item", "places", "beach"),
            ("item", "places", "harbour"),
            ("diary", "2026-07-21", "14:30"),
        ]


def real_store(root: Path) -> Any:
    from wikimem import MemoryIndex

    store = MemoryStore(root)
    store.add("places", "beach", "Sandy beach, see [[places:harbour]] and [[places:atlantis]].")
    store.add("places", "harbour", "Boats [bold]moored[/bold] here.")
    store.add("notes", "[red]odd[/red] name", "The beach at night.")
    store.diary.append("Swam at the beach.", date="2026-07-21", time="14:30")
    return MemoryIndex(store)


def snapshot_files(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*") if p.is_file()}


async def test_real_index_hit_with_link_row_and_literal_markup(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, real_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: any(r[1] == "link" for r in table_rows(pilot.app)))
        rows = table_rows(pilot.app)
        items = [r[6].strip() for r in rows]
        assert items.index("places:harbour") == items.index("places:beach") + 1
        assert rows[items.index("places:harbour")][7] == "(via beach)"
        assert "notes:[red]odd[/red] name" in items
        assert "unresolved links: [[places:atlantis]]" in summary(pilot.app)


async def test_real_index_time_range_adds_diary_rows(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, real_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        pilot.app.query_one("#query-time", Input).value = "2026-07-21"
        await type_query(pilot, "swam")
        await wait_for(pilot, lambda: "diary 2026-07-21 14:30" in [r[6] for r in table_rows(pilot.app)])
        assert "time gate: 2026-07-21  [explicit]" in summary(pilot.app)


async def test_querying_never_writes_to_the_store(tmp_path: Path) -> None:
    index = real_store(tmp_path)
    before = snapshot_files(tmp_path)
    async with QueryApp(tmp_path, index).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: status(pilot.app).endswith("ms"))
        pilot.app.query_one("#query-time", Input).value = "2026-07-01..2026-07-31"
        await wait_for(pilot, lambda: "time gate: 2026-07-01..2026-07-31" in summary(pilot.app))
    assert snapshot_files(tmp_path) == before


async def test_switching_jieba_swaps_in_a_rebuilt_index(tmp_path: Path) -> None:
    pytest.importorskip("jieba", reason="switching to jieba needs jieba installed")
    from wikimem import MemoryIndex

    real_store(tmp_path)
    index = MemoryIndex(MemoryStore(tmp_path), use_jieba=False)
    app = QueryApp(tmp_path, index)
    async with app.run_test(size=(140, 40)) as pilot:
        app.query_one("#query-jieba", Checkbox).value = True
        await wait_for(pilot, lambda: app.backend.index is not index)
        assert app.backend.index.use_jieba is True and app.backend.use_jieba is True
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: "places:beach" in [r[6] for r in table_rows(app)])


async def test_the_stem_knob_rebuilds_the_index_with_or_without_stemming(tmp_path: Path) -> None:
    pytest.importorskip("snowballstemmer", reason="stemming needs wikimem[en]")
    from wikimem import MemoryIndex

    real_store(tmp_path)
    index = MemoryIndex(MemoryStore(tmp_path), use_jieba=False, analyzer="en")
    app = QueryApp(tmp_path, index)
    async with app.run_test(size=(140, 40)) as pilot:
        box = app.query_one("#query-analyzer", Checkbox)
        assert box.value is True
        await type_query(pilot, "boat")
        await wait_for(pilot, lambda: [r[6].strip() for r in table_rows(app)] == ["places:harbour"])
        box.value = False
        await wait_for(pilot, lambda: app.backend.index is not index)
        assert app.backend.index.analyzer.name == "stop" and app.backend.index.use_jieba is False  # stop words kept
        await wait_for(pilot, lambda: status(app).startswith("0 hits"))  # "boat" no longer matches "Boats"
        box.value = True
        await wait_for(pilot, lambda: app.backend.index.analyzer.name == "en")
        await wait_for(pilot, lambda: [r[6].strip() for r in table_rows(app)] == ["places:harbour"])


async def test_query_waits_for_the_apps_index_build(tmp_path: Path) -> None:
    index = ScriptedIndex(EXPLAINED)
    app = QueryApp(tmp_path, index)
    async with app.run_test(size=(140, 40)) as pilot:
        panel = app.query_one(QueryPanel)
        panel.set_index_building(True)  # what WikimemApp says on start; IndexReady ends it
        await type_query(pilot, "sea")
        await wait_for(pilot, lambda: "waiting for the index" in status(pilot.app))
        assert index.calls == []
        panel.set_index_building(False)
        await wait_for(pilot, lambda: len(index.calls) == 1)
        await wait_for(pilot, lambda: status(pilot.app).startswith("2 hits"))


async def test_fusion_weight_knob_sets_the_index_weight(tmp_path: Path) -> None:
    index = ScriptedIndex(EXPLAINED)
    async with QueryApp(tmp_path, index, embedder=object()).run_test(size=(140, 40)) as pilot:
        fusion = pilot.app.query_one("#query-fusion", Input)
        assert fusion.value == "0.5" and not fusion.disabled
        fusion.value = "0.3"
        await wait_for(pilot)
        assert index.fusion_weight == 0.3
        fusion.value = "2"
        await wait_for(pilot)
        assert index.fusion_weight == 0.3 and "between 0 and 1" in status(pilot.app)


async def test_fusion_weight_knob_is_disabled_without_an_embedder(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, ScriptedIndex(EXPLAINED)).run_test(size=(140, 40)) as pilot:
        fusion = pilot.app.query_one("#query-fusion", Input)
        assert fusion.disabled
        assert fusion.placeholder == "off"  # says why it is empty, not a bare "w" that reads like a typo


def test_time_knob_reads_a_date_span_or_a_time_word_against_the_pinned_today() -> None:
    from wikimem_tui.query.knobs import QueryKnobs

    knobs = QueryKnobs(use_jieba=False, fusion=None)
    values = {"#query-limit": "10", "#query-budget": "", "#query-links": True, "#query-diary": True}
    knobs.query_one = lambda selector, _type=None: SimpleNamespace(value=values[selector])  # type: ignore[method-assign]
    values["#query-time"] = "2026-07-22..2026-07-01"
    assert knobs.params("q", TODAY).time_range == ("2026-07-01", "2026-07-22")
    values["#query-time"] = "昨天"
    assert knobs.params("q", TODAY).time_range == ("2026-07-21", "2026-07-21")


def toasts(app: App) -> list[str]:
    """The notifications on screen (the app must run with ``notifications=True``)."""
    return [str(toast.render()) for toast in app.screen.query("Toast")]


async def test_jieba_knob_starts_at_the_index_mode_and_mount_does_not_rebuild(tmp_path: Path) -> None:
    from wikimem import MemoryIndex

    index = MemoryIndex(MemoryStore(tmp_path), use_jieba=False)
    app = QueryApp(tmp_path, index)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await type_query(pilot, "x")
        await wait_for(pilot, lambda: status(app).endswith("ms"))
        assert app.query_one("#query-jieba", Checkbox).value is False
        assert app.backend.index is index
        assert toasts(app) == []


async def test_choosing_jieba_says_it_loads_and_how_long_the_rebuild_took(tmp_path: Path) -> None:
    pytest.importorskip("jieba", reason="switching to jieba needs jieba installed")
    from wikimem import MemoryIndex

    index = MemoryIndex(MemoryStore(tmp_path), use_jieba=False)
    app = QueryApp(tmp_path, index)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        app.query_one("#query-jieba", Checkbox).value = True
        await wait_for(pilot, lambda: app.backend.index is not index)
        await wait_for(pilot, lambda: any("rebuilt with jieba in" in t for t in toasts(app)))
        assert any("loading jieba" in t for t in toasts(app))
        assert app.backend.index.use_jieba is True


async def test_choosing_jieba_when_it_is_not_installed_says_so_and_stays_on_bigrams(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from wikimem import MemoryIndex

    monkeypatch.setitem(sys.modules, "jieba", None)  # "import jieba" now fails, as when it is absent
    index = MemoryIndex(MemoryStore(tmp_path), use_jieba=False)
    app = QueryApp(tmp_path, index)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        app.query_one("#query-jieba", Checkbox).value = True
        await wait_for(pilot, lambda: any("jieba is not installed" in t for t in toasts(app)))
        assert app.query_one("#query-jieba", Checkbox).value is False
        assert app.backend.index is index and not any("rebuilt" in t for t in toasts(app))
        await type_query(pilot, "x")
        await wait_for(pilot, lambda: status(app).endswith("ms"))  # no rebuild left the panel waiting


def test_backend_pins_the_index_today_to_its_own() -> None:
    index = ScriptedIndex(EXPLAINED)
    backend = Backend(root=Path("."), store=None, index=index, today=lambda: TODAY)  # type: ignore[arg-type]
    assert index.today() == TODAY  # type: ignore[attr-defined]


async def test_time_word_in_the_query_resolves_against_the_pinned_today(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.diary.append("Swam at the beach.", date="2026-07-21", time="14:30")
    store.diary.append("Swam again.", date="2026-07-22", time="09:00")
    from wikimem import MemoryIndex

    async with QueryApp(tmp_path, MemoryIndex(store)).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "swam 昨天")
        # Typed key by key: an earlier result (for "swam", no window) may show first.
        await wait_for(pilot, lambda: "time gate: 2026" in summary(pilot.app))
        start, end = pilot.app.query_one(QueryPanel).last_result.time_range
        assert (start, end) == ("2026-07-21", "2026-07-21")


def test_bigrams_are_the_default_and_jieba_is_opt_in() -> None:
    from wikimem_tui.__main__ import build_parser

    parser = build_parser()
    assert parser.parse_args([]).jieba is False
    assert parser.parse_args(["--no-jieba"]).jieba is False
    assert parser.parse_args(["--jieba"]).jieba is True


async def test_enter_in_the_query_box_moves_to_the_results_and_escape_stays_there(tmp_path: Path) -> None:
    """Escape leaves the query box for the results; from the results it goes nowhere (``/`` is the way back)."""
    async with QueryApp(tmp_path, ScriptedIndex(EXPLAINED)).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: len(table_rows(pilot.app)) == 4)
        await pilot.press("enter")
        await wait_for(pilot, lambda: pilot.app.focused is pilot.app.query_one("#query-results"))
        await pilot.press("escape")
        await wait_for(pilot)
        assert pilot.app.focused is pilot.app.query_one("#query-results")
        pilot.app.query_one("#query-input").focus()
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.focused is pilot.app.query_one("#query-results"))


async def test_picking_a_result_in_the_app_shows_the_item_tab(memory_dir: Path) -> None:
    from conftest import make_app, make_backend, started

    app = make_app(make_backend(memory_dir))
    async with started(app, (120, 40)) as pilot:
        await pilot.press("slash")
        await type_query(pilot, "coffee")
        await wait_for(pilot, lambda: table_rows(app) and table_rows(app)[0][0] == "1")
        await pilot.press("enter", "enter")
        await wait_for(pilot, lambda: app.query_one("#panes").active == "tab-item")
        await wait_for(pilot)  # nothing still on its way switches back
        assert app.query_one("#panes").active == "tab-item"
        assert app.focused is app.query_one("#item-view")


# -- diary rows, names with ":", copying for an agent -----------------------------------------


def hand_edited_store(root: Path) -> Any:
    """A wiki item named with a ':' (only a hand edit can do that) beside a diary entry."""
    from wikimem import MemoryIndex

    store = MemoryStore(root)
    store.diary.append("Swam at the beach at noon.", date="2026-07-21", time="12:00")
    (root / "wiki").mkdir(exist_ok=True)
    (root / "wiki" / "notes.md").write_text("# notes\n\n## 10:30\n\nThe beach meeting notes.\n", encoding="utf-8")
    return MemoryIndex(store)


async def test_a_wiki_item_named_like_a_time_opens_as_an_item_not_a_diary_day(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, hand_edited_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        pilot.app.query_one("#query-time", Input).value = "2026-07-21"
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: len(table_rows(pilot.app)) == 2)
        items = [r[6].strip() for r in table_rows(pilot.app)]
        pilot.app.query_one("#query-results", ResultsTable).focus()
        for _ in items:
            await pilot.press("enter", "down")
            await wait_for(pilot)
        opened = dict(zip(items, pilot.app.opened))
        assert opened["notes:10:30"] == ("item", "notes", "10:30")
        assert opened["diary 2026-07-21 12:00"] == ("diary", "2026-07-21", "12:00")


async def test_copy_puts_the_agents_text_on_the_clipboard(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, real_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: any(r[1] == "link" for r in table_rows(pilot.app)))
        await pilot.press("ctrl+y")
        await wait_for(pilot)
        copied = pilot.app.clipboard
        assert "## places:beach\nSandy beach, see [[places:harbour]] and [[places:atlantis]].\n" in copied
        assert "## places:harbour (linked from beach)\nBoats [bold]moored[/bold] here.\n" in copied
        assert copied.index("## places:beach") < copied.index("## places:harbour")
        assert copied == agent_text(pilot.app.query_one(QueryPanel).last_result)  # the CLI's and the MCP server's text
        assert copied.endswith(f"\n{DERIVED_MARKER}\n")  # what an agent writes from it is recognised as derived


async def test_copy_leaves_out_what_the_budget_dropped(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, real_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        pilot.app.query_one("#query-budget", Input).value = "3"
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: "dropped" in summary(pilot.app))
        await pilot.press("ctrl+y")
        await wait_for(pilot)
        result = pilot.app.query_one(QueryPanel).last_result
        kept = [f"## {e.item.file}:{e.item.name}" for e in result.items]
        assert [line for line in pilot.app.clipboard.splitlines() if line.startswith("## ")] == kept
        assert result.dropped and all(f"## {e.item.file}:{e.item.name}" not in pilot.app.clipboard for e in result.dropped)


async def test_the_copy_key_is_in_the_footer_while_typing_a_query(tmp_path: Path) -> None:
    from textual.widgets import Footer

    class WithFooter(QueryApp):
        def compose(self) -> ComposeResult:
            yield QueryPanel(self.backend)
            yield Footer()

    async with WithFooter(tmp_path, real_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "beach")
        await wait_for(pilot)
        keys = {(k.key, k.description) for k in pilot.app.query("FooterKey")}  # type: ignore[attr-defined]
        assert ("ctrl+y", "Copy result") in keys


# -- against a real index: the knobs change what comes back ------------------------------------


async def test_real_index_limit_and_links_knobs_change_the_rows(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, real_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        app = pilot.app
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: any(r[1] == "link" for r in table_rows(app)))
        hits = [r for r in table_rows(app) if r[1] == "hit"]
        assert len(hits) == 3  # places:beach, the note whose content says beach, and the diary entry
        app.query_one("#query-diary", Checkbox).value = False  # the diary only inside a time window
        await wait_for(pilot, lambda: len([r for r in table_rows(app) if r[1] == "hit"]) == 2)
        app.query_one("#query-limit", Input).value = "1"
        await wait_for(pilot, lambda: len([r for r in table_rows(app) if r[1] == "hit"]) == 1)
        app.query_one("#query-links", Checkbox).value = False
        await wait_for(pilot, lambda: not any(r[1] == "link" for r in table_rows(app)))
        assert [r[6].strip() for r in table_rows(app)] == ["places:beach"]


async def test_real_index_answers_a_different_query_differently(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, real_store(tmp_path)).run_test(size=(140, 40)) as pilot:
        await type_query(pilot, "boats")
        await wait_for(pilot, lambda: status(pilot.app).startswith("1 hit"))
        assert [r[6].strip() for r in table_rows(pilot.app) if r[1] == "hit"] == ["places:harbour"]
        assert table_rows(pilot.app)[0][7] == "[boats]"  # the word as typed, whatever it was stemmed to
        assert Analyzer().query(["boats"]).typed == {Analyzer().term("boats"): "boats"}


async def test_the_focused_links_checkbox_keeps_its_label(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, ScriptedIndex(EXPLAINED)).run_test(size=(140, 40)) as pilot:
        box = pilot.app.query_one("#query-links", Checkbox)
        box.focus()
        await wait_for(pilot)
        assert box.content_region.height == 1 and box.content_region.width >= len("▐X▌ links")


async def test_empty_limit_and_budget_are_not_drawn_as_invalid_after_tabbing_through(tmp_path: Path) -> None:
    """Empty means the default (10, no budget): a user tabbing past them must not see them marked as errors."""
    async with QueryApp(tmp_path, ScriptedIndex(EXPLAINED)).run_test(size=(140, 40)) as pilot:
        app = pilot.app
        limit, budget = app.query_one("#query-limit", Input), app.query_one("#query-budget", Input)
        limit.value = ""
        for box in (limit, budget, app.query_one("#query-time", Input)):  # focus each, then leave it
            box.focus()
            await wait_for(pilot)
        assert not limit.has_class("-invalid") and not budget.has_class("-invalid")
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: len(table_rows(app)) == 4)  # and the query runs with the defaults
        budget.value = "0"
        await wait_for(pilot, lambda: status(app) == "limit and budget must be positive")


async def test_the_highlighted_row_is_shown_in_full_under_the_table(tmp_path: Path) -> None:
    """At 80 columns the table cuts "(via …)"; the line under it shows the highlighted row whole."""
    async with QueryApp(tmp_path, real_store(tmp_path)).run_test(size=(80, 30)) as pilot:
        await type_query(pilot, "beach")
        await wait_for(pilot, lambda: any(r[1] == "link" for r in table_rows(pilot.app)))
        table = pilot.app.query_one("#query-results", ResultsTable)
        row = next(i for i, r in enumerate(table_rows(pilot.app)) if r[1] == "link")
        table.focus()
        table.move_cursor(row=row)
        detail = lambda: str(pilot.app.query_one("#query-row", Static).render())  # noqa: E731
        await wait_for(pilot, lambda: "places:harbour" in detail())
        assert "(via beach)" in detail() and detail().split()[:2] == [str(row + 1), "link"]
        assert "(via beach)" in screen_text(pilot.app)  # drawn, not only held by the widget
