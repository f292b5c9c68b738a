"""The diary calendar pane and the append dialog: what is shown, what is written."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from textual.app import App
from textual.widgets import Input, OptionList, Static, TextArea

from conftest import wait_for
from pane_harness import PaneApp
from wikimem import MemoryStore, draft_promotion
from wikimem_tui.core.backend import Backend
from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.common.messages import StoreChanged
from wikimem_tui.calendar.diary_append import DiaryAppendScreen
from wikimem_tui.calendar.calendar import DiaryCalendar, MonthGrid

TODAY = dt.date(2026, 7, 22)
NOW = dt.datetime(2026, 7, 22, 9, 15, tzinfo=dt.timezone.utc)


class CalendarApp(PaneApp):
    """Mounts only the calendar over a temp store, routing changes as the App does.

    ``recounts`` counts catalogue builds: the calendar itself never counts.
    """

    def __init__(self, root: Path, *, read_only: bool = False) -> None:
        super().__init__(Backend(
            root=root,
            store=MemoryStore(root),
            index=None,  # type: ignore[arg-type]  # the calendar never queries
            owner="tui:test",
            read_only=read_only,
            clock=lambda: NOW,
            today=lambda: TODAY,
        ), DiaryCalendar)
        self.recounts = 0

    def on_mount(self) -> None:
        self.rebuild_catalogue()

    def rebuild_catalogue(self) -> None:
        """What the App's catalogue worker does after a change (here on the UI thread: a test)."""
        self.recounts += 1
        self.query_one(DiaryCalendar).set_catalogue(Catalogue.build(self.backend.store))

    def on_store_changed(self, message: StoreChanged) -> None:
        self.query_one(DiaryCalendar).refresh_from_store(message.change)
        self.rebuild_catalogue()


def seeded(root: Path) -> Path:
    diary = MemoryStore(root).diary
    diary.append("went to the [[places:beach]]", date="2026-07-21", time="14:30", owner="agent")
    diary.append("[bold]not bold[/bold] \x1b[31m", date="2026-07-21", time="09:00", owner="agent")
    diary.append("coffee", date="2026-07-03", time="08:00")
    diary.append("last month", date="2026-06-30", time="08:00")
    return root


def grid_text(app: App) -> str:
    return app.query_one(MonthGrid).render().plain


def entries_text(app: App) -> str:
    options = app.query_one("#diary-entries", OptionList)
    return "\n".join(str(options.get_option_at_index(i).prompt) for i in range(options.option_count))


def day_title(app: App) -> str:
    return str(app.query_one("#diary-day-title", Static).render())


async def test_opens_on_todays_month_with_counts_on_days(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        text = grid_text(pilot.app)
        assert "July 2026" in text
        assert "21·2" in text and " 3·1" in text
        assert "30·1" not in text  # June's entry is not in July's grid


async def test_moving_to_a_day_lists_its_entries_in_time_order(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        pilot.app.query_one(MonthGrid).focus()
        await pilot.press("left")
        await wait_for(pilot)
        assert day_title(pilot.app).startswith("2026-07-21 (Tuesday) — 2 entries")
        text = entries_text(pilot.app)
        assert text.index("09:00") < text.index("14:30")
        assert "[[places:beach]]" in text and "agent" in text


async def test_entry_markup_and_escapes_are_shown_literally(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        pilot.app.query_one(DiaryCalendar).show_date("2026-07-21")
        await wait_for(pilot)
        assert "[bold]not bold[/bold] ␛[31m" in entries_text(pilot.app)


async def test_page_keys_change_month(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        pilot.app.query_one(MonthGrid).focus()
        await pilot.press("pageup")
        await wait_for(pilot)
        assert "June 2026" in grid_text(pilot.app) and "30·1" in grid_text(pilot.app)
        await pilot.press("greater_than_sign", "greater_than_sign")
        await wait_for(pilot)
        assert "August 2026" in grid_text(pilot.app)


async def test_clicking_a_day_picks_it(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        # July 2026 starts on a Wednesday: the 21st is row 4 (y=5), Tuesday (x=7..13).
        await pilot.click(MonthGrid, offset=(8, 5))
        await wait_for(pilot)
        assert pilot.app.opened == [("diary", "2026-07-21", None)]
        assert "14:30" in entries_text(pilot.app)


async def test_selecting_an_entry_opens_that_time(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        pilot.app.query_one(DiaryCalendar).show_date("2026-07-21")
        await wait_for(pilot)
        pilot.app.query_one("#diary-entries", OptionList).focus()
        await pilot.press("down", "down", "enter")
        await wait_for(pilot)
        assert pilot.app.opened == [("diary", "2026-07-21", "14:30")]


async def test_append_writes_a_new_entry_on_the_selected_day(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        pilot.app.query_one(DiaryCalendar).show_date("2026-07-03")
        pilot.app.query_one(MonthGrid).focus()
        await pilot.press("a")
        await wait_for(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, DiaryAppendScreen)
        assert screen.query_one("#append-date", Input).value == "2026-07-03"
        screen.query_one("#append-time", Input).value = "10:45"
        screen.query_one(TextArea).text = "swam at [[places:beach]]"
        await pilot.press("ctrl+s")
        await wait_for(pilot)
        assert not isinstance(pilot.app.screen, DiaryAppendScreen)
        entries = MemoryStore(tmp_path).diary.day("2026-07-03")
        assert [(e.time, e.content, e.owner) for e in entries][-1] == (
            "10:45",
            "swam at [[places:beach]]",
            "tui:test",
        )
        assert " 3·2" in grid_text(pilot.app)
        assert "swam at" in entries_text(pilot.app)


async def test_append_time_defaults_to_the_backend_clock(tmp_path: Path) -> None:
    async with CalendarApp(tmp_path).run_test() as pilot:
        pilot.app.push_screen(DiaryAppendScreen(pilot.app.backend))
        await wait_for(pilot)
        screen = pilot.app.screen
        assert screen.query_one("#append-date", Input).value == "2026-07-22"
        expected = NOW.astimezone().strftime("%H:%M")
        assert screen.query_one("#append-time", Input).value == expected


async def test_append_validation_error_is_inline_and_writes_nothing(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        pilot.app.query_one(MonthGrid).focus()
        await pilot.press("a")
        await wait_for(pilot)
        screen = pilot.app.screen
        screen.query_one("#append-time", Input).value = "25:99"
        screen.query_one(TextArea).text = "late"
        await pilot.press("ctrl+s")
        await wait_for(pilot)
        assert pilot.app.screen is screen
        assert "not appended" in str(screen.query_one("#append-error", Static).render())
        assert MemoryStore(tmp_path).diary.dates() == ["2026-06-30", "2026-07-03", "2026-07-21"]


async def test_append_is_blocked_when_read_only(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path), read_only=True).run_test() as pilot:
        journal_before = (tmp_path / "journal.jsonl").read_text(encoding="utf-8")
        pilot.app.query_one(MonthGrid).focus()
        await pilot.press("a")
        await wait_for(pilot)
        assert not isinstance(pilot.app.screen, DiaryAppendScreen)
        assert (tmp_path / "journal.jsonl").read_text(encoding="utf-8") == journal_before


async def test_refresh_from_store_picks_up_external_appends(tmp_path: Path) -> None:
    from wikimem_tui.core.changes import StoreChange

    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        MemoryStore(tmp_path).diary.append("external", date="2026-07-22", time="07:00")
        pilot.app.post_message(StoreChanged(StoreChange(diary_dates=frozenset({"2026-07-22"}))))
        await wait_for(pilot)
        assert "22·1" in grid_text(pilot.app)
        assert "external" in entries_text(pilot.app)


async def test_counts_come_from_the_catalogue_not_from_the_diary(tmp_path: Path) -> None:
    from wikimem_tui.core.changes import StoreChange

    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        calendar = pilot.app.query_one(DiaryCalendar)
        MemoryStore(tmp_path).diary.append("external", date="2026-07-22", time="07:00")
        calendar.refresh_from_store(StoreChange(diary_dates=frozenset({"2026-07-22"})))
        await wait_for(pilot)
        assert "external" in entries_text(pilot.app)  # the day on screen is re-read…
        assert "22·1" not in grid_text(pilot.app)  # …but nothing is re-counted on the UI thread
        pilot.app.rebuild_catalogue()
        await wait_for(pilot)
        assert "22·1" in grid_text(pilot.app)


async def test_dot_jumps_to_today(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        pilot.app.query_one(MonthGrid).focus()
        await pilot.press("pageup", "pageup", "full_stop")
        await wait_for(pilot)
        assert pilot.app.query_one(MonthGrid).selected == TODAY
        assert "July 2026" in grid_text(pilot.app)


async def test_brackets_jump_to_the_previous_and_next_day_with_entries(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        grid = pilot.app.query_one(MonthGrid)
        grid.focus()
        await pilot.press("left_square_bracket")  # from 07-22 (today, no entries)
        await wait_for(pilot)
        assert grid.selected == dt.date(2026, 7, 21)
        await pilot.press("left_square_bracket", "left_square_bracket")  # over the empty days, into June
        await wait_for(pilot)
        assert grid.selected == dt.date(2026, 6, 30) and "June 2026" in grid_text(pilot.app)
        await pilot.press("left_square_bracket")  # nothing earlier: stays, says so
        await wait_for(pilot)
        assert grid.selected == dt.date(2026, 6, 30)
        await pilot.press("right_square_bracket")
        await wait_for(pilot)
        assert grid.selected == dt.date(2026, 7, 3)
        assert day_title(pilot.app).startswith("2026-07-03 (Friday) — 1 entry")


async def test_weeks_run_monday_to_sunday(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        lines = grid_text(pilot.app).splitlines()
        assert lines[1].split() == ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"]
        assert lines[2].split() == ["1", "2", "3·1", "4", "5"]  # July 1st 2026 is a Wednesday
        assert lines[5].split() == ["20", "21·2", "22", "23", "24", "25", "26"]


async def test_clicking_the_month_arrows_changes_month(tmp_path: Path) -> None:
    async with CalendarApp(seeded(tmp_path)).run_test() as pilot:
        await pilot.click(MonthGrid, offset=(0, 0))
        await wait_for(pilot)
        assert "June 2026" in grid_text(pilot.app)
        await pilot.click(MonthGrid, offset=(41, 0))
        await pilot.click(MonthGrid, offset=(41, 0))
        await wait_for(pilot)
        assert "August 2026" in grid_text(pilot.app)


def test_promotion_journals_which_diary_entries_it_came_from(tmp_path: Path) -> None:
    store = MemoryStore(seeded(tmp_path))
    backend = Backend(root=tmp_path, store=store, index=None, owner="tui:test", clock=lambda: NOW)  # type: ignore[arg-type]
    entries = store.diary.day("2026-07-21")
    draft = draft_promotion(entries)
    backend.promote_draft(entries, "places", "beach", draft.content, expected=None, owner="tui:test", source=None,
                          detail=draft.detail)
    last = store.journal.entries()[-1]
    assert last["detail"] == "promoted from diary 2026-07-21 09:00, 2026-07-21 14:30"
