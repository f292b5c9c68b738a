"""Journal tail: ``tail -f journal.jsonl`` as a pane, after toolong's model.

The journal can hold hundreds of thousands of lines, so three rules keep the
UI responsive: the file is read in a thread worker (never on the event loop;
through the library's one follower, ``journal_reader.JournalRows``), the
worker hands the UI whole batches of parsed rows (never one message per
line), and the view (``journal_view.JournalView``) renders only the rows on
screen. Truncation, rotation and rewrites rebuild the view from the start.
"""

from __future__ import annotations

import threading

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Select, Static
from textual.worker import get_current_worker

from wikimem_tui.common.fit_input import FitInput
from wikimem_tui.core.backend import Backend
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.journal.journal_reader import MALFORMED, POLL_SECONDS, UNDO, JournalRow, JournalRows
from wikimem_tui.journal.journal_view import (
    ACTION_STYLES,
    JournalView,
    RowFilter,
    column_widths,
    row_cells,
    row_detail,
)
from wikimem_tui.core.words import count

__all__ = ["JournalRow", "JournalRows", "JournalTail", "JournalView", "row_cells"]

#: Rows per batch a long read hands the view (a few ms of the event loop each), pausing for the user between.
BATCH_ROWS = 20_000

#: The detail line before a row is highlighted.
DETAIL_HINT = Text("↑/↓ highlight a row to read it whole here · enter opens its item or day", style="dim")


class JournalTail(Widget):
    """The journal pane: filters, the live view, and a follow/pending status line."""

    HELP_TITLE = "Journal"

    BINDINGS = [Binding("escape", "focus_view", "To the rows", show=False, id="journal.focus-view")]

    DEFAULT_CSS = """
    JournalTail { height: 1fr; }
    JournalTail #journal-filters { height: 1; margin-bottom: 1; }
    JournalTail #journal-filters Select { width: 18; }
    JournalTail #journal-filters Input { width: 1fr; margin-left: 1; }
    JournalTail #journal-status { height: 1; color: $text-muted; }
    JournalTail #journal-detail { height: auto; max-height: 4; color: $text; background: $boost; padding: 0 1; }
    """

    class Batch(Message):
        """Rows read by the worker thread (one message per poll, not per line)."""

        def __init__(self, rows: list[JournalRow], reset: bool, widths: tuple[int, int, int, int] | None = None) -> None:
            super().__init__()
            self.rows = rows
            self.reset = reset
            self.widths = widths
            """The rows' ``column_widths``, measured in the worker (None: the view measures them)."""

    def __init__(self, backend: Backend, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.backend = backend
        """The app's :class:`~wikimem_tui.core.backend.Backend` (where the journal is)."""
        self._wake = threading.Event()
        self._follower: JournalRows | None = None
        self._started = False
        self._read = False

    def compose(self) -> ComposeResult:
        actions = [(name, name) for name in (*ACTION_STYLES, MALFORMED)] + [("undo (↶)", UNDO)]
        with Horizontal(id="journal-filters"):
            yield Select(actions, prompt="any action", compact=True, id="journal-action")
            yield FitInput(placeholder="owner contains…", compact=True, id="journal-owner")
            yield FitInput(placeholder="file / date contains…", compact=True, id="journal-file")
        yield JournalView(id="journal-view")
        yield Static(DETAIL_HINT, id="journal-detail", markup=False)
        yield Static(id="journal-status", markup=False)

    @property
    def view(self) -> JournalView:
        """The scrolling list of rows."""
        return self.query_one(JournalView)

    def action_focus_view(self) -> None:
        """Escape from a filter box: back to the rows."""
        self.view.focus()

    def on_mount(self) -> None:
        self._follower = JournalRows(self.backend.journal_path)
        self.watch(self.view, "pending", self._update_status, init=False)
        self.watch(self.view, "following", self._update_status, init=False)
        self._update_status()

    def on_show(self) -> None:
        # Start reading when first shown: a 100k-line journal should not
        # compete with the index build at launch. Once started it keeps following.
        if self._follower is not None and not self._started:
            self._started = True
            self._follow()

    def on_unmount(self) -> None:
        self._wake.set()

    def refresh_from_store(self, change: StoreChange | None = None) -> None:
        """Read the journal now instead of at the next poll."""
        if change is None or change.journal:
            self._wake.set()

    @work(thread=True, exclusive=True, group="journal-tail")
    def _follow(self) -> None:
        worker = get_current_worker()
        follower = self._follower
        assert follower is not None
        activity = self.backend.activity
        first = True  # always answer the first poll, so "reading…" ends even for an empty file
        while not worker.is_cancelled:
            for n, (reset, rows) in enumerate(follower.poll_chunks(BATCH_ROWS)):
                if n and not activity.wait_quiet(lambda: worker.is_cancelled):  # a long read yields to the keys
                    return
                if reset or rows or first:
                    self.post_message(self.Batch(rows, reset, column_widths(rows)))
                    first = False
            self._wake.wait(POLL_SECONDS)
            self._wake.clear()

    @on(JournalView.Highlighted)
    def _highlighted(self, event: JournalView.Highlighted) -> None:
        """The highlighted row in full below the rows: columns cut long owners and targets."""
        event.stop()
        detail = self.query_one("#journal-detail", Static)
        detail.update(DETAIL_HINT if event.row is None else row_detail(event.row))

    def on_journal_tail_batch(self, message: Batch) -> None:
        message.stop()
        self._read = True
        self.view.add_rows(message.rows, reset=message.reset, widths=message.widths)
        self._update_status()

    @on(Select.Changed, "#journal-action")
    @on(Input.Changed, "#journal-owner")
    @on(Input.Changed, "#journal-file")
    def _filters_changed(self, event: Message) -> None:
        event.stop()
        action = self.query_one("#journal-action", Select).value
        self.view.set_filter(
            RowFilter(
                action=action if isinstance(action, str) else "",
                owner=self.query_one("#journal-owner", Input).value.strip(),
                file=self.query_one("#journal-file", Input).value.strip(),
            )
        )
        self._update_status()

    def _update_status(self, *_: object) -> None:
        view = self.view
        shown, total = len(view.shown), len(view.rows)
        counts = count(total, "line") if shown == total else f"{shown} of {count(total, 'line')}"
        if not self._read:
            counts = "reading journal.jsonl…"
        problem = self._follower.problem if self._follower is not None else None
        if problem:
            counts = f"{problem} · {counts}"
        if view.following:
            state = "following"
        elif view.pending:
            state = f"⏸ {view.pending} new — End to follow"
        else:
            state = "paused — End to follow"
        self.query_one("#journal-status", Static).update(Text(f"{counts} · {state}"))
