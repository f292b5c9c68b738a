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
        for position, entry in enumerate(result.items, 1):
            self._add(position, entry, "")
        for entry in result.dropped:
            self._add("✂", entry, "dim strike")
        if not result.items:
            self.add_row(Text("no results", style="dim italic"), key="none")

    def _add(self, position: int | str, entry: RetrievedItem, style: str) -> None:
        self.add_row(*row_cells(position, entry, style), key=str(len(self.entries)))
        self.entries.append(entry)

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
