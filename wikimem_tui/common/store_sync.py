"""The app's view of the store: the catalogue, whether the index and the watcher are ready, what is not read yet.

One owner for that state. The App once kept it in its own attributes and
a workers mixin wrote the same ones (the pending changes from two files);
here :class:`StoreSync` alone writes them, and the App only reads
(``app.catalogue``, ``app.index_ready``…) and hands it every
``StoreChange``.

Slow work runs in Textual workers of the App so the first paint never
waits for the store, each in its own group (``exclusive`` within it: a
newer request supersedes an older one); the App reports a worker that
failed (``GROUPS``). What a finished worker produced reaches the panes
through two typed protocols, :class:`CatalogueListener` and
:class:`StoreListener`, registered once by the App in the order they
should hear it: no pane is looked up by id, and none is called that does
not say it listens.

The first reads run one after the other -- the index, then the catalogue,
then the index warm-up -- not side by side: they are all CPU-bound Python
sharing one interpreter lock, so running them together makes each finish
when all do, and the index, the one a query waits for, comes last
(``bench/bench_app.py`` times the reads). In turn the query works from the first one's end, and the tree is ready when
it was before. Meanwhile the collector is held off the long-lived heap they
build (``core/long_lived``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import partial
from typing import Any, Protocol

from textual.app import App
from textual.notifications import Notification
from textual.worker import get_current_worker

from wikimem_tui.common.messages import IndexReady, StoreChanged
from wikimem_tui.common.safe import clean
from wikimem_tui.core.backend import Backend
from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.core.live_notice import LiveNotices
from wikimem_tui.core.long_lived import LongLivedHeap

__all__ = ["GROUPS", "CatalogueListener", "StoreListener", "StoreSync"]

#: The worker groups StoreSync runs (the App reports a failure in any of them).
GROUPS = ("catalogue", "index", "warm", "watch")
#: Seconds the live "changed on disk" notice stays: long enough to read, short enough not to sit over the panes.
LIVE_TIMEOUT = 3.0


class CatalogueListener(Protocol):
    """A pane that shows names, counts or links: it is handed every new catalogue."""

    @property
    def is_attached(self) -> bool:
        """False once the app is shutting down (nothing is handed on then)."""
        ...

    def set_catalogue(self, catalogue: Catalogue) -> None:
        """Show what the new catalogue says."""
        ...


class StoreListener(Protocol):
    """A pane that re-reads what it shows when the store changed (a write of ours or another process's)."""

    @property
    def is_attached(self) -> bool:
        """False once the app is shutting down (nothing is handed on then)."""
        ...

    def refresh_from_store(self, change: StoreChange | None = None) -> None:
        """Re-read what ``change`` touched (None: everything)."""
        ...


class StoreSync:
    """The catalogue, the index and the watcher of one App, and the changes between them."""

    def __init__(
        self,
        app: App[Any],
        backend: Backend,
        *,
        status: Callable[[str | None], None],
        progress: Callable[[int, int, int], None],
        keys: Callable[[], None],
        force_polling: bool | None = None,
    ) -> None:
        self._app = app
        self._backend = backend
        self._status = status
        """The App's status line (a note, or None for the index's state)."""
        self._progress = progress
        """The index build's progress ``(pct, done, total)``, for the status line and the query pane."""
        self._keys = keys
        """Called after the panes heard of a change: the keys that depend on it may change."""
        self._force_polling = force_polling
        self.catalogue: Catalogue | None = None
        """Names, counts and the link graph; None until the first build finishes."""
        self.index_ready = False
        """True once the background index build finished."""
        self.watcher_ready = False
        """True once the file watcher is armed (writes from then on are seen)."""
        self.own_echoes = 0
        """Watcher batches that held only this app's own writes (and were dropped as such)."""
        self._pending = StoreChange(external=False)
        """Files changed since the catalogue being built (or shown) was read."""
        self._index_stale = False
        """An external change arrived before the first index build finished: refresh once it has."""
        self._catalogue_listeners: list[CatalogueListener] = []
        self._store_listeners: list[StoreListener] = []
        self._live: LiveNotices | None = None
        self._live_shown: Notification | None = None
        self.heap = LongLivedHeap()
        """The collector kept off the first reads and away from what they built (``core/long_lived``)."""
        self._first_reads = True
        self._index_failed = False
        """The first index build raised (the App says so): the catalogue is read all the same."""
        """Until the first index and catalogue are in: the catalogue waits for the index, the warm-up for both."""

    def listen(self, *, catalogue: Sequence[CatalogueListener] = (), store: Sequence[StoreListener] = ()) -> None:
        """Register panes, in the order they hear of a new catalogue or a store change."""
        self._catalogue_listeners.extend(catalogue)
        self._store_listeners.extend(store)

    def _attached(self, listeners: Sequence[CatalogueListener | StoreListener]) -> bool:
        """False before the panes are composed and while the app shuts down: nothing to show a result in.

        ``is_running`` too: a shutdown that does not go through ``exit()``
        (Textual's test harness) stops the app's pump and prunes the panes'
        children while messages still arrive, and a pane then finds its
        table already gone (seen once under load as a NoMatches crash).
        """
        return self._app.is_running and bool(listeners) and all(listener.is_attached for listener in listeners)

    @property
    def _live_notices(self) -> LiveNotices:
        """Coalesces "changed on disk" toasts (made on first use: it needs the running app's timers)."""
        if self._live is None:
            self._live = LiveNotices(self._live_toast, self._app.set_timer)
        return self._live

    def _live_toast(self, text: str) -> None:
        """Show ``text`` as *the* live notice: it replaces the one before, so a writing agent never stacks
        toasts over the top of the item pane, and it goes after :data:`LIVE_TIMEOUT` seconds."""
        if self._live_shown is not None:
            with suppress(KeyError):  # expired already; Textual has no public "remove this one"
                self._app._unnotify(self._live_shown, refresh=False)
        # Added at once (Textual's own Notify handler does just this), not posted: a replacement posted
        # before the previous one's message arrived would find nothing to remove, and both would stay.
        self._live_shown = Notification(clean(text), "live", "information", LIVE_TIMEOUT, markup=False)
        self._app._notifications.add(self._live_shown)
        self._app._refresh_notifications()

    def start(self, *, watch: bool) -> None:
        """Build the index, then read the catalogue, and (``watch``) follow the directory, all in workers."""
        self.heap.pause()
        self.build_index()
        if watch:
            self.watch_files()

    def close(self) -> None:
        """The App is going: the collector as it was before it started."""
        self.heap.close()

    def _first_reads_done(self) -> bool:
        """True once (and from when) the first index and catalogue are in: the heap settles, the warm-up may start."""
        catalogue = self.catalogue
        if self._first_reads and (self.index_ready or self._index_failed) and catalogue is not None:
            self._first_reads = False
            self.heap.settled(sum(map(len, catalogue.names.values())))
            if self.index_ready:
                self.warm_index()
        return not self._first_reads

    def changed(self, change: StoreChange) -> None:
        """A write, ours or another process's: re-read what it touched, tell the user and the panes."""
        p = self._pending  # own writes were recorded by the backend, under the store lock
        self._pending = StoreChange(p.wiki_files | change.wiki_files, p.diary_dates | change.diary_dates, external=False)
        if change.wiki_files or change.diary_dates or (self.catalogue is None and self.index_ready):
            self.build_catalogue()  # the first one is started by the first index build
        if change.external:
            if change.wiki_files or change.diary_dates or change.journal:  # not for derived caches
                self._live_notices.add(change)  # one toast per burst, not per write
            if change.wiki_files and self.index_ready:
                self.build_index(change.wiki_files)
            elif change.wiki_files:
                self._index_stale = True
            refresh_diary = getattr(self._backend.index, "refresh_diary", None)
            if change.diary_dates and refresh_diary is not None:  # the whole-diary index, once a query built it
                self._app.run_worker(partial(refresh_diary, sorted(change.diary_dates)), name="refresh_diary",
                                     thread=True, group="index-diary", exit_on_error=False)
        if not self._attached(self._store_listeners):
            return
        for listener in self._store_listeners:
            listener.refresh_from_store(change)
        self._keys()

    # -- the catalogue ----------------------------------------------------------

    def build_catalogue(self) -> None:
        """(Re)build the catalogue off the UI thread and hand it to the panes."""
        self._app.run_worker(self._build_catalogue, name="build_catalogue", thread=True, exclusive=True,
                             group="catalogue", exit_on_error=False)

    def _build_catalogue(self) -> None:
        worker = get_current_worker()
        pending, current = self._pending, self.catalogue
        store = self._backend.store
        if current is None:
            catalogue = Catalogue.build(store)
        else:
            catalogue = current.updated(store, pending.wiki_files, pending.diary_dates)
        if not worker.is_cancelled:
            self._app.call_from_thread(self._catalogue_built, catalogue, pending)

    def _catalogue_built(self, catalogue: Catalogue, done: StoreChange) -> None:
        self.catalogue = catalogue
        self._first_reads_done()
        if not self._attached(self._catalogue_listeners):
            return
        p = self._pending
        self._pending = StoreChange(p.wiki_files - done.wiki_files, p.diary_dates - done.diary_dates, external=False)
        for listener in self._catalogue_listeners:
            listener.set_catalogue(catalogue)
        self._keys()

    # -- the index ----------------------------------------------------------------

    def build_index(self, files: frozenset[str] | None = None) -> None:
        """Build (or refresh ``files`` of) the search index, with progress on the status line."""
        self._app.run_worker(partial(self._build_index, files), name="build_index", thread=True, exclusive=True,
                             group="index", exit_on_error=False)

    def _build_index(self, files: frozenset[str] | None) -> None:
        index = self._backend.index
        shown = [-1]

        def progress(done: int, total: int) -> None:
            pct = 100 * done // total if total else 100
            if pct != shown[0]:  # one UI update per percent, not per file
                shown[0] = pct
                self._app.call_from_thread(self._progress, pct, done, total)

        try:
            if files is not None:
                index.refresh_files(sorted(files), skip_own_writes=True)  # a file still as our last write left it: applied already
            else:
                index.build(progress=progress)
        except BaseException:
            if not self.index_ready:  # the App reports the error; the tree must not wait for an index forever
                with suppress(RuntimeError):  # the App is already gone
                    self._app.call_from_thread(self._first_index_failed)
            raise
        self._app.call_from_thread(self._index_built, files is None)

    def _first_index_failed(self) -> None:
        self._index_failed = True
        if self.catalogue is None:
            self.build_catalogue()
        else:
            self._first_reads_done()

    def warm_index(self) -> None:
        """Pack common terms now, not in the first queries needing them.

        Its own group: a refresh after an external change (group ``index``)
        does not cancel it, and queries never wait for it (the index takes
        its lock per chunk only). It pauses between steps while the user is
        active (``core/activity``): its scans would otherwise take the GIL
        from the frames and the query the user is waiting for.
        """
        self._app.run_worker(self._warm_index, name="warm_index", thread=True, exclusive=True, group="warm",
                             exit_on_error=False)

    def _warm_index(self) -> None:
        worker = get_current_worker()
        activity = self._backend.activity

        def should_stop() -> bool:
            """Asked before each step: wait while the user types (the loop and the query need the GIL)."""
            return not activity.wait_quiet(lambda: worker.is_cancelled)

        self._backend.index.warm(should_stop=should_stop)

    def _index_built(self, full: bool) -> None:
        first = not self.index_ready
        self.index_ready = True
        self._status(None)
        self._app.post_message(IndexReady())
        if first and self.catalogue is None:
            self.build_catalogue()
        if full and self._first_reads_done() and not first:
            self.warm_index()  # a later full build (the first one's warm-up waits for the catalogue)
        if first and self._index_stale:
            self._index_stale = False
            self.build_index(frozenset(self._backend.store.files()))

    # -- the watcher ----------------------------------------------------------------

    def watch_files(self) -> None:
        """Follow edits by other processes under the memory directory."""
        self._app.run_worker(self._watch_files(), name="watch_files", exclusive=True, group="watch",
                             exit_on_error=False)

    async def _watch_files(self) -> None:
        from wikimem_tui.core.watch import watch_store

        def changed(change: StoreChange) -> None:
            self._app.post_message(StoreChanged(change))

        def ready() -> None:
            self.watcher_ready = True

        def own() -> None:
            self.own_echoes += 1

        try:
            await watch_store(self._backend.root, changed, own=self._backend.own_writes,
                              force_polling=self._force_polling, on_ready=ready, on_own=own)
        except Exception as exc:  # inotify limits, vanished directory…
            self._app.notify(f"live updates off: {exc}", severity="warning", markup=False)

