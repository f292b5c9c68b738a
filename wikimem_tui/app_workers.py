"""The App's background work: the catalogue, the search index, its warm-up and the file watcher.

Split from ``app.py`` (which lays out and routes): slow work runs in Textual
workers so the first paint never waits for the store, each in its own group
(``exclusive`` within it: a newer request supersedes an older one), and a
worker that fails is reported with a toast while the app keeps running.
What a finished worker produced is handed to the widgets from here.
``AppWorkers`` is a mixin of the App; what it relies on is declared below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App
from textual.worker import Worker, WorkerState, get_current_worker

from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.common.messages import IndexReady, StoreChanged
from wikimem_tui.calendar.calendar import DiaryCalendar
from wikimem_tui.query.query_panel import QueryPanel
from wikimem_tui.tree.topic_tree import TopicTree

if TYPE_CHECKING:
    from wikimem_tui.core.backend import Backend
    from wikimem_tui.item.item_area import ItemArea

__all__ = ["AppWorkers"]


class AppWorkers(App[None]):
    """Catalogue, index, warm-up and watcher workers, and what happens when each finishes."""

    backend: Backend
    catalogue: Catalogue | None
    index_ready: bool
    watcher_ready: bool
    own_echoes: int
    _pending: StoreChange
    _index_stale: bool
    _force_polling: bool | None

    if TYPE_CHECKING:
        @property
        def item_area(self) -> ItemArea: ...
        def update_status(self, note: str | None = None) -> None: ...
        def _refresh_keys(self) -> None: ...
        def _index_progress(self, pct: int, done: int, total: int) -> None: ...
        def notify_error(self, message: str) -> None: ...

    @work(thread=True, exclusive=True, group="catalogue", exit_on_error=False)
    def build_catalogue(self) -> None:
        """(Re)build the catalogue off the UI thread and hand it to the tree."""
        worker = get_current_worker()
        pending, current = self._pending, self.catalogue
        store = self.backend.store
        if current is None:
            catalogue = Catalogue.build(store)
        else:
            catalogue = current.updated(store, pending.wiki_files, pending.diary_dates)
        if not worker.is_cancelled:
            self.call_from_thread(self._catalogue_built, catalogue, pending)

    def _catalogue_built(self, catalogue: Catalogue, done: StoreChange) -> None:
        self.catalogue = catalogue
        if not self.query(TopicTree):  # the app is shutting down: nothing left to show it in
            return
        p = self._pending
        self._pending = StoreChange(p.wiki_files - done.wiki_files, p.diary_dates - done.diary_dates, external=False)
        self.query_one(TopicTree).set_catalogue(catalogue)
        self.query_one(DiaryCalendar).set_catalogue(catalogue)
        self.item_area.set_catalogue(catalogue)
        self._refresh_keys()

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def build_index(self, files: frozenset[str] | None = None) -> None:
        """Build (or refresh ``files`` of) the search index, with progress on the status line."""
        index = self.backend.index
        shown = [-1]

        def progress(done: int, total: int) -> None:
            pct = 100 * done // total if total else 100
            if pct != shown[0]:  # one UI update per percent, not per file
                shown[0] = pct
                self.call_from_thread(self._index_progress, pct, done, total)

        if files is not None:
            index.refresh_files(sorted(files))
        else:
            index.build(progress=progress)
        self.call_from_thread(self._index_built, files is None)

    @work(thread=True, exclusive=True, group="warm", exit_on_error=False)
    def warm_index(self) -> None:
        """Pack common terms now, not in the first queries needing them.

        Its own group: a refresh after an external change (group ``index``)
        does not cancel it, and queries never wait for it (the index takes
        its lock per chunk only).
        """
        worker = get_current_worker()
        self.backend.index.warm(should_stop=lambda: worker.is_cancelled)

    def _index_built(self, full: bool) -> None:
        first = not self.index_ready
        self.index_ready = True
        self.update_status()
        self.post_message(IndexReady())
        if full:
            self.warm_index()
        if first and self._index_stale:
            self._index_stale = False
            self.build_index(frozenset(self.backend.store.files()))

    @on(IndexReady)
    def _index_ready(self) -> None:
        for panel in self.query(QueryPanel):  # none once the app is shutting down
            panel.set_index_building(False)

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_files(self) -> None:
        """Follow edits by other processes under the memory directory."""
        from wikimem_tui.core.watch import watch_store

        def changed(change: StoreChange) -> None:
            self.post_message(StoreChanged(change))

        def ready() -> None:
            self.watcher_ready = True

        def own() -> None:
            self.own_echoes += 1

        try:
            await watch_store(self.backend.root, changed, own=self.backend.own_writes,
                              force_polling=self._force_polling, on_ready=ready, on_own=own)
        except Exception as exc:  # inotify limits, vanished directory…
            self.notify(f"live updates off: {exc}", severity="warning", markup=False)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """A background job failed: say so and keep running (the files are untouched)."""
        if event.state == WorkerState.ERROR and event.worker.group in ("catalogue", "index", "warm", "watch", "undo"):
            self.notify_error(f"{event.worker.group} failed: {event.worker.error}")
            if event.worker.group == "index":
                self.update_status("index: failed (see notification)")
