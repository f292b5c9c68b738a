"""The reconcile queue: diary entries no wiki item cites yet, to promote or to set aside.

The diary is evidence and the wiki reviewed knowledge (SPEC §4); this pane
is where the one becomes the other. It lists what ``wikimem.reconcile_queue``
returns (newest first; filterable by day range and owner; derived entries
badged), lets the user select several, promote them (the promote screen
shows similar existing items before anything is written) or mark them
"reviewed, not promoted" (``reviewed.json``), and take a mark back. The
filter bar above the rows is ``reconcile_filters``; the rows, ``reconcile_list``.

The queue is computed from a ``wikimem.lint.Snapshot`` kept warm in a
thread worker: after a store change only the changed files are re-read.
The snapshot is not thread-safe, so runs are serialised by a lock and a run
superseded by a newer request drops its result. Writes go through a
:class:`~wikimem_tui.queue.reconcile_writer.CurationWriter` handed in
through the constructor; read-only refuses them before anything is touched.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from wikimem import DiaryItem, MemoryStore, RecallItem, reconcile_queue
from wikimem.lint import Snapshot
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.common.messages import OpenDiaryDay
from wikimem_tui.queue.promote import PromoteScreen
from wikimem_tui.common.incremental import IncrementalRefresh
from wikimem_tui.queue.reconcile_filters import QueueFilters
from wikimem_tui.queue.reconcile_list import QueueList, header_cells
from wikimem_tui.queue.reconcile_model import Key, Query, entry_detail, entry_key, status_text
from wikimem_tui.queue.reconcile_writer import CurationWriter
from wikimem_tui.core.words import count

__all__ = ["QueueSource", "ReconcilePane"]

HINT = Text("space select · A all · p promote · x reviewed, not promoted · u undo mark · v show reviewed · "
            "enter open the day · f filter", style="dim")


class QueueSource(Protocol):
    """What the pane reads: the memory directory and store, the index, the app's owner and clock."""

    root: Path
    store: MemoryStore
    index: Any
    owner: str
    read_only: bool

    @property
    def clock(self) -> Callable[[], dt.datetime]: ...


class ReconcilePane(Widget):
    """Diary entries waiting for review; select, promote, or mark them reviewed."""

    HELP_TITLE = "Reconcile queue"
    HELP_NOTE = ("Entries no wiki item cites yet, newest first. Days: 2026-07-21, 2026-07, "
                 "2026-07-01..2026-07-15, 2026-07-01.. (open end). Promoting shows similar items first; "
                 "x marks 'reviewed, not promoted' (kept in reviewed.json), u takes the last mark back.")

    DEFAULT_CSS = """
    ReconcilePane { height: 1fr; }
    ReconcilePane #queue-header { dock: top; height: auto; }
    ReconcilePane #queue-filters { height: 1; }
    ReconcilePane #queue-days { width: 1fr; }
    ReconcilePane #queue-owner { width: 26; margin-left: 1; }
    ReconcilePane #queue-reviewed { margin-left: 1; }
    ReconcilePane #queue-status { height: 1; color: $text-muted; padding: 0 1; }
    ReconcilePane #queue-columns { height: 1; }
    ReconcilePane #queue-detail-box { height: auto; max-height: 9; background: $boost; padding: 0 1; }
    ReconcilePane #queue-detail { height: auto; }
    """

    BINDINGS = [
        Binding("space", "toggle_selected", "Select", id="queue.select"),
        Binding("A", "select_all", "All", id="queue.select-all"),
        Binding("p", "promote", "Promote", id="queue.promote"),
        Binding("x", "mark", "Reviewed", id="queue.mark"),
        Binding("u", "undo_mark", "Undo mark", id="queue.undo-mark"),
        Binding("v", "show_reviewed", "Show reviewed", id="queue.show-reviewed", show=False),
        Binding("f", "filter", "Filter", id="queue.filter"),
        Binding("escape", "leave_filter", "To the rows", id="queue.leave-filter", show=False),
    ]

    class Loaded(Message):
        """The worker computed the queue for ``query`` (``error`` set when it failed)."""

        def __init__(self, entries: list[Any], query: Query, error: str = "") -> None:
            super().__init__()
            self.entries, self.query, self.error = entries, query, error

    def __init__(
        self,
        backend: QueueSource,
        *,
        writer: CurationWriter | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.backend = backend
        """The store and directory the queue is read from; its index finds similar items."""
        self.writer: CurationWriter = writer if writer is not None else backend  # type: ignore[assignment]
        """Every write this pane makes (promotion, marks) goes through it: the app's one writer."""
        self.entries: list[Any] = []
        """The queue as computed (``wikimem.curation.QueueEntry``), before the owner filter."""
        self.shown: list[Any] = []
        """The rows in the list, in order (the owner filter applied)."""
        self.selected: set[Key] = set()
        """Selected entries (by day, ``HH:MM[#n]`` and content, so a refresh keeps them)."""
        self.loads = 0
        """Queue computations that reached the pane (tests wait on it)."""
        self.owner_filter: str | None = None
        """Show only this owner's entries (None: everyone's)."""
        self._query = Query()
        self._marks: list[tuple[str, list[DiaryItem]]] = []
        self.incremental = IncrementalRefresh(self.reload, lambda: self.is_on_screen)
        """The files changed since the last run, and the lock a run holds (``common/incremental``)."""
        self._snapshot: Snapshot | None = None
        self._loading = False
        self._days_error = ""

    def compose(self) -> ComposeResult:
        yield QueueList(id="queue-list")
        with Vertical(id="queue-header"):
            yield QueueFilters(id="queue-filters")
            yield Static(Text("reading the diary…"), id="queue-status", markup=False)
            yield Static(id="queue-columns", markup=False)
        with VerticalScroll(id="queue-detail-box"):
            yield Static(HINT, id="queue-detail", markup=False)

    def on_resize(self) -> None:
        width = self.size.width  # the titles fitted like the rows (their owner column fits the rows shown)
        titles = header_cells(width, self.rows_view.columns(width))
        self.query_one("#queue-columns", Static).update(Text.assemble(*titles))

    @property
    def rows_view(self) -> QueueList:
        """The rows."""
        return self.query_one(QueueList)

    @property
    def filters(self) -> QueueFilters:
        """The day range, owner and reviewed choices above the rows."""
        return self.query_one(QueueFilters)

    # -- computing the queue --------------------------------------------------------

    def refresh_from_store(self, change: StoreChange | None = None) -> None:
        """Re-read the changed files: now if the pane is on screen, else when it is next shown."""
        self.incremental.changed(change)

    def on_show(self) -> None:
        self.incremental.shown()

    def reload(self) -> None:
        """Compute the queue again in the worker (the changed files re-read, the rest from the warm snapshot)."""
        self.incremental.stale = False
        self._loading = True
        self._show_status()
        self._load(self._query)

    @work(thread=True, exclusive=True, group="reconcile-queue", exit_on_error=False)
    def _load(self, query: Query) -> None:
        worker = get_current_worker()
        with self.incremental.run_lock:  # the snapshot keeps state between runs
            if worker.is_cancelled:
                return  # a newer request is queued behind us and takes our changes
            changed = self.incremental.take_changed()
            try:
                if self._snapshot is None:
                    self._snapshot = Snapshot(self.backend.root)
                self._snapshot.refresh(changed)
                entries = reconcile_queue(self._snapshot, start=query.start, end=query.end,
                                          include_dismissed=query.include_reviewed)
            except Exception as exc:  # a broken day file must not break the pane
                self._snapshot = None
                self.post_message(self.Loaded([], query, f"queue failed: {exc!r}"))
                return
        if not worker.is_cancelled:
            self.post_message(self.Loaded(entries, query))

    def on_reconcile_pane_loaded(self, message: Loaded) -> None:
        message.stop()
        self._loading = False
        self.loads += 1
        if message.error:
            self.query_one("#queue-status", Static).update(Text(message.error, style="bold red"))
            return
        self.entries = message.entries
        self.filters.set_owners(q.entry.owner for q in self.entries if q.entry.owner)
        self._fill()

    def _fill(self) -> None:
        """Show the queue (owner filter applied), keeping the highlight on the same entry."""
        current = self._current()
        self.shown = [q for q in self.entries if self.owner_filter is None or q.entry.owner == self.owner_filter]
        self.selected &= {entry_key(q.entry) for q in self.shown}  # what is selected is what p would promote
        rows = self.rows_view
        if current is not None:
            at = next((i for i, q in enumerate(self.shown) if entry_key(q.entry) == entry_key(current.entry)), None)
            if at is not None:
                rows.cursor = at
        rows.set_rows(self.shown, frozenset(self.selected))
        self.on_resize()
        self._show_status()

    def _show_status(self) -> None:
        if self._days_error:
            self.query_one("#queue-status", Static).update(Text(f"days: {self._days_error}", style="red"))
            return
        text = status_text(self.shown, loaded=bool(self.loads), reviewed=self._query.include_reviewed,
                           selected=len(self.selected), read_only=self.writer.read_only, loading=self._loading)
        self.query_one("#queue-status", Static).update(text)

    # -- the highlighted entry -------------------------------------------------------

    def _current(self) -> Any | None:
        rows = self.rows_view
        return self.shown[rows.cursor] if 0 <= rows.cursor < len(self.shown) else None

    @on(QueueList.Highlighted)
    def _highlighted(self, event: QueueList.Highlighted) -> None:
        event.stop()
        self._show_detail()

    def _show_detail(self) -> None:
        """The highlighted entry whole, with its provenance and badges: the list cuts it to one line."""
        detail = self.query_one("#queue-detail", Static)
        q = self._current()
        if q is None:
            detail.update(HINT)
            return
        detail.update(entry_detail(q))

    @on(QueueList.Opened)
    def _opened(self, event: QueueList.Opened) -> None:
        """Enter: read the entry in its day."""
        event.stop()
        if 0 <= event.index < len(self.shown):
            entry = self.shown[event.index].entry
            self.post_message(OpenDiaryDay(entry.date, entry.entry_id.key))

    # -- selection -----------------------------------------------------------------------

    def _chosen(self) -> list[DiaryItem]:
        """The selected entries in queue order, else the highlighted one."""
        if self.selected:
            return [q.entry for q in self.shown if entry_key(q.entry) in self.selected]
        q = self._current()
        return [q.entry] if q is not None else []

    def action_toggle_selected(self) -> None:
        """Select or unselect the highlighted entry, then move down (not ``action_toggle``: the DOM's own)."""
        q = self._current()
        if q is None:
            return
        self.selected ^= {entry_key(q.entry)}
        self.rows_view.set_selected(frozenset(self.selected))
        self.rows_view.action_cursor(1)
        self._show_status()

    def action_select_all(self) -> None:
        """Select every listed entry (or none, when all are selected)."""
        listed = {entry_key(q.entry) for q in self.shown}
        self.selected = set() if listed and listed <= self.selected else listed
        self._fill()

    # -- writes ----------------------------------------------------------------------------

    def _refused(self, what: str) -> bool:
        if self.writer.read_only:
            self.notify(f"read-only: {what} refused, nothing written", severity="warning", markup=False)
            return True
        return False

    def action_promote(self) -> None:
        """Promote the selected (or highlighted) entries: similar items, preview, then one checked write."""
        entries = self._chosen()
        if not entries:
            self.notify("nothing to promote: the queue is empty", markup=False)
            return
        if self._refused("promotion"):
            return
        screen = PromoteScreen(entries, store=self.backend.store, index=self.backend.index,
                               writer=self.writer, app_owner=self.backend.owner)

        def promoted(item: RecallItem | None) -> None:
            if item is None:
                return
            n = len(entries)
            self.notify(f"promoted {count(n, 'entry')} to {item.file}:{item.name}", markup=False)
            self.selected -= {entry_key(e) for e in entries}
            self.refresh_from_store(StoreChange(frozenset({item.file}), external=False))

        self.app.push_screen(screen, promoted)

    def action_mark(self) -> None:
        """Mark the chosen entries "reviewed, not promoted"; already marked ones (shown with v) are unmarked."""
        entries = self._chosen()
        if not entries or self._refused("'reviewed, not promoted' mark"):
            return
        marked = {entry_key(q.entry) for q in self.entries if q.dismissed}
        if all(entry_key(e) in marked for e in entries):
            self._write_marks("undismiss", entries)
        else:
            self._write_marks("dismiss", [e for e in entries if entry_key(e) not in marked])

    def action_undo_mark(self) -> None:
        """Take back the last mark (or unmark) made here."""
        if self._refused("undo of the mark"):
            return
        if not self._marks:
            self.notify("no mark to undo: none was made in this session", markup=False)
            return
        op, entries = self._marks.pop()
        self._write_marks("undismiss" if op == "dismiss" else "dismiss", entries, undo=True)

    def _write_marks(self, op: str, entries: list[DiaryItem], *, undo: bool = False) -> None:
        try:
            n = self.writer.dismiss(entries) if op == "dismiss" else self.writer.undismiss(entries)
        except (ValueError, PermissionError, OSError) as exc:
            self.notify(f"not marked: {exc}", severity="error", markup=False)
            return
        if not undo:
            self._marks.append((op, entries))
        entries_text = count(len(entries), "entry")
        if undo:
            self.notify(f"undone: {entries_text} {'back in the queue' if op == 'undismiss' else 'marked reviewed again'}",
                        markup=False)
        elif op == "dismiss":
            self.notify(f"{entries_text} marked reviewed, not promoted (u undoes)" + ("" if n == len(entries) else
                        f"; {len(entries) - n} already were"), markup=False)
        else:
            self.notify(f"{entries_text} back in the queue (u undoes)", markup=False)
        self.selected -= {entry_key(e) for e in entries}
        self.reload()

    # -- filters ------------------------------------------------------------------------------

    @on(QueueFilters.DaysChecked)
    def _days_checked(self, event: QueueFilters.DaysChecked) -> None:
        event.stop()
        self._days_error = event.error
        self._show_status()

    @on(QueueFilters.QueryChanged)
    def _query_changed(self, event: QueueFilters.QueryChanged) -> None:
        event.stop()
        self._query = event.query
        self.reload()

    @on(QueueFilters.OwnerChanged)
    def _owner_changed(self, event: QueueFilters.OwnerChanged) -> None:
        event.stop()
        self.owner_filter = event.owner
        self._fill()

    def action_show_reviewed(self) -> None:
        """Show or hide the entries marked "reviewed, not promoted"."""
        self.filters.toggle_reviewed()

    def action_filter(self) -> None:
        """Put the focus in the day-range box."""
        self.filters.days_box.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape only from a filter (else it is the app's)."""
        if action == "leave_filter":
            focused = self.screen.focused
            return focused is not None and focused is not self.rows_view and self in focused.ancestors
        return True

    def action_leave_filter(self) -> None:
        """Escape from a filter: back to the rows."""
        self.rows_view.focus()

    @on(Input.Submitted, "#queue-days")
    def _days_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.rows_view.focus()

