"""The query pane shows what the library decided, in ``wikimem explain``'s own words.

Real ``MemoryIndex`` over small stores whose right answer is obvious: a hit
that an earlier hit links to keeps its rank and scores in its link place, the
time words that chose the window are named and not scored, the cosine floor
and what it removed are shown, and the cos floor knob (embeddings only)
changes the index.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from test_tui_query import QueryApp, table_rows, type_query, wait_for
from wikimem import MemoryIndex, MemoryStore, explain_lines, row_fields, row_note
from wikimem_tui.query.query_panel import QueryPanel


async def ask(pilot: Any, text: str) -> None:
    """Put ``text`` in the query box (CJK is not typed key by key) and run it."""
    pilot.app.query_one("#query-input", Input).value = text
    pilot.app.query_one(QueryPanel).run_query()
    await wait_for(pilot)


def summary_lines_on_screen(app: Any) -> list[str]:
    return str(app.query_one("#query-summary").render()).splitlines()


def status(app: Any) -> str:
    return str(app.query_one("#query-status").render())


def linked_hit_store(root: Path) -> MemoryIndex:
    """``想去海边玩`` finds the trip plan, which the beach note (ranked first) also links to."""
    store = MemoryStore(root)
    store.add("daily_life", "beach-notes", "想去海边玩，想去海边玩。见 [[daily_life:beach-trip-plan]]")
    store.add("daily_life", "beach-trip-plan", "周末的计划：去海边。")
    store.add("work", "standup", "Daily standup at ten.")
    return MemoryIndex(store, use_jieba=False)


async def test_a_hit_placed_as_a_link_keeps_its_rank_and_scores(tmp_path: Path) -> None:
    index = linked_hit_store(tmp_path)
    async with QueryApp(tmp_path, index).run_test(size=(160, 40)) as pilot:
        await ask(pilot, "想去海边玩")
        await wait_for(pilot, lambda: any(r[1] == "link" for r in table_rows(pilot.app)))
        rows = table_rows(pilot.app)
        plan = next(r for r in rows if r[6].strip() == "daily_life:beach-trip-plan")
        assert plan[1] == "link" and plan[3] != "0.000" and float(plan[3]) > 0  # its own BM25, not "link 0.000"
        assert plan[7] == "(via beach-notes)  hit #2 [去海, 海边]"
        result = pilot.app.query_one(QueryPanel).last_result
        for position, entry in enumerate(result.items, 1):  # every cell and note is explain's
            cells = [c.strip() for c in table_rows(pilot.app)[position - 1]]
            assert cells == [*row_fields(position, entry), row_note(entry)]
        assert status(pilot.app).startswith("2 hits (1 shown as a link), 0 added by links")


async def test_the_summary_is_explains_report_around_its_table(tmp_path: Path) -> None:
    index = linked_hit_store(tmp_path)
    async with QueryApp(tmp_path, index).run_test(size=(160, 40)) as pilot:
        pilot.app.query_one("#query-budget", Input).value = "12"
        await ask(pilot, "想去海边玩")
        await wait_for(pilot, lambda: "dropped" in "\n".join(summary_lines_on_screen(pilot.app)))
        result = pilot.app.query_one(QueryPanel).last_result
        report = explain_lines("想去海边玩", result)
        table_start = next(i for i, line in enumerate(report) if line.split() == "#  src  score  bm25  cos  ~tok  item".split())
        around = report[1:table_start] + report[table_start + 1 + len(result.items):]
        assert summary_lines_on_screen(pilot.app) == around


async def test_time_words_that_chose_the_window_are_named_and_not_scored(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.diary.append("Slept badly, woke at four.", date="2026-07-21", time="07:00")
    store.add("notes", "week-plan", "The week starts on Monday.")
    async with QueryApp(tmp_path, MemoryIndex(store, use_jieba=False)).run_test(size=(160, 40)) as pilot:
        await type_query(pilot, "yesterday slept")
        await wait_for(pilot, lambda: "time words:" in "\n".join(summary_lines_on_screen(pilot.app)))
        lines = summary_lines_on_screen(pilot.app)
        assert "query tokens: slept" in lines
        assert "time words: yesterday (chose the window; not scored)" in lines
        assert [r[6] for r in table_rows(pilot.app)] == ["diary 2026-07-21 07:00"]


# -- the cosine floor (embeddings only) -----------------------------------------------------------


class FloorEmbedder:
    """Concept vectors with a declared floor: "ocean" is near the sea item, far from the rest."""

    model = "floor-test"
    cos_floor = 0.5

    def embed(self, texts: list[str]) -> list[list[float]]:
        concepts = [("sea", "ocean", "beach"), ("coffee",), ("tea",)]
        return [[0.3] + [float(sum(t.lower().count(w) for w in ws)) for ws in concepts] for t in texts]


def floor_index(root: Path) -> MemoryIndex:
    pytest.importorskip("numpy")
    store = MemoryStore(root)
    store.add("places", "seaside", "A house by the sea.")
    store.add("drinks", "coffee", "Flat white.")
    store.add("drinks", "tea", "Jasmine.")
    index = MemoryIndex(store, use_jieba=False, embedder=FloorEmbedder(), vector_sync="manual")
    index.sync_vectors()
    return index


async def test_the_floor_used_and_what_it_removed_are_shown(tmp_path: Path) -> None:
    index = floor_index(tmp_path)
    app = QueryApp(tmp_path, index, embedder=index.embedder)
    async with app.run_test(size=(160, 40)) as pilot:
        await type_query(pilot, "ocean")
        # The whole query's summary: on a loaded machine the debounce can fire between keys ("o" has one too).
        await wait_for(pilot, lambda: "query tokens: ocean" in summary_lines_on_screen(app)
                       and "cos floor:" in "\n".join(summary_lines_on_screen(app)))
        lines = summary_lines_on_screen(app)
        assert "ranking: BM25 + cosine (fused)" in lines
        assert "cos floor: 0.500 [embedder] for candidates without a BM25 match; 2 below it" in lines
        assert [r[6] for r in table_rows(app)] == ["places:seaside"]


async def test_the_floor_knob_changes_the_index_and_the_result(tmp_path: Path) -> None:
    index = floor_index(tmp_path)
    app = QueryApp(tmp_path, index, embedder=index.embedder)
    async with app.run_test(size=(160, 40)) as pilot:
        knob = app.query_one("#query-floor", Input)
        assert knob.value == "auto"
        await type_query(pilot, "ocean")
        await wait_for(pilot, lambda: len(table_rows(app)) == 1)
        knob.value = "off"
        await wait_for(pilot, lambda: len(table_rows(app)) == 3)  # positive cosine only: all three
        assert index.cos_floor_source == "off"
        assert "cos floor: off (positive cosine only)" in summary_lines_on_screen(app)
        knob.value = "0.9"
        await wait_for(pilot, lambda: "cos floor: 0.900 [explicit]" in "\n".join(summary_lines_on_screen(app)))
        knob.value = "2"
        await wait_for(pilot, lambda: "cos floor: auto, off, or a cosine" in status(app))
        assert index.cos_floor == 0.9


async def test_the_floor_knob_exists_only_with_embeddings(tmp_path: Path) -> None:
    async with QueryApp(tmp_path, linked_hit_store(tmp_path)).run_test(size=(160, 40)) as pilot:
        assert not pilot.app.query("#query-floor")
