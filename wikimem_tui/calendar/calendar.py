"""Diary calendar: a month grid (Monday first) over the day files, and a day's entries.

The diary can span years, so this pane never counts anything itself: which
days have entries, and how many, come from the app's ``Catalogue`` (built
and re-built after every change in a thread worker, handed in through
``set_catalogue``). Only the highlighted day is read, in full, to list its
entries. ``.`` jumps to today and ``[`` / ``]`` to the previous / next day
that has entries, so a sparse diary is walked without paging through empty
months. Entry text is untrusted and drawn as plain ``Text``.
"""

from __future__ import annotations

import bisect
import calendar
import datetime as dt
import re
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical
from textual.events import Resize
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from wikimem import DiaryItem
from wikimem_tui.core.backend import Backend
from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.common.messages import OpenDiaryDay, StoreChanged
from wikimem_tui.common.safe import safe_line, safe_text
from wikimem_tui.core.words import count

__all__ = ["DiaryCalendar", "MonthGrid", "entry_text"]

CELL = 6
_WEEKDAYS = ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su")
_LINK_RE = re.compile(r"\[\[[^\[\]\n]*\]\]")


def _shift_month(day: dt.date, months: int) -> dt.date:
    """The same day-of-month ``months`` away, clamped to the month's length."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return dt.date(year, month + 1, min(day.day, last))


def entry_text(entry: DiaryItem) -> Text:
    """One diary entry for a list: time, owner, then the content with links marked."""
    head = Text.assemble(
        safe_line(entry.entry_id.key, "bold"),  # 14:30#2 for a minute's second entry (wikimem.diary_id)
        "  ",
        safe_line(entry.owner or "", "cyan"),
    )
    body = safe_text(entry.content)
    for match in _LINK_RE.finditer(body.plain):
        body.stylize("underline bold blue", match.start(), match.end())
    return Text("\n", end="").join([head, body])


class MonthGrid(Widget, can_focus=True):
    """The month on screen; keyboard and mouse move and pick the day."""

    HELP_TITLE = "Month grid"

    DEFAULT_CSS = """
    MonthGrid { width: 42; height: 8; }
    MonthGrid:focus { background: $boost; }
    """

    BINDINGS = [
        Binding("left", "move(-1)", "Prev day", show=False, id="calendar.left"),
        Binding("right", "move(1)", "Next day", show=False, id="calendar.right"),
        Binding("up", "move(-7)", "Prev week", show=False, id="calendar.up"),
        Binding("down", "move(7)", "Next week", show=False, id="calendar.down"),
        Binding("pageup,less_than_sign", "month(-1)", "Prev month", id="calendar.prev_month"),
        Binding("pagedown,greater_than_sign", "month(1)", "Next month", id="calendar.next_month"),
        Binding("enter", "pick", "Open day", id="calendar.pick"),
    ]

    selected: reactive[dt.date] = reactive(dt.date(2000, 1, 1))
    """The highlighted day (the grid shows its month)."""

    class DayHighlighted(Message):
        """The highlighted day changed (maybe to another month)."""

        def __init__(self, day: dt.date) -> None:
            super().__init__()
            self.day = day

    class DayPicked(Message):
        """The user chose a day (enter or click)."""

        def __init__(self, day: dt.date) -> None:
            super().__init__()
            self.day = day

    def __init__(self, day: dt.date, today: dt.date, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.set_reactive(MonthGrid.selected, day)
        self.today = today
        self.counts: dict[str, int] = {}
        """Entries per ISO date for the month on screen."""

    def watch_selected(self, day: dt.date) -> None:
        self.post_message(self.DayHighlighted(day))

    def _first_cell(self) -> dt.date:
        first = self.selected.replace(day=1)
        return first - dt.timedelta(days=first.weekday())

    def render(self) -> Text:
        title = self.selected.strftime("%B %Y")
        lines = [Text.assemble(("‹", "bold"), title.center(CELL * 7 - 2), ("›", "bold"))]
        lines.append(Text("".join(f"{name:>3}".ljust(CELL) for name in _WEEKDAYS), style="dim"))
        day = self._first_cell()
        for _week in range(6):
            row = Text()
            for _ in range(7):
                row.append_text(self._cell(day))
                day += dt.timedelta(days=1)
            lines.append(row)
        return Text("\n").join(lines)

    def _cell(self, day: dt.date) -> Text:
        if day.month != self.selected.month:
            return Text(" " * CELL)
        count = self.counts.get(day.isoformat(), 0)
        label = f"{day.day:>3}" + (f"·{min(count, 99)}" if count else "")
        style = "bold green" if count else ""
        if day == self.today:
            style += " underline"
        if day == self.selected:
            style += " reverse"
        return Text(label.ljust(CELL), style=style.strip())

    def action_move(self, days: int) -> None:
        """Highlight a day ``days`` away."""
        self.selected = self.selected + dt.timedelta(days=days)

    def action_month(self, months: int) -> None:
        """Show another month, keeping the day of month."""
        self.selected = _shift_month(self.selected, months)

    def action_pick(self) -> None:
        """Choose the highlighted day."""
        self.post_message(self.DayPicked(self.selected))

    def on_click(self, event: Any) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            if offset.x < 3:
                self.action_month(-1)
            elif offset.x >= CELL * 7 - 3:
                self.action_month(1)
            return
        if offset.y < 2 or offset.x >= CELL * 7:
            return
        day = self._first_cell() + dt.timedelta(days=(offset.y - 2) * 7 + offset.x // CELL)
        if day.month == self.selected.month:
            self.selected = day
            self.action_pick()


class DiaryCalendar(Widget):
    """The diary pane: month grid above, the highlighted day's entries below."""

    DEFAULT_CSS = """
    DiaryCalendar { height: 1fr; }
    DiaryCalendar #diary-body { layout: vertical; height: 1fr; }
    DiaryCalendar.-wide #diary-body { layout: horizontal; }
    DiaryCalendar #diary-left { width: 44; height: auto; }
    DiaryCalendar #diary-hint { color: $text-muted; height: auto; }
    DiaryCalendar #diary-right { height: 1fr; }
    DiaryCalendar #diary-day-title { height: 1; text-style: bold; }
    DiaryCalendar #diary-entries { height: 1fr; }
    """

    HELP_TITLE = "Diary calendar"
    HINT = "arrows: day · pgup/pgdn or </>: month\n. today · [ ]: day with entries\nenter/click: open day · "

    BINDINGS = [
        Binding("a", "append", "Append entry", id="calendar.append"),
        Binding("full_stop", "today", "Today", id="calendar.today", key_display="."),
        Binding("left_square_bracket", "entry_day(-1)", "Prev entry day", id="calendar.prev-entry-day",
                key_display="["),
        Binding("right_square_bracket", "entry_day(1)", "Next entry day", id="calendar.next-entry-day",
                key_display="]"),
    ]

    def __init__(self, backend: Backend, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.backend = backend
        """The app's :class:`~wikimem_tui.core.backend.Backend` (reads, and the append dialog's writes)."""
        self.catalogue: Catalogue | None = None
        """Where the per-day counts come from; None until the app's first build finishes."""

    def compose(self) -> ComposeResult:
        today = self.backend.today()
        with Container(id="diary-body"):
            with Vertical(id="diary-left"):
                yield MonthGrid(today, today, id="diary-grid")
                append = "read-only" if self.backend.read_only else "a: append"
                yield Static(Text(self.HINT + append), id="diary-hint")
            with Vertical(id="diary-right"):
                yield Static(id="diary-day-title", markup=False)
                yield OptionList(id="diary-entries")

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width >= 90, "-wide")

    @property
    def grid(self) -> MonthGrid:
        """The month grid."""
        return self.query_one(MonthGrid)

    @property
    def selected_date(self) -> str:
        """The highlighted day as ``YYYY-MM-DD``."""
        return self.grid.selected.isoformat()

    def on_mount(self) -> None:
        self._show_day(self.grid.selected)

    def show_date(self, date: str) -> None:
        """Highlight ``date`` (ISO) and list its entries, e.g. from OpenDiaryDay."""
        self.grid.selected = dt.date.fromisoformat(date)

    def set_catalogue(self, catalogue: Catalogue) -> None:
        """New counts (the app's worker re-built the catalogue): redraw the grid, nothing is read."""
        first = self.catalogue is None
        self.catalogue = catalogue
        grid = self.grid
        grid.counts = catalogue.diary_counts
        grid.refresh()
        if first:
            self._open_on_latest(catalogue)

    def _open_on_latest(self, catalogue: Catalogue) -> None:
        """Open on the month of the latest entry when today's month has none (a diary kept years ago
        opened on an empty grid, as if there were no diary), unless the user already went elsewhere."""
        today = self.backend.today()
        days = [day for day, n in catalogue.diary_counts.items() if n]
        month = today.isoformat()[:7]
        if not days or self.grid.selected != today or any(day.startswith(month) for day in days):
            return
        latest = max(days)
        if latest < today.isoformat():
            self.grid.selected = dt.date.fromisoformat(latest)

    def refresh_from_store(self, change: StoreChange | None = None) -> None:
        """Re-read the highlighted day if it changed (its count arrives with the next catalogue)."""
        if change is None or self.selected_date in change.diary_dates:
            self._show_day(self.grid.selected)

    def action_today(self) -> None:
        """Highlight today (the backend's, so tests and snapshots pin it)."""
        self.grid.selected = self.backend.today()

    def action_entry_day(self, step: int) -> None:
        """Highlight the nearest earlier (``step`` -1) or later (1) day that has entries."""
        days = list(self.catalogue.diary_counts) if self.catalogue is not None else []  # sorted ISO dates
        here = self.selected_date
        if step < 0:
            at = bisect.bisect_left(days, here) - 1
        else:
            at = bisect.bisect_right(days, here)
        if 0 <= at < len(days):
            self.grid.selected = dt.date.fromisoformat(days[at])
        else:
            self.notify("no earlier diary entries" if step < 0 else "no later diary entries", markup=False)

    def _show_day(self, day: dt.date) -> None:
        entries = self.backend.diary.day(day.isoformat())
        n = len(entries)
        title = f"{day.isoformat()} ({day.strftime('%A')}) — "
        title += count(n, "entry") if n else "no entries"
        self.query_one("#diary-day-title", Static).update(Text(title))
        options = self.query_one("#diary-entries", OptionList)
        options.clear_options()
        options.add_options(
            Option(entry_text(entry), id=f"{i}|{entry.entry_id.key}") for i, entry in enumerate(entries)
        )

    @on(MonthGrid.DayHighlighted)
    def _highlighted(self, event: MonthGrid.DayHighlighted) -> None:
        event.stop()
        self._show_day(event.day)

    @on(MonthGrid.DayPicked)
    def _picked(self, event: MonthGrid.DayPicked) -> None:
        event.stop()
        self.post_message(OpenDiaryDay(event.day.isoformat()))

    @on(OptionList.OptionSelected, "#diary-entries")
    def _entry_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        time = (event.option.id or "|").split("|", 1)[1]
        self.post_message(OpenDiaryDay(self.selected_date, time or None))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Appending is off when read-only (the key then falls through to the App)."""
        if action == "append" and self.backend.read_only:
            return False
        return True

    def action_append(self) -> None:
        """Open the append dialog for the highlighted day (not when read-only)."""
        from wikimem_tui.calendar.diary_append import DiaryAppendScreen

        if self.backend.read_only:
            self.notify("Read-only: the diary cannot be appended to.", severity="warning", markup=False)
            return
        self.app.push_screen(DiaryAppendScreen(self.backend, self.selected_date), self._appended)

    def _appended(self, entry: DiaryItem | None) -> None:
        if entry is None:
            return
        change = StoreChange(diary_dates=frozenset({entry.date}), journal=True, external=False)
        self.show_date(entry.date)  # the app routes the change back: refresh_from_store, then a new catalogue
        self.post_message(StoreChanged(change))
