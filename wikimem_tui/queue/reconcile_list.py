"""The queue's rows on screen: a virtual list that renders only the visible lines.

A diary of years holds thousands of uncited entries, and a ``DataTable``
measures every cell of every row on the UI thread (about a second for 800
rows on this machine, bench/bench_curation_panes.py), so the queue is a
Line-API ``ScrollView`` like the journal's: a paint costs the rows on
screen, each row is a few fitted strings (never markup), and strips are
cached by (row, width, highlighted, selected).
"""

from __future__ import annotations

from collections.abc import Set
from functools import lru_cache
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from wikimem_tui.common.safe import clean_line
from wikimem_tui.common.badges import BADGE, BADGE_STYLE
from wikimem_tui.queue.reconcile_model import REVIEWED_BADGE, Key, entry_key, first_line, ordinal_prefix

__all__ = ["QueueList", "header_cells", "row_cells"]

Cell = tuple[str, str]
_BADGE_W = 11


@lru_cache(maxsize=64)
def _style(spec: str) -> Style:
    return Style.parse(spec) if spec else Style.null()


def _fit(text: str, width: int) -> str:
    """``text`` made safe and padded or cut (with an ellipsis) to exactly ``width`` cells."""
    text = clean_line(text)
    if width <= 0:
        return ""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


def _owner_width(width: int) -> int:
    return 14 if width >= 100 else 10


def header_cells(width: int) -> list[Cell]:
    """The column titles, fitted like the rows."""
    owner_w = _owner_width(width)
    rest = max(width - (2 + 11 + 6 + owner_w + 1 + _BADGE_W + 1), 0)
    return [("  " + _fit("day", 10) + " " + _fit("time", 5) + " " + _fit("owner", owner_w) + " "
             + _fit("", _BADGE_W) + " " + _fit("entry", rest), "bold")]


def row_cells(q: Any, selected: Set[Key], width: int) -> list[Cell]:
    """One queue row: selection mark, day, time, owner, badges, first line of the entry.

    A later entry of a shared minute starts its text with its ordinal
    (``#2``, as evidence lines name it), so two rows of one minute differ.
    """
    entry = q.entry
    owner_w = _owner_width(width)
    if q.derived:
        badge, badge_style = BADGE + (" ✓" if q.dismissed else ""), BADGE_STYLE
    elif q.dismissed:
        badge, badge_style = REVIEWED_BADGE, "green"
    else:
        badge, badge_style = "", ""
    rest = max(width - (2 + 11 + 6 + owner_w + 1 + _BADGE_W + 1), 0)
    return [
        ("● " if entry_key(entry) in selected else "  ", "bold green"),
        (_fit(entry.date, 10) + " ", ""),
        (_fit(entry.time, 5) + " ", "bold"),
        (_fit(entry.owner or "-", owner_w) + " ", "dim"),
        (_fit(badge, _BADGE_W) + " ", badge_style),
        (_fit(ordinal_prefix(entry) + first_line(entry.content), rest), ""),
    ]


class QueueList(ScrollView, can_focus=True):
    """The queued entries (``QueueEntry``); up/down move, enter (or a click on the highlighted row) opens."""

    HELP_TITLE = "Queue rows"

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False, id="queue.up"),
        Binding("down", "cursor(1)", "Down", show=False, id="queue.down"),
        Binding("pageup", "cursor(-20)", "Page up", show=False, id="queue.pageup"),
        Binding("pagedown", "cursor(20)", "Page down", show=False, id="queue.pagedown"),
        Binding("home", "edge(0)", "Newest", show=False, id="queue.home"),
        Binding("end", "edge(1)", "Oldest", show=False, id="queue.end"),
        Binding("enter", "open", "Open day", id="queue.open", show=False),
    ]

    DEFAULT_CSS = """
    QueueList { height: 1fr; overflow-x: hidden; }
    """

    cursor: reactive[int] = reactive(0)
    """Index into ``rows`` of the highlighted row."""

    class Highlighted(Message):
        """The highlighted row changed."""

    class Opened(Message):
        """Enter (or a click on the highlighted row) on row ``index``."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[Any] = []
        """The ``QueueEntry`` rows shown, in order."""
        self.selected: Set[Key] = frozenset()
        """Keys of the selected entries (drawn with a mark)."""
        self._strips: dict[tuple[int, int, bool, bool], Strip] = {}

    def set_rows(self, rows: list[Any], selected: Set[Key]) -> None:
        """Show ``rows`` (the cursor stays on its index, clamped)."""
        self.rows, self.selected = rows, selected
        self._strips.clear()
        self.virtual_size = Size(0, len(rows))
        self.cursor = max(0, min(self.cursor, len(rows) - 1))
        self.refresh()
        self.post_message(self.Highlighted())

    def set_selected(self, selected: Set[Key]) -> None:
        """Redraw the marks."""
        self.selected = selected
        self.refresh()

    def watch_cursor(self, old: int, new: int) -> None:
        self._reveal(new)
        self.refresh()
        self.post_message(self.Highlighted())

    def _reveal(self, index: int) -> None:
        """Scroll just enough to show row ``index``.

        Not ``_scroll_to``: that is Textual's own private method, which
        ``scroll_to`` calls back with ``animate=`` (a same-named override
        crashed the queue as soon as the cursor left the visible rows).
        """
        top, height = round(self.scroll_y), max(self.scrollable_content_region.height, 1)
        if index < top:
            self.scroll_to(y=index, animate=False, immediate=True)
        elif index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False, immediate=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width or self.size.width
        base = self.rich_style
        index = round(self.scroll_y) + y
        if index >= len(self.rows):
            return Strip.blank(width, base)
        q = self.rows[index]
        key = (index, width, index == self.cursor and self.has_focus, entry_key(q.entry) in self.selected)
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) > 4000:
                self._strips.clear()
            cells = row_cells(q, self.selected, width)
            if index == self.cursor:  # one even band, whatever the cells' own styles
                band = base + _style("bold reverse" if self.has_focus else "underline")
                segments = [Segment(text, band) for text, _ in cells]
            else:
                segments = [Segment(text, base + _style(spec)) for text, spec in cells]
            strip = self._strips[key] = Strip(segments).crop_extend(0, width, base)
        return strip

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def action_cursor(self, delta: int) -> None:
        """Move the highlight by ``delta`` rows."""
        if self.rows:
            self.cursor = max(0, min(self.cursor + delta, len(self.rows) - 1))

    def action_edge(self, end: int) -> None:
        """The newest (0) or oldest (1) row."""
        if self.rows:
            self.cursor = len(self.rows) - 1 if end else 0

    def action_open(self) -> None:
        """Open the highlighted row."""
        if self.rows:
            self.post_message(self.Opened(self.cursor))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = round(self.scroll_y) + offset.y
        if index >= len(self.rows):
            return
        if index == self.cursor:
            self.action_open()
        else:
            self.cursor = index
