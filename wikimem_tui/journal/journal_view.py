"""The journal's rows on screen: a virtual list that renders only what is visible.

A journal can hold hundreds of thousands of lines, so the view is a Line-API
``ScrollView``: a paint costs the rows on screen, each row is a few fitted
plain strings (never markup, never a ``Text`` render), and rendered strips
are cached by (row, width, highlighted). Journal text is untrusted like the
memory itself: every field has its control characters made visible.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from wikimem_tui.common.messages import OpenDiaryDay, OpenItem
from wikimem_tui.common.safe import clean_line, safe_line
from wikimem_tui.journal.journal_reader import JournalRow

__all__ = ["ACTION_STYLES", "JournalView", "RowFilter", "open_message_for", "row_cells", "row_detail", "who"]

ACTION_STYLES: dict[str, str] = {
    "add": "green",
    "update": "yellow",
    "remove": "red",
    "diary": "magenta",
}


def open_message_for(row: JournalRow) -> Message | None:
    """What selecting ``row`` should open: its diary day, its item, or nothing."""
    if row.data is None:
        return None
    if row.action == "diary" and row.field("date"):
        return OpenDiaryDay(row.field("date"), row.field("time") or None)
    if row.field("file") and row.field("item"):
        return OpenItem(row.field("file"), row.field("item"))
    return None


@lru_cache(maxsize=128)
def _style(spec: str) -> Style:
    return Style.parse(spec) if spec else Style.null()


def _fit(text: str, width: int) -> str:
    """``text`` made safe and padded or cut (with an ellipsis) to exactly ``width`` cells."""
    text = clean_line(text)
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


def who(row: JournalRow) -> str:
    """The owner, and the writer when someone else wrote (``by``): ``user:x by tui:me``."""
    owner, by = row.field("owner"), row.field("by")
    if by and by != owner:
        return f"{owner} by {by}" if owner else f"by {by}"
    return owner


def row_detail(row: JournalRow) -> Text:
    """The whole row, nothing cut: what the fitted columns may have shortened, for the detail line."""
    if row.data is None:
        return Text.assemble((f"line {row.lineno} is not JSON: ", "bold red"), safe_line(row.raw))
    text = Text.assemble(safe_line(row.field("ts"), "dim"), " ",
                         (row.action, f"bold {ACTION_STYLES.get(row.action, '')}".strip()), " ",
                         safe_line(row.target, "bold"))
    for key in ("owner", "by", "detail", "source_conv"):
        if row.field(key):
            text.append(f"  {key} ", style="dim")
            text.append_text(safe_line(row.field(key), "cyan" if key in ("owner", "by") else ""))
    known = {"ts", "action", "file", "item", "date", "time", "owner", "by", "detail", "source_conv"}
    for key in sorted(set(row.data) - known):  # fields a newer writer added are shown, not dropped
        text.append(f"  {clean_line(key)} ", style="dim")
        text.append_text(safe_line(row.field(key)))
    return text


Cell = tuple[str, str]
"""A column's text, already fitted to its width, and its style spec."""


def row_cells(row: JournalRow, width: int) -> list[Cell]:
    """One screen line as fitted cells: ts / action / owner / target / detail.

    Below 100 cells the timestamp loses its year and seconds, the owner
    column narrows and the detail column goes, so the target stays readable
    in a side pane. Cells are plain strings (never markup) so a line costs a
    few string operations, not a ``Text`` render: the view draws thousands.
    """
    wide = width >= 100
    ts_w, owner_w = (19, 16) if wide else (11, 10)
    if row.data is None:
        return [
            (_fit(f"line {row.lineno}", ts_w), "dim"),
            (" " + _fit("✗ bad", 7), "dim red"),
            (" " + _fit(f"not JSON: {row.raw}", max(width - ts_w - 9, 1)), "dim italic"),
        ]
    fixed = ts_w + owner_w + 10  # ts, action (7), owner and their separators
    target_w = 32 if wide else max(width - fixed, 8)
    rest = width - fixed - target_w - 1
    style = ACTION_STYLES.get(row.action, "")
    ts = row.field("ts")
    cells = [
        (_fit(ts[:19] if wide else ts[5:16].replace("T", " "), ts_w), "dim"),
        (" " + _fit(row.action, 7), f"bold {style}".strip()),
        (" " + _fit(who(row), owner_w), "cyan"),
        (" " + _fit(row.target, target_w), style),
    ]
    if rest > 0:
        cells.append((" " + _fit(row.field("detail") or row.field("source_conv"), rest), "dim"))
    return cells


@dataclass(frozen=True)
class RowFilter:
    """Which rows are shown: exact action, owner / file substrings (case-blind)."""

    action: str = ""
    owner: str = ""
    file: str = ""

    def __call__(self, row: JournalRow) -> bool:
        if self.action and row.action != self.action:
            return False
        if self.owner and self.owner.lower() not in who(row).lower():
            return False
        if self.file:
            where = row.target if row.data is not None else row.raw
            if self.file.lower() not in where.lower():
                return False
        return True


class JournalView(ScrollView, can_focus=True):
    """Virtual list of journal rows: only visible lines are rendered."""

    HELP_TITLE = "Journal rows"

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False, id="journal.up"),
        Binding("down", "cursor(1)", "Down", show=False, id="journal.down"),
        Binding("pageup", "cursor(-20)", "Page up", show=False, id="journal.pageup"),
        Binding("pagedown", "cursor(20)", "Page down", show=False, id="journal.pagedown"),
        Binding("home", "home", "Top", show=False, id="journal.home"),
        Binding("end", "end", "Follow", id="journal.end"),
        Binding("enter", "open", "Open", id="journal.open"),
    ]

    DEFAULT_CSS = """
    JournalView { height: 1fr; overflow-x: hidden; }
    """

    pending: reactive[int] = reactive(0)
    """Matching rows that arrived while the user was scrolled up."""
    following: reactive[bool] = reactive(True)
    """Whether new rows scroll the view to the bottom."""
    cursor: reactive[int | None] = reactive(None)
    """Index into ``shown`` of the highlighted row (None: nothing highlighted)."""

    class Highlighted(Message):
        """The highlighted row changed (``row`` is None when nothing is highlighted)."""

        def __init__(self, row: JournalRow | None) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[JournalRow] = []
        """Every row read so far, in file order."""
        self.shown: list[JournalRow] = []
        """The rows passing ``row_filter``."""
        self.row_filter = RowFilter()
        self._strips: dict[tuple[int, int, bool], Strip] = {}
        self._base_style: Style | None = None

    def add_rows(self, rows: list[JournalRow], *, reset: bool = False) -> None:
        """Append a batch (after clearing everything when ``reset``)."""
        if reset:
            self.rows, self.shown, self.cursor, self.pending = [], [], None, 0
            self._strips.clear()
        self.rows.extend(rows)
        matched = [row for row in rows if self.row_filter(row)]
        self.shown.extend(matched)
        self._resize()
        if self.following:
            self._stick_to_end()
        else:
            self.pending += len(matched)
        self.refresh()

    def _stick_to_end(self) -> None:
        # Deferred: before the first layout max_scroll_y is still 0.
        self.scroll_end(animate=False, immediate=False, x_axis=False)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def on_resize(self) -> None:
        if self.following:
            self._stick_to_end()

    def set_filter(self, row_filter: RowFilter) -> None:
        """Re-filter every row and jump back to following the bottom."""
        self.row_filter = row_filter
        self.shown = [row for row in self.rows if row_filter(row)]
        self._strips.clear()
        self.cursor, self.pending, self.following = None, 0, True
        self._resize()
        self._stick_to_end()
        self.refresh()

    def watch_cursor(self, cursor: int | None) -> None:
        row = self.shown[cursor] if cursor is not None and cursor < len(self.shown) else None
        self.post_message(self.Highlighted(row))

    def _resize(self) -> None:
        self.virtual_size = Size(0, len(self.shown))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        at_end = round(new_value) >= self.max_scroll_y
        self.following = at_end
        if at_end:
            self.pending = 0

    def render_lines(self, crop: Region) -> list[Strip]:
        # Resolve the CSS style once per paint, not once per line.
        self._base_style = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width or self.size.width
        base = self._base_style or self.rich_style
        index = round(self.scroll_y) + y
        if index >= len(self.shown):
            return Strip.blank(width, base)
        key = (index, width, index == self.cursor)
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) > 4000:
                self._strips.clear()
            extra = _style("reverse") if key[2] else None
            segments = [
                Segment(text, base + _style(spec) + extra if extra else base + _style(spec))
                for text, spec in row_cells(self.shown[index], width)
            ]
            strip = self._strips[key] = Strip(segments).crop_extend(0, width, base)
        return strip

    def _move_to(self, index: int) -> None:
        if not self.shown:
            return
        self.cursor = max(0, min(index, len(self.shown) - 1))
        self.scroll_to_region_of(self.cursor)
        self.refresh()

    def scroll_to_region_of(self, index: int) -> None:
        """Scroll just enough that row ``index`` is on screen."""
        top, height = round(self.scroll_y), max(self.scrollable_content_region.height, 1)
        if index < top:
            self.scroll_to(y=index, animate=False, immediate=True)
        elif index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        """Move the highlight; the first press highlights the bottom visible row."""
        if self.cursor is None:
            last_visible = round(self.scroll_y) + self.scrollable_content_region.height - 1
            self._move_to(min(last_visible, len(self.shown) - 1))
        else:
            self._move_to(self.cursor + delta)

    def action_home(self) -> None:
        """Go to the oldest row."""
        self._move_to(0)

    def action_end(self) -> None:
        """Go to the newest row and resume following."""
        self.cursor = len(self.shown) - 1 if self.shown else None
        self._stick_to_end()
        self.following, self.pending = True, 0
        self.refresh()

    def action_open(self) -> None:
        """Open what the highlighted row is about."""
        if self.cursor is not None and self.cursor < len(self.shown):
            message = open_message_for(self.shown[self.cursor])
            if message is not None:
                self.post_message(message)

    def on_click(self, event: Any) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = round(self.scroll_y) + offset.y
        if index < len(self.shown):
            self.cursor = index
            self.refresh()
            self.action_open()
