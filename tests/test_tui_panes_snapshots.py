"""SVG snapshots of the calendar, journal and query panes at 120x40 (health: test_tui_health.py).

Everything on screen is pinned: the store is written with fixed timestamps,
the journal is replaced by fixed lines, "today" and the clock are injected,
animations are off and no cursor blinks.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from textual.widgets import Input

from conftest import retrieved, wait_for
from pane_harness import PaneApp
from wikimem import MemoryStore, RetrievalResult
from wikimem_tui.core.backend import Backend
from wikimem_tui.calendar.calendar import DiaryCalendar
from wikimem_tui.journal.journal_tail import JournalTail, JournalView
from wikimem_tui.query.query_panel import QueryPanel
from wikimem_tui.query.table import ResultsTable

TODAY = dt.date(2026, 7, 22)
NOW = dt.datetime(2026, 7, 22, 9, 15, tzinfo=dt.timezone.utc)
TS = "2026-07-21T06:30:00+00:00"
SIZE = (120, 40)


class ScriptedIndex:
    """A fixed explained result, so the snapshot does not move with ranking changes."""

    fusion_weight = 0.5

    def __init__(self, result: RetrievalResult) -> None:
        self.result = result

    def retrieve(self, query: str, **kwargs: Any) -> RetrievalResult:
        return self.result


def seeded_store(root: Path) -> Backend:
    store = MemoryStore(root)
    store.add("places", "beach", "Sandy. See [[places:harbour]] and [[places:atlantis]].", owner="agent", ts=TS)
    store.add("places", "harbour", "Boats [bold]not bold[/bold] \x1b[31mnot red", owner="agent", ts=TS)
    store.add("prefs", "likes-the-sea", "The user likes the sea.", owner="user:xnne", ts=TS)
    diary = store.diary
    diary.append("Went swimming at [[places:beach]].", date="2026-07-21", time="14:30", owner="agent", ts=TS)
    diary.append("Coffee with [red]Ana[/red].", date="2026-07-21", time="09:00", owner="agent", ts=TS)
    diary.append("Rain all day.", date="2026-07-08", time="18:00", owner="agent", ts=TS)
    diary.append("Planned the trip.", date="2026-07-22", time="08:10", owner="tui:me", ts=TS)
    lines = [
        {"ts": "2026-07-10T03:00:00+00:00", "action": "add", "file": "places", "item": "beach", "owner": "agent"},
        {"ts": "2026-07-10T03:05:12+00:00", "action": "update", "file": "places", "item": "beach", "owner": "user:xnne"},
        {"ts": "2026-07-10T04:11:40+00:00", "action": "remove", "file": "daily_life", "item": "beach-trip-plan"},
        {"ts": "2026-07-21T06:30:05+00:00", "action": "diary", "date": "2026-07-21", "time": "14:30", "owner": "agent", "source_conv": "conv_20260721"},
    ]
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    text += "{torn line, not json\n"
    (root / "journal.jsonl").write_text(text, encoding="utf-8")
    return Backend(root=root, store=store, index=None, owner="tui:test",  # type: ignore[arg-type]
                   clock=lambda: NOW, today=lambda: TODAY)


def explained() -> RetrievalResult:
    return RetrievalResult(
        items=[
            retrieved("places", "beach", score=0.912, bm25_score=4.331, matched_terms=["beach", "sea"], tokens_est=9,
                      rank=1),
            retrieved("places", "harbour", "link", score=0.0, via="beach", tokens_est=8),
            retrieved("prefs", "likes-the-sea", "link", score=0.402, bm25_score=1.902, matched_terms=["sea"],
                      tokens_est=5, via="beach", rank=2),
            retrieved("2026-07-21", "14:30", score=0.301, bm25_score=1.1, matched_terms=["beach"], tokens_est=5,
                      rank=3),
        ],
        budget_tokens=30,
        budget_used=27,
        dropped=[retrieved("notes", "long-[b]essay[/b]", score=0.2, tokens_est=120)],
        unresolved_links=["[[places:atlantis]]"],
        time_range=("2026-07-21", "2026-07-21"),
        time_range_source="parsed",
        query_tokens=["beach", "sea"],
        time_words=["昨天"],
    )


def test_calendar_pane_snapshot(tmp_path: Path, snap_compare: Any) -> None:
    app = PaneApp(seeded_store(tmp_path), DiaryCalendar)

    async def pick_day(pilot: Any) -> None:
        pilot.app.query_one(DiaryCalendar).show_date("2026-07-21")
        await wait_for(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=pick_day)


def test_diary_append_dialog_snapshot(tmp_path: Path, snap_compare: Any) -> None:
    app = PaneApp(seeded_store(tmp_path), DiaryCalendar)
    app.cursor_blink = False  # type: ignore[attr-defined]

    async def open_dialog(pilot: Any) -> None:
        pilot.app.query_one(DiaryCalendar).show_date("2026-07-21")
        pilot.app.query_one("MonthGrid").focus()
        await pilot.press("a")
        await pilot.press(*"Swam again, see [[places:beach]]")
        # The default time is the clock in the machine's zone: pin it for the picture.
        pilot.app.screen.query_one("#append-time", Input).value = "09:15"

    assert snap_compare(app, terminal_size=SIZE, run_before=open_dialog)


def test_journal_pane_snapshot(tmp_path: Path, snap_compare: Any) -> None:
    app = PaneApp(seeded_store(tmp_path), JournalTail)

    async def loaded(pilot: Any) -> None:
        await wait_for(pilot, lambda: len(pilot.app.query_one(JournalView).rows) == 5)
        await wait_for(pilot)  # a picture of a half-drawn pane is a failure

    assert snap_compare(app, terminal_size=SIZE, run_before=loaded)


def test_query_pane_snapshot(tmp_path: Path, snap_compare: Any) -> None:
    backend = seeded_store(tmp_path)
    backend.index = ScriptedIndex(explained())  # type: ignore[assignment]
    app = PaneApp(backend, QueryPanel)

    async def queried(pilot: Any) -> None:
        pilot.app.query_one("#query-input", Input).value = "beach sea 昨天"
        pilot.app.query_one(QueryPanel).run_query()
        await wait_for(pilot, lambda: pilot.app.query_one(ResultsTable).row_total == 5)
        await wait_for(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=queried)


async def test_a_wait_that_never_ends_fails_saying_what_it_waited_for(tmp_path: Path) -> None:
    import pytest

    async with PaneApp(seeded_store(tmp_path), DiaryCalendar).run_test(size=SIZE) as pilot:
        with pytest.raises(AssertionError, match=r"waited 0.2 s for the pane to get ready: it never happened"):
            await wait_for(pilot, lambda: False, "the pane to get ready", safety_net=0.2)
        with pytest.raises(AssertionError, match=r"for lambda: False: it never happened"):  # no words given: the condition's source
            await wait_for(pilot, lambda: False, safety_net=0.2)
        with pytest.raises(TypeError, match=r"not 15: a wait's only deadline is the safety net"):  # the old per-call limit
            await wait_for(pilot, lambda: True, 15)  # type: ignore[arg-type]
