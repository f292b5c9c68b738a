"""Query panel: ``MemoryIndex.retrieve(..., explain=True)`` as you type.

Retrieval is synchronous and may block (a cold 100k-item index takes
seconds to build), so the event loop never calls it: each keystroke bumps a
sequence number and, after a short debounce, starts a thread worker in the
exclusive ``query`` group. Workers take one lock around ``retrieve`` (the
index is not promised to be thread-safe) and a worker whose query is no
longer the newest skips the call; results that arrive for an older sequence
number are dropped, so a slow query can never overwrite a newer one.

Querying is read-only by construction: this module calls ``retrieve`` and,
for the tokenizer knob, builds a *new* in-memory index (swapped in whole); it never writes a file.
Every name and term on screen comes from memory text and is drawn as ``Text``
(see ``query_results``); the knobs and their validation live in ``query_knobs``.
"""

from __future__ import annotations

import importlib.util
import threading
import time
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import DataTable, Input, Static
from textual.worker import get_current_worker

from wikimem import RetrievalResult, RetrievedItem
from wikimem_tui.messages import StoreChange
from wikimem_tui.widgets.query_knobs import QueryKnobs, QueryParams
from wikimem_tui.widgets.query_results import agent_text, open_message_for, row_cells, summary_lines

__all__ = ["QueryPanel", "QueryParams", "jieba_installed", "open_message_for", "summary_lines"]

DEBOUNCE_SECONDS = 0.15
NO_JIEBA = "jieba is not installed (pip install jieba): staying on bigrams"


def jieba_installed() -> bool:
    """Whether ``import jieba`` can work, asked now (not cached: it may be installed meanwhile)."""
    try:
        return importlib.util.find_spec("jieba") is not None
    except (ImportError, ValueError):
        return False


def _tokens(use_jieba: bool) -> str:
    return "jieba" if use_jieba else "bigrams"


class QueryPanel(Widget):
    """Query input, knobs, the explained result table and its summary."""

    HELP_TITLE = "Query pane"

    BINDINGS = [
        Binding("escape", "toggle_focus", "Results ⇄ query", show=False, id="query.toggle-focus"),
        Binding("ctrl+y", "copy_for_agent", "Copy result", id="query.copy"),
    ]

    DEFAULT_CSS = """
    QueryPanel { height: 1fr; }
    QueryPanel #query-status { height: 1; color: $text-muted; }
    QueryPanel #query-status.-error { color: $error; }
    QueryPanel #query-results { height: 1fr; }
    QueryPanel #query-summary { height: auto; max-height: 8; }
    """

    class Results(Message):
        """A finished retrieval (from the worker thread)."""

        def __init__(self, seq: int, result: RetrievalResult | None, ms: float, error: str = "") -> None:
            super().__init__()
            self.seq, self.result, self.ms, self.error = seq, result, ms, error

    class Waiting(Message):
        """The worker is waiting for the App's index build before querying."""

    class IndexSwapped(Message):
        """The index was rebuilt (``ok``) with another tokenizer, or could not be."""

        def __init__(self, note: str, ok: bool = True) -> None:
            super().__init__()
            self.note, self.ok = note, ok

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._seq = 0
        self._debounce: Timer | None = None
        self._lock = threading.Lock()
        self._rows: list[RetrievedItem] = []
        self.index_building = False
        """While True, queries wait and the status says so (see ``set_index_building``)."""
        self.last_result: RetrievalResult | None = None
        """The result on screen (None before the first query)."""
        self.show_timing = True
        """Show how long retrieve took (snapshot tests turn it off)."""

    @property
    def backend(self) -> Any:
        """The App's backend."""
        return self.app.backend  # type: ignore[attr-defined]

    @property
    def knobs(self) -> QueryKnobs:
        """The knob grid."""
        return self.query_one(QueryKnobs)

    def _use_jieba(self) -> bool:
        """The tokenizer of the index in force (the index knows; the backend's flag may say "auto")."""
        mode = getattr(self.backend.index, "use_jieba", self.backend.use_jieba)
        return bool(mode)

    def compose(self) -> ComposeResult:
        backend = self.backend
        fusion = None
        if backend.embedder is not None:
            fusion = getattr(backend.index, "fusion_weight", 0.5)
        yield Input(placeholder="query… (e.g. beach 昨天)", id="query-input")
        yield QueryKnobs(use_jieba=self._use_jieba(), fusion=fusion, id="query-knobs")
        yield Static(id="query-status", markup=False)
        yield DataTable(id="query-results", cursor_type="row", zebra_stripes=True)
        yield Static(id="query-summary", markup=False)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("#", "src", "score", "bm25", "cos", "~tok", "item", "terms / via")
        self._status("type a query")
        if self._use_jieba() and self._index_busy():
            self._time_first_build()

    # -- public API ---------------------------------------------------------

    def set_index_building(self, building: bool, note: str = "") -> None:
        """The App says the index is (re)building; when done, re-run the query."""
        self.index_building = building
        if building:
            self._status(note or "index building…")
        else:
            self.run_query()

    def refresh_from_store(self, change: StoreChange | None = None) -> None:
        """Memory changed: the same query may now recall something else."""
        if change is None or change.wiki_files or change.diary_dates:
            self.run_query()

    def run_query(self) -> None:
        """Run the current query with the current knobs now (no debounce)."""
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        self._seq += 1
        query = self.query_one("#query-input", Input).value
        try:
            params = self.knobs.params(query, self.backend.today())
        except ValueError as exc:
            self._error(str(exc))
            return
        if not params.query.strip() and params.time_range is None:
            self._show(None)
            self._status("type a query")
            return
        if self.index_building or self.backend.index is None:
            self._status("index building… the query runs when it is ready")
            return
        self._status("searching…")
        self._retrieve(self._seq, params)

    # -- input and knobs ----------------------------------------------------

    @on(Input.Changed, "#query-input")
    def _query_typed(self, event: Input.Changed) -> None:
        event.stop()
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE_SECONDS, self.run_query)

    @on(Input.Submitted, "#query-input")
    def _query_submitted(self, event: Input.Submitted) -> None:
        """Enter moves to the results (to pick one), running a still-debounced query first."""
        event.stop()
        if self._debounce is not None:
            self.run_query()
        self.query_one(DataTable).focus()

    def action_toggle_focus(self) -> None:
        """Escape: from the query box or a knob to the results, and back."""
        table = self.query_one(DataTable)
        (self.query_one("#query-input", Input) if table.has_focus else table).focus()

    def on_query_knobs_changed(self, message: QueryKnobs.Changed) -> None:
        message.stop()
        self.run_query()

    def on_query_knobs_invalid(self, message: QueryKnobs.Invalid) -> None:
        message.stop()
        self._error(message.text)

    def on_query_knobs_fusion_changed(self, message: QueryKnobs.FusionChanged) -> None:
        message.stop()
        index = self.backend.index
        if index is not None:
            with self._lock:
                index.fusion_weight = message.weight
        self.run_query()

    def on_query_knobs_tokenizer_changed(self, message: QueryKnobs.TokenizerChanged) -> None:
        message.stop()
        if message.use_jieba and not jieba_installed():
            self.notify(NO_JIEBA, severity="warning", markup=False)
            self.knobs.set_tokenizer(False)
            return
        what = "loading jieba and rebuilding the index…" if message.use_jieba else "rebuilding the index with bigrams…"
        self.set_index_building(True, what)
        if message.use_jieba:
            self.notify("loading jieba (about 1–2 s) and re-tokenizing the store…", markup=False)
        self._rebuild_index(message.use_jieba)

    @work(thread=True, exclusive=True, group="query-index")
    def _rebuild_index(self, use_jieba: bool) -> None:
        from wikimem import MemoryIndex  # lazy: retrieval is only needed here

        backend = self.backend
        started = time.perf_counter()
        old = backend.index
        kwargs: dict[str, Any] = {"use_jieba": use_jieba, "embedder": backend.embedder, "vectors_dir": backend.root}
        for knob in ("fusion_weight", "fusion"):  # keep the knobs the old index was built with
            if hasattr(old, knob):
                kwargs[knob] = getattr(old, knob)
        try:
            index = MemoryIndex(backend.store, **kwargs)
            index.today = backend.today  # query time words resolve against the app's today
            index.rebuild()
        except Exception as exc:  # e.g. jieba failing to load: keep the old index
            self.post_message(self.IndexSwapped(f"index not rebuilt: {exc!r}", ok=False))
            return
        if use_jieba and not index.use_jieba:  # installed but broken: the index fell back to bigrams
            index.close()
            self.post_message(self.IndexSwapped("jieba could not be loaded: staying on bigrams", ok=False))
            return
        if get_current_worker().is_cancelled:
            index.close()
            return
        with self._lock:
            backend.index, backend.use_jieba = index, use_jieba
        if hasattr(old, "close"):
            old.close()
        seconds = time.perf_counter() - started
        self.post_message(self.IndexSwapped(f"index rebuilt with {_tokens(use_jieba)} in {seconds:.1f} s"))

    @work(thread=True, exclusive=True, group="query-jieba-startup")
    def _time_first_build(self) -> None:
        """Started with jieba: say how long loading it and the first build took."""
        started = time.perf_counter()
        worker = get_current_worker()
        while self._index_busy() and not worker.is_cancelled:
            time.sleep(0.05)
        if not worker.is_cancelled:
            seconds = time.perf_counter() - started
            self.post_message(self.IndexSwapped(f"index built with jieba in {seconds:.1f} s (bigrams are faster)"))

    def on_query_panel_index_swapped(self, message: IndexSwapped) -> None:
        message.stop()
        self.notify(message.note, markup=False, severity="information" if message.ok else "error")
        self.knobs.set_tokenizer(self._use_jieba())
        if self.index_building:
            self.set_index_building(False)

    # -- the worker and its results -----------------------------------------

    def _index_busy(self) -> bool:
        """Is the App still building (or refreshing) the index?

        The App signals this by ``index_ready`` and by its ``index`` worker
        group; a standalone panel (no such App) never waits.
        """
        if getattr(self.app, "index_ready", True) is False:
            return True
        return any(w.group == "index" and w.is_running for w in list(self.app.workers))

    @work(thread=True, exclusive=True, group="query")
    def _retrieve(self, seq: int, params: QueryParams) -> None:
        worker = get_current_worker()
        told = False
        # Waiting here (not in retrieve) avoids a second cold build racing the App's.
        while self._index_busy() and seq == self._seq and not worker.is_cancelled:
            if not told:
                self.post_message(self.Waiting())
                told = True
            time.sleep(0.05)
        with self._lock:
            if seq != self._seq or worker.is_cancelled:
                return  # superseded while waiting
            started = time.perf_counter()
            try:
                result = self.backend.index.retrieve(
                    params.query,
                    limit=params.limit,
                    budget_tokens=params.budget,
                    expand_links=params.expand_links,
                    explain=True,
                    time_range=params.time_range,
                )
            except Exception as exc:  # never let a query take the app down
                self.post_message(self.Results(seq, None, 0.0, f"query failed: {exc!r}"))
                return
        ms = (time.perf_counter() - started) * 1000
        self.post_message(self.Results(seq, result, ms))

    def on_query_panel_waiting(self, message: Waiting) -> None:
        message.stop()
        self._status("index building… the query runs when it is ready")

    def on_query_panel_results(self, message: Results) -> None:
        message.stop()
        if message.seq != self._seq:
            return  # a newer query is on its way
        if message.result is None:
            self._error(message.error)
            return
        self._show(message.result)
        hits = sum(1 for e in message.result.items if e.source == "hit")
        links = len(message.result.items) - hits
        timing = f" · {message.ms:.1f} ms" if self.show_timing else ""
        self._status(f"{hits} hit{'' if hits == 1 else 's'}, {links} linked{timing}")

    def _show(self, result: RetrievalResult | None) -> None:
        self.last_result = result
        table = self.query_one(DataTable)
        table.clear()
        self._rows = []
        summary = self.query_one("#query-summary", Static)
        if result is None:
            summary.update(Text())
            return
        rank = 0
        for entry in result.items:
            if entry.source == "hit":
                rank += 1
            self._add_row(table, str(rank) if entry.source == "hit" else "↳", entry, "")
        for entry in result.dropped:
            self._add_row(table, "✂", entry, "dim strike")
        if not result.items:
            table.add_row(Text("no results", style="dim italic"), key="none")
        lines = summary_lines(result, embedder_configured=self.backend.embedder is not None)
        summary.update(Text("\n").join(lines))

    def _add_row(self, table: DataTable[Any], rank: str, entry: RetrievedItem, style: str) -> None:
        table.add_row(*row_cells(rank, entry, style), key=str(len(self._rows)))
        self._rows.append(entry)

    @on(DataTable.RowSelected, "#query-results")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        if key is not None and key.isdigit() and int(key) < len(self._rows) and self.last_result is not None:
            self.post_message(open_message_for(self._rows[int(key)], self.last_result))

    def action_copy_for_agent(self) -> None:
        """Copy what an agent would be handed for this query (hits and links within the budget)."""
        result = self.last_result
        if result is None or not result.items:
            self.notify("nothing to copy: run a query first", severity="warning", markup=False)
            return
        self.app.copy_to_clipboard(agent_text(result))
        rows = len(result.items)
        self.notify(f"copied {rows} row{'' if rows == 1 else 's'} (~{result.budget_used} tokens) for an agent",
                    markup=False)

    def _status(self, text: str) -> None:
        status = self.query_one("#query-status", Static)
        status.remove_class("-error")
        status.update(Text(text))

    def _error(self, text: str) -> None:
        status = self.query_one("#query-status", Static)
        status.add_class("-error")
        status.update(Text(text))
