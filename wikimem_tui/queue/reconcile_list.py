"""The queue's rows on screen: the one virtual list (``common/virtual_list``), rendering only the visible lines.

A diary of years holds thousands of uncited entries, so the queue draws
like the journal: a paint costs the rows on screen, each row a few fitted
strings (never markup), cached by (row, width, highlighted, selected).
What is this list's own: a cursor that is always on a row (one even band
across it, bold when the list has the focus), the selection marks, and a
click that highlights a row first and opens it on the second click.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Set
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive

from wikimem_tui.common.badges import BADGE, BADGE_STYLE
from wikimem_tui.common.virtual_list import Cell, VirtualList, cursor_bindings, fit, style
from wikimem_tui.queue.reconcile_model import AGENT_LABELS, REVIEWED_BADGE, Key, entry_key, first_line, ordinal_prefix

__all__ = ["Columns", "QueueList", "header_cells", "owner_cell", "owner_label", "row_cells"]

_BADGE_W = 11


@dataclass(frozen=True)
class Columns:
    """The owner and badge columns' widths for the rows shown (:meth:`fitted`), the same for rows and titles."""

    owner: int = 10
    badge: int = _BADGE_W

    @classmethod
    def fitted(cls, widest_owner: int, badged: bool, width: int) -> Columns:
        """As wide as the widest owner (``agent:companion`` was cut to ``agent:com…`` beside 12 blank cells).

        Capped at a quarter of the line (and 24 cells) so the entry's text
        stays readable, never under 5 (``owner``); a longer owner is cut
        with an ellipsis (the detail below shows it whole). The badge column
        takes no room while no row shown has a badge.
        """
        return cls(max(5, min(widest_owner, 24, max(width // 4, 10))), _BADGE_W if badged else 0)

    def rest(self, width: int) -> int:
        """Cells left for the entry's first line."""
        return max(width - (2 + 11 + 6 + self.owner + 1 + self.badge + bool(self.badge)), 0)


def header_cells(width: int, columns: Columns | None = None) -> list[Cell]:
    """The column titles, fitted like the rows."""
    cols = columns or Columns()
    badge = fit("", cols.badge) + " " if cols.badge else ""
    return [("  " + fit("day", 10) + " " + fit("time", 5) + " " + fit("owner", cols.owner) + " "
             + badge + fit("entry", cols.rest(width)), "bold")]


def owner_label(owner: str | None) -> str:
    """What the owner column says: a captured session's agent by name (who the evidence came from), else the owner."""
    return AGENT_LABELS.get(owner or "") or owner or "-"


def widest_owner(rows: Iterable[Any]) -> int:
    """Cells of the widest owner label among queue rows (``QueueEntry``)."""
    return max((cell_len(owner_label(owner)) for owner in {q.entry.owner for q in rows}), default=0)


def owner_cell(owner: str | None, width: int) -> Cell:
    """The owner column: a captured session's agent by name (it is who the evidence came from), else the owner."""
    label = AGENT_LABELS.get(owner or "")
    if label is not None:
        short = label.split(" ")[0] + " " + label.split(" ")[1]  # "⚙ Claude" where "⚙ Claude Code" does not fit
        return fit(label if len(label) <= width else short, width) + " ", "cyan"
    return fit(owner or "-", width) + " ", "dim"


def row_cells(q: Any, selected: Set[Key], width: int, columns: Columns | None = None) -> list[Cell]:
    """One queue row: selection mark, day, time, owner, badges, first line of the entry.

    A later entry of a shared minute starts its text with its ordinal
    (``#2``, as evidence lines name it), so two rows of one minute differ.
    """
    entry = q.entry
    cols = columns or Columns()
    if q.derived:
        badge, badge_style = BADGE + (" ✓" if q.dismissed else ""), BADGE_STYLE
    elif q.dismissed:
        badge, badge_style = REVIEWED_BADGE, "green"
    else:
        badge, badge_style = "", ""
    return [
        ("● " if entry_key(entry) in selected else "  ", "bold green"),
        (fit(entry.date, 10) + " ", ""),
        (fit(entry.time, 5) + " ", "bold"),
        owner_cell(entry.owner, cols.owner),
        (fit(badge, cols.badge) + " " if cols.badge else "", badge_style),
        (fit(ordinal_prefix(entry) + first_line(entry.content), cols.rest(width)), ""),
    ]


class QueueList(VirtualList):
    """The queued entries (``QueueEntry``); up/down move, enter (or a click on the highlighted row) opens."""

    HELP_TITLE = "Queue rows"

    BINDINGS = [
        *cursor_bindings("queue"),
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
        self._widest, self._badged = 0, False

    def columns(self, width: int) -> Columns:
        """The owner and badge columns fitted to the rows shown, on a ``width``-cell line."""
        return Columns.fitted(self._widest, self._badged, width)

    def set_rows(self, rows: list[Any], selected: Set[Key]) -> None:
        """Show ``rows`` (the cursor stays on its index, clamped)."""
        self.rows, self.selected = rows, selected
        self._widest, self._badged = widest_owner(rows), any(q.derived or q.dismissed for q in rows)
        self.forget_strips()
        self.size_to_rows()
        self.cursor = max(0, min(self.cursor, len(rows) - 1))
        self.refresh()
        self.post_message(self.Highlighted())

    def set_selected(self, selected: Set[Key]) -> None:
        """Redraw the marks."""
        self.selected = selected
        self.refresh()

    def watch_cursor(self, old: int, new: int) -> None:
        self.reveal(new)
        self.refresh()
        self.post_message(self.Highlighted())

    def row_count(self) -> int:
        """The queued entries shown."""
        return len(self.rows)

    def row_look(self, index: int) -> Hashable:
        """Highlighted with the focus here, and selected."""
        return index == self.cursor and self.has_focus, entry_key(self.rows[index].entry) in self.selected

    def row_segments(self, index: int, width: int, base: Style) -> list[Segment]:
        """The row's cells; the highlighted row one even band, whatever the cells' own styles."""
        cells = row_cells(self.rows[index], self.selected, width, self.columns(width))
        if index == self.cursor:
            band = base + style("bold reverse" if self.has_focus else "underline")
            return [Segment(text, band) for text, _ in cells]
        return [Segment(text, base + style(spec)) for text, spec in cells]

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
        """A click highlights a row; a click on the highlighted row opens it."""
        index = self.row_at(event)
        if index is None:
            return
        if index == self.cursor:
            self.action_open()
        else:
            self.cursor = index
