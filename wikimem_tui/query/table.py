"""The query pane's result table: the rows of one explained retrieval, and what a row opens.

A :class:`~wikimem_tui.common.virtual_list.VirtualList`, not a
``DataTable``: a keystroke has a budget to show its answer in (the
keystroke goal), and on a large result the ``DataTable`` spent a large
share of it rendering every cell of every row through Rich (padding, wrapping, measuring) on each new result and again on
each frame. Here a new result costs one pass that measures the cells and
wraps only the text cells too long for their column, and a frame draws only
the lines on screen, each a few segments of fitted plain text cached by line
and look (cursor, hover, focus).

The table owns the ``RetrievedItem`` behind each row, so the panel never
keeps a second list in step with it: the row is the position in that list
(never the untrusted name), and enter (or a click on the highlighted row)
posts the ``OpenItem`` / ``OpenDiaryDay`` that ``results.open_message_for``
decides. Dropped rows (over the budget) follow the kept ones, struck out,
so what the budget cut is visible where it would have been. The cells are
``results.row_cells``: explain's words, their text made safe to draw. A
pane narrower than ``COMPACT_BELOW`` folds the low-value columns (bm25,
cos: ``score`` holds their fusion) so the address and the note keep their
room; a narrow pane still cuts or wraps them, so :meth:`row_detail` gives
the highlighted row in full for a line under the table, as the journal and
health panes do.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import NamedTuple

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive

from wikimem import RetrievalResult, RetrievedItem
from wikimem_tui.common.safe import clean_line
from wikimem_tui.common.virtual_list import VirtualList, cursor_bindings, fit, style
from wikimem_tui.query.results import COLUMNS, COMPACT_BELOW, LOW_VALUE, open_message_for, row_cells

__all__ = ["Column", "ResultsTable"]

#: The item and the terms / via columns are never narrower than this (a narrower pane scrolls instead).
NOTE_MIN = 16
#: Blank cells on each side of a cell.
PAD = 1
#: The two text columns (item, terms / via): they share what the number columns leave, and wrap.
ITEM, NOTE = len(COLUMNS) - 2, len(COLUMNS) - 1
NO_RESULTS = -1
"""The row of the "no results" line (not an entry)."""


class Column(NamedTuple):
    """A column on screen: its label and its width in cells (padding not included)."""

    label: str
    width: int


class ResultsTable(VirtualList):
    """The explained rows of the result on screen; enter (or a click on the highlighted row) opens it."""

    HELP_TITLE = "Query results"

    BINDINGS = [
        *cursor_bindings("query.results"),
        Binding("home", "edge(0)", "First row", show=False, id="query.results.home"),
        Binding("end", "edge(1)", "Last row", show=False, id="query.results.end"),
        Binding("enter", "open", "Open the row's item or day", show=False, id="query.results.open"),
    ]

    COMPONENT_CLASSES = {"results--header", "results--even-row", "results--cursor", "results--hover"}

    # The looks of Textual's DataTable, which this table replaced.
    DEFAULT_CSS = """
    ResultsTable { background: $surface; color: $foreground; }
    ResultsTable:focus { background-tint: $foreground 5%; }
    ResultsTable > .results--header { text-style: bold; background: $panel; color: $foreground; }
    ResultsTable:focus > .results--header { background-tint: $foreground 5%; }
    ResultsTable > .results--even-row { background: $surface-lighten-1 50%; }
    ResultsTable:dark > .results--even-row { background: $surface-darken-1 40%; }
    ResultsTable > .results--cursor {
        background: $block-cursor-blurred-background;
        color: $block-cursor-blurred-foreground;
        text-style: $block-cursor-blurred-text-style;
    }
    ResultsTable:focus > .results--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: $block-cursor-text-style;
    }
    ResultsTable > .results--hover { background: $block-hover-background; }
    """

    cursor: reactive[int] = reactive(0)
    """Index into ``entries`` of the highlighted row."""

    class Highlighted(Message):
        """The highlighted row changed (or the rows did)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.result: RetrievalResult | None = None
        """The result whose rows are shown (None: nothing yet, or the query was emptied)."""
        self.entries: list[RetrievedItem] = []
        """The entry behind each row, kept then dropped, in table order."""
        self.columns: tuple[Column, ...] = ()
        """The columns on screen, as wide as the last layout made them."""
        self.compact = False
        """True while the pane is narrow and the low-value columns are folded away."""
        self._cells: list[list[Text]] = []
        self._shown: list[int] = []  # which of COLUMNS are on screen
        self._lines: list[tuple[int, int]] = []  # each line on screen: (row, which of the row's lines)
        self._first: list[int] = []  # each row's first line
        self._wrapped: dict[tuple[int, int], list[str]] = {}  # (row, column): the lines of a cell too long
        self._hover: int | None = None

    # -- the rows ---------------------------------------------------------------------

    def show(self, result: RetrievalResult | None) -> None:
        """Replace the rows with ``result``'s (kept, then dropped struck out; "no results" when empty).

        The same rows again (a query re-run by a store change or a knob
        that changed nothing shown) keep the highlight and the scroll: a
        refresh must not move the row the user is on, nor make the next
        ``enter`` open another item.
        """
        before = [[cell.plain for cell in row] for row in self._cells]
        self.result = result
        self.entries = [*result.items, *result.dropped] if result is not None else []
        typed = result.typed_terms if result is not None else None
        self._cells = [row_cells(position, entry, "", typed) for position, entry in enumerate(result.items, 1)]\
            if result is not None else []
        self._cells += [row_cells("✂", entry, "dim strike", typed) for entry in (result.dropped if result else ())]
        self._hover = None
        if [[cell.plain for cell in row] for row in self._cells] != before:
            self.set_reactive(ResultsTable.cursor, 0)
            self.scroll_to(0, 0, animate=False, immediate=True)
        self._lay_out()
        self.post_message(self.Highlighted())

    @property
    def row_total(self) -> int:
        """How many rows there are ("no results" is a line, not a row)."""
        return len(self._cells)

    def row_texts(self, row: int) -> list[Text]:
        """Row ``row``'s cells, every column's (folded ones too), as explain's words."""
        return self._cells[row]

    def row_detail(self) -> Text:
        """The highlighted row in full, its cells in order (empty when there is no row)."""
        if not 0 <= self.cursor < len(self._cells):
            return Text()
        cells = [cell for cell in self._cells[self.cursor] if cell.plain.strip()]
        return Text("  ").join(Text(cell.plain.strip(), style=cell.style) for cell in cells)

    def entry_under_cursor(self) -> RetrievedItem | None:
        """The entry of the highlighted row (None on "no results" or an empty table)."""
        return self.entries[self.cursor] if 0 <= self.cursor < len(self.entries) else None

    # -- layout: computed once per result and width, never per frame --------------------

    def on_resize(self) -> None:
        """A new width: the columns are folded, shared and wrapped anew."""
        self._lay_out()

    def _lay_out(self) -> None:
        rows = self._cells
        self.compact = self.size.width < COMPACT_BELOW
        self._shown = [i for i, label in enumerate(COLUMNS) if not (self.compact and label in LOW_VALUE)]
        widths = {i: max([cell_len(COLUMNS[i]), *(row[i].cell_len for row in rows)]) for i in self._shown}
        two_lines = max([0, *(_two_line_width(row[NOTE].plain) for row in rows)])
        text_widths = self._share(widths, self.scrollable_content_region.width, two_lines)
        if text_widths is not None:
            widths[ITEM], widths[NOTE] = text_widths
        self.columns = tuple(Column(COLUMNS[i], widths[i]) for i in self._shown)
        self._wrapped = {}
        self._lines, self._first = [], []
        for row, cells in enumerate(rows):
            height = 1
            if text_widths is not None:
                for column, width in ((ITEM, widths[ITEM]), (NOTE, widths[NOTE])):
                    if cells[column].cell_len > width:  # wraps in a taller row instead of running off the edge
                        lines = _address_lines(cells[column].plain, width) if column == ITEM else []
                        lines = lines or [line.plain for line in cells[column].wrap(self.app.console, width)]
                        self._wrapped[row, column] = lines
                        height = max(height, len(lines))
            self._first.append(len(self._lines))
            self._lines.extend((row, part) for part in range(height))
        if self.result is not None and not self.result.items:
            self._lines.append((NO_RESULTS, 0))
        self.forget_strips()
        self.size_to_rows()
        self.refresh()

    @staticmethod
    def _share(widths: dict[int, int], width: int, two_lines: int = 0) -> tuple[int, int] | None:
        """The item's and the note's widths in ``width`` cells; None: no width yet (each as wide as it needs).

        Each keeps its whole width when both fit; else the item (the address
        a reader scans) keeps its whole width as long as the note keeps
        ``NOTE_MIN``; when it cannot, the note gets what it needs to fit in
        two lines (``two_lines``; the item keeps at least half, cut after its
        colon), and the note wraps at its spaces in a taller row: giving the note the item's last columns broke names
        mid-word (``morning-routin`` / ``e``), and a link row's note at
        ``NOTE_MIN`` took three lines (``(via`` / ``likes-the-sea)`` /
        ``hit #5 [lin]``). The note takes what is left, so the table spans the pane.
        """
        if width <= 0:
            return None
        numbers = sum(w + 2 * PAD for i, w in widths.items() if i < ITEM)
        room = max(2 * NOTE_MIN, width - numbers - 4 * PAD)
        want_item, want_note = widths[ITEM], widths[NOTE]
        if want_item + min(NOTE_MIN, want_note) <= room:
            item = want_item
        else:  # the address is cut anyway: then cut it where the note fits in two lines
            item = min(want_item, max(room - min(max(NOTE_MIN, two_lines), want_note), room // 2))
        return item, max(NOTE_MIN, room - item)

    # -- drawing: only the lines on screen, each cached -------------------------------------

    def row_count(self) -> int:
        """Lines, not rows: a row whose address or note wraps takes several."""
        return len(self._lines)

    def header_lines(self) -> int:
        return 1

    def content_width(self) -> int:
        return sum(column.width + 2 * PAD for column in self.columns)

    def row_look(self, index: int) -> Hashable:
        row = self._lines[index][0]
        return row == self.cursor, row == self._hover, self.has_focus

    def _look(self, name: str) -> Style:
        """A component class's style (Textual keeps it until the styles change)."""
        return self.get_component_rich_style(name)

    def header_segments(self, y: int, width: int, base: Style) -> list[Segment]:
        header = base + self._look("results--header")
        return [Segment(" " + fit(column.label, column.width) + " ", header) for column in self.columns]

    def row_segments(self, index: int, width: int, base: Style) -> list[Segment]:
        row, part = self._lines[index]
        if row == NO_RESULTS:
            return [Segment(" "), Segment(fit("no results", max(width - 1, 0)), base + style("dim italic"))]
        look = base + self._look("results--even-row") if row % 2 == 0 else base
        over = Style.null()  # the cursor's (or hover's) colours win over a cell's own, as in the DataTable
        band = "results--cursor" if row == self.cursor else "results--hover" if row == self._hover else None
        if band is not None:
            look += self._look(band)
            over = Style.from_color(self._look(band).color, self._look(band).bgcolor)
        pad = Segment(" " * PAD, look)
        segments: list[Segment] = []
        for column, (label, column_width) in zip(self._shown, self.columns):
            cell = self._cells[row][column]
            lines = self._wrapped.get((row, column))
            text = (lines[part] if part < len(lines) else "") if lines is not None else cell.plain if part == 0 else ""
            text = clean_line(text)
            used = cell_len(text)
            text = " " * (column_width - used) + text if cell.justify == "right" and used < column_width \
                else fit(text, column_width)
            cell_style = style(cell.style) if isinstance(cell.style, str) else cell.style
            segments += [pad, Segment(text, look + cell_style + over), pad]
        return segments

    # -- the cursor, the keys and the mouse ----------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        if 0 <= new < len(self._first):
            last = self._first[new + 1] - 1 if new + 1 < len(self._first) else len(self._lines) - 1
            self.reveal(last)
            self.reveal(self._first[new])  # a tall row shows from its first line
        self.refresh()
        self.post_message(self.Highlighted())

    def move_cursor(self, row: int) -> None:
        """Highlight row ``row`` (clamped to the rows there are)."""
        if self._cells:
            self.cursor = max(0, min(row, len(self._cells) - 1))

    def action_cursor(self, delta: int) -> None:
        """Move the highlight by ``delta`` rows."""
        self.move_cursor(self.cursor + delta)

    def action_edge(self, end: int) -> None:
        """The first (0) or last (1) row."""
        self.move_cursor(len(self._cells) - 1 if end else 0)

    def action_open(self) -> None:
        """Open the highlighted row's item, or its diary day at that entry."""
        entry = self.entry_under_cursor()
        if entry is not None and self.result is not None:
            self.post_message(open_message_for(entry, self.result))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def _row_under(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < self.header_lines():
            return None
        line = round(self.scroll_y) + offset.y - self.header_lines()
        row = self._lines[line][0] if 0 <= line < len(self._lines) else NO_RESULTS
        return None if row == NO_RESULTS else row

    def on_click(self, event: events.Click) -> None:
        """A click highlights a row; a click on the highlighted row opens it."""
        row = self._row_under(event)
        if row is None:
            return
        event.stop()
        if row == self.cursor:
            self.action_open()
        else:
            self.cursor = row

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._row_under(event))

    def on_leave(self) -> None:
        self._set_hover(None)

    def _set_hover(self, row: int | None) -> None:
        if row != self._hover:
            self._hover = row
            self.refresh()


def _two_line_width(note: str) -> int:
    """The narrowest width at which ``note`` wraps (at its spaces) into at most two lines."""
    best = cell_len(note)
    for i, char in enumerate(note):
        if char == " ":
            best = min(best, max(cell_len(note[:i].rstrip()), cell_len(note[i:].lstrip())))
    return best


def _address_lines(address: str, width: int) -> list[str]:
    """A ``file:name`` too wide for its column, cut after the colon so neither part breaks mid-word.

    Empty when a part alone is still too wide (the caller folds it then). A
    link row's indent is kept on the name's line.
    """
    indent = address[: len(address) - len(address.lstrip())]
    head, colon, name = address.partition(":")
    if not colon or cell_len(head) + 1 > width or cell_len(indent) + cell_len(name) > width:
        return []
    return [head + colon, indent + name]
