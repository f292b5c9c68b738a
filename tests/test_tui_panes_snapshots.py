"""SVG snapshots of the calendar, journal, query and health panes at 120x40, plus health behaviour.

Everything on screen is pinned: the store is written with fixed timestamps,
the journal is replaced by fixed lines, "today" and the clock are injected,
animations are off and no cursor blinks.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import DataTable, Input, Static

from conftest import retrieved
from wikimem import MemoryStore, RetrievalResult
from wikimem_tui.context import Backend
from wikimem_tui.messages import OpenItem
from wikimem_tui.widgets.calendar import DiaryCalendar
from wikimem_tui.widgets.health import HealthPane
from wikimem_tui.widgets.journal_tail import JournalTail, JournalView
from wikimem_tui.widgets.query_panel import QueryPanel

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


class PaneApp(App[None]):
    """One pane, full screen, over a pinned backend."""

    def __init__(self, backend: Backend, pane: Callable[[], Widget]) -> None:
        super().__init__()
        self.backend = backend
        self._pane = pane
        self.animation_level = "none"
        self.opened: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield self._pane()

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = False
        for pane in self.query("QueryPanel, HealthPane"):
            pane.show_timing = False  # type: ignore[attr-defined]

    def on_open_item(self, message: OpenItem) -> None:
        self.opened.append((message.file, message.name))


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
            retrieved("places", "beach", score=0.912, bm25_score=4.331, matched_terms=["beach", "sea"], tokens_est=9),
            retrieved("places", "harbour", "link", score=0.0, via="beach", tokens_est=8),
            retrieved("prefs", "likes-the-sea", score=0.402, bm25_score=1.902, matched_terms=["sea"], tokens_est=5),
            retrieved("2026-07-21", "14:30", score=0.301, bm25_score=1.1, matched_terms=["beach"], tokens_est=5),
        ],
        budget_tokens=30,
        budget_used=27,
        dropped=[retrieved("notes", "long-[b]essay[/b]", score=0.2, tokens_est=120)],
        unresolved_links=["[[places:atlantis]]"],
        time_range=("2026-07-21", "2026-07-21"),
        time_range_source="parsed",
    )


async def settle(pilot: Any, cond: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait until ``cond()`` holds, then one more repaint; a picture of a half-loaded pane is a failure."""
    for _ in range(int(timeout / 0.02)):
        if cond():
            await pilot.pause()
            return
        await pilot.pause(0.02)
    raise AssertionError(f"settle: the pane never got ready within {timeout} s; no snapshot taken")


def test_calendar_pane_snapshot(tmp_path: Path, snap_compare: Any) -> None:
    app = PaneApp(seeded_store(tmp_path), DiaryCalendar)

    async def pick_day(pilot: Any) -> None:
        pilot.app.query_one(DiaryCalendar).show_date("2026-07-21")
        await pilot.pause()

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
        await settle(pilot, lambda: len(pilot.app.query_one(JournalView).rows) == 5)

    assert snap_compare(app, terminal_size=SIZE, run_before=loaded)


def test_query_pane_snapshot(tmp_path: Path, snap_compare: Any) -> None:
    backend = seeded_store(tmp_path)
    backend.index = ScriptedIndex(explained())  # type: ignore[assignment]
    app = PaneApp(backend, QueryPanel)

    async def queried(pilot: Any) -> None:
        pilot.app.query_one("#query-input", Input).value = "beach sea 昨天"
        pilot.app.query_one(QueryPanel).run_query()
        await settle(pilot, lambda: pilot.app.query_one(DataTable).row_count == 5)

    assert snap_compare(app, terminal_size=SIZE, run_before=queried)


def test_health_pane_snapshot(tmp_path: Path, snap_compare: Any) -> None:
    app = PaneApp(seeded_store(tmp_path), HealthPane)

    async def checked(pilot: Any) -> None:
        await settle(pilot, lambda: pilot.app.query_one(DataTable).row_count > 0)

    assert snap_compare(app, terminal_size=SIZE, run_before=checked)


def health_status(app: App) -> str:
    return str(app.query_one("#health-status", Static).render())


async def test_health_lists_dangling_links_and_non_json_journal_lines(tmp_path: Path) -> None:
    async with PaneApp(seeded_store(tmp_path), HealthPane).run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: "finding" in health_status(pilot.app))
        pane = pilot.app.query_one(HealthPane)
        assert sorted((f.code, f.location) for f in pane.findings) == [
            ("dangling-link", "places:beach"),
            ("journal-not-json", "journal.jsonl:5"),
        ]
        assert any("[[places:atlantis]]" in f.message for f in pane.findings)


async def test_health_finding_opens_its_item(tmp_path: Path) -> None:
    async with PaneApp(seeded_store(tmp_path), HealthPane).run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: "finding" in health_status(pilot.app))
        pilot.app.query_one(DataTable).focus()
        await pilot.press("down", "enter")
        assert pilot.app.opened == [("places", "beach")]


async def test_health_rechecks_after_a_store_change(tmp_path: Path) -> None:
    backend = seeded_store(tmp_path)
    async with PaneApp(backend, HealthPane).run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: "finding" in health_status(pilot.app))
        backend.store.add("places", "atlantis", "Found it.", ts=TS)
        pilot.app.query_one(HealthPane).refresh_from_store()
        await settle(pilot, lambda: len(pilot.app.query_one(HealthPane).findings) == 1)
        assert pilot.app.query_one(HealthPane).findings[0].code == "journal-not-json"


async def test_health_flags_hand_edited_names_that_fail_validation(tmp_path: Path) -> None:
    backend = seeded_store(tmp_path)
    (tmp_path / "wiki" / "Bad File.md").write_text("# Bad File\n\n## ok\n\nfine\n", encoding="utf-8")
    (tmp_path / "wiki" / "hand.md").write_text("# hand\n\n## a:b\n\ncolon in the name\n", encoding="utf-8")
    async with PaneApp(backend, HealthPane).run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: "finding" in health_status(pilot.app))
        found = {(f.code, f.severity, f.location) for f in pilot.app.query_one(HealthPane).findings}
        assert ("bad-item-name", "error", "hand:a:b") in found
        assert ("bad-file-name", "error", "wiki/Bad File.md") in found


async def test_settle_fails_loudly_when_the_pane_never_gets_ready(tmp_path: Path) -> None:
    import pytest

    async with PaneApp(seeded_store(tmp_path), HealthPane).run_test(size=SIZE) as pilot:
        with pytest.raises(AssertionError, match="never got ready"):
            await settle(pilot, lambda: False, timeout=0.2)


async def test_health_shows_the_highlighted_finding_whole(tmp_path: Path) -> None:
    async with PaneApp(seeded_store(tmp_path), HealthPane).run_test(size=(60, 20)) as pilot:
        await settle(pilot, lambda: "finding" in health_status(pilot.app))
        pilot.app.query_one(DataTable).focus()
        await pilot.press("down")  # the second finding: the dangling link (journal.jsonl sorts first)
        await pilot.pause()
        detail = str(pilot.app.query_one("#health-detail", Static).render())
        assert "links to [[places:atlantis]], which does not exist" in detail and "places:beach" in detail
