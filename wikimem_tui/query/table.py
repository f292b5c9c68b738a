"""The query pane's result table: the rows of one explained retrieval, and what a row opens.

A ``DataTable`` that owns the ``RetrievedItem`` behind each row, so the
panel never keeps a second list in step with the table: the row key is the
position in that list (never the untrusted name), and enter on a row posts
the ``OpenItem`` / ``OpenDiaryDay`` that ``results.open_message_for``
decides. Dropped rows (over the budget) follow the kept ones, struck out,
so what the budget cut is visible where it would have been. The cells are
``results.row_cells``: explain's words, drawn as ``Text``. A narrow
pane cuts the last columns (an item's name, ``(via …)``, ``hit #2
[terms]``), so :meth:`ResultsTable.row_detail` gives the highlighted row in
full for a line under the table, as the journal and health panes do.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.widgets import DataTable

from wikimem import RetrievalResult, RetrievedItem
from wikimem_tui.query.results import COLUMNS, open_message_for, row_cells

__all__ = ["ResultsTable"]

#: The item and the terms / via columns are never narrower than this (a narrower pane scrolls instead).
NOTE_MIN = 16


class ResultsTable(DataTable[Text]):
    """The explained rows of the result on screen; enter opens the row's item or day."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.result: RetrievalResult | None = None
        """The result whose rows are shown (None: nothing yet, or the query was emptied)."""
        self.entries: list[RetrievedItem] = []
        """The entry behind each row, kept then dropped, in table order (the row key indexes it)."""

    def on_mount(self) -> None:
        self.add_columns(*COLUMNS)

    def show(self, result: RetrievalResult | None) -> None:
        """Replace the rows with ``result``'s (kept, then dropped struck out; "no results" when empty)."""
        self.result = result
        self.clear()
        self.entries = []
        if result is None:
            return
        rows = [row_cells(position, entry, "") for position, entry in enumerate(result.items, 1)]
        rows += [row_cells("✂", entry, "dim strike") for entry in result.dropped]
        widths = self._fit_text_columns(rows)
        for cells, entry in zip(rows, [*result.items, *result.dropped]):
            # An address or a note longer than its column wraps in a taller row instead of running off the edge.
            lines = 1
            if widths is not None:
                lines = max(len(cell.wrap(self.app.console, width)) if cell.cell_len > width else 1
                            for cell, width in zip(cells[-2:], widths))
            self.add_row(*cells, key=str(len(self.entries)), height=lines)
            self.entries.append(entry)
        if not result.items:
            self.add_row(Text("no results", style="dim italic"), key="none")

    def _fit_text_columns(self, rows: list[list[Text]]) -> tuple[int, int] | None:
        """Share the width the number columns leave between the item and the note; None: no width yet.

        Measured like the others, the two text columns ran past the pane's
        edge, where only a horizontal scroll showed the end of a note (``(via
        X)  hit #2 [terms]`` on a link row that is also a hit). Now each
        keeps its whole width when both fit; else the item (the address a
        reader scans) keeps its whole width as long as the note keeps
        ``NOTE_MIN`` (the item at least half), and the note wraps at its
        spaces in a taller row: giving the note the item's last columns
        broke names mid-word (``morning-routin`` / ``e``).
        """
        columns = list(self.columns.values())
        item, note = columns[-2], columns[-1]
        width = self.scrollable_content_region.width
        if width <= 0:
            item.auto_width = note.auto_width = True
            return None
        pad = 2 * self.cell_padding

        def widest(index: int) -> int:
            return max([columns[index].label.cell_len, *(row[index].cell_len for row in rows)])

        # A folded column (``fit_columns``: width 0, not auto) stays folded, and still takes its padding.
        numbers = sum(widest(i) + pad if column.auto_width else column.get_render_width(self)
                      for i, column in enumerate(columns[:-2]))
        room = max(2 * NOTE_MIN, width - numbers - 2 * pad)
        want_item, want_note = widest(len(columns) - 2), widest(len(columns) - 1)
        item_width = want_item if want_item + want_note <= room else min(want_item, max(room - NOTE_MIN, room // 2))
        note_width = max(NOTE_MIN, room - item_width)
        item.auto_width, item.width = False, item_width
        note.auto_width, note.width = False, note_width
        return item_width, note_width

    def on_resize(self) -> None:
        """A new width: the text columns are shared and wrapped anew."""
        self.reflow()

    def reflow(self) -> None:
        """Lay the rows out again for the current width and folded columns (``results.fit_columns``)."""
        if self.result is not None:
            cursor = self.cursor_row
            self.show(self.result)
            if 0 <= cursor < self.row_count:
                self.move_cursor(row=cursor)

    def row_detail(self) -> Text:
        """The highlighted row in full, its cells in order (empty when there is no row)."""
        row = self.cursor_row
        if not 0 <= row < len(self.entries):
            return Text()
        cells = [cell for cell in self.get_row_at(row) if cell.plain.strip()]
        return Text("  ").join(Text(cell.plain.strip(), style=cell.style) for cell in cells)

    def entry_under_cursor(self) -> RetrievedItem | None:
        """The entry of the highlighted row (None on "no results" or an empty table)."""
        row = self.cursor_row
        return self.entries[row] if 0 <= row < len(self.entries) else None

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        if key is not None and key.isdigit() and int(key) < len(self.entries) and self.result is not None:
            self.post_message(open_message_for(self.entries[int(key)], self.result))
