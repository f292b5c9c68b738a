"""Query panel: ``MemoryIndex.retrieve(..., explain=True)`` as you type.

Retrieval is synchronous and may block (a cold 100k-item index takes
seconds to build), so the event loop never calls it: each keystroke bumps a
sequence number and, after a short debounce, starts a thread worker in the
exclusive ``query`` group. Workers take one lock around ``retrieve`` (the
index is not promised to be thread-safe) and a worker whose query is no
longer the newest skips the call; results that arrive for an older sequence
number are dropped, so a slow query can never overwrite a newer one.

Querying is read-only by construction: this module calls ``retrieve`` and,
for the jieba knob, builds a *new* in-memory index; it never writes a file.
Every name and term on screen comes from memory text and is drawn as ``Text``.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal
from textual.events import Resize
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Checkbox, DataTable, Input, Label, Select, Static
from textual.worker import get_current_worker

from wikimem import RetrievalResult, RetrievedItem, TimeRange, parse_time_range
from wikimem_tui.messages import OpenDiaryDay, OpenItem, StoreChange
from wikimem_tui.safe import safe_line

__all__ = ["QueryPanel", "QueryParams", "open_message_for", "parse_span", "summary_lines"]

DEBOUNCE_SECONDS = 0.15
_JIEBA = {"auto": None, "on": True, "off": False}


@dataclass(frozen=True)
class QueryParams:
    """Everything one retrieval is run with (knobs included)."""

    query: str = ""
    limit: int = 10
    budget: int | None = None
    expand_links: bool = True
    time_range: TimeRange | None = None


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_span(text: str) -> TimeRange | None:
    """``YYYY-MM-DD`` or ``YYYY-MM-DD..YYYY-MM-DD`` (reversed bounds swapped), else None.

    The same syntax as ``wikimem explain --time-range``; parsed here because
    the app uses only wikimem's public API, which exports no span parser.
    """
    parts = [part.strip() for part in text.split("..")]
    if len(parts) > 2 or not all(_ISO_DAY.fullmatch(part) for part in parts):
        return None
    try:
        days = sorted(dt.date.fromisoformat(part) for part in parts)
    except ValueError:  # e.g. 2026-02-30
        return None
    return days[0].isoformat(), days[-1].isoformat()


def open_message_for(entry: RetrievedItem) -> Message:
    """OpenItem for a wiki row; OpenDiaryDay for a diary row (name ``HH:MM``).

    Item names can never contain ``:``, so a name that does is a diary time.
    """
    item = entry.item
    if ":" in item.name:
        return OpenDiaryDay(item.file, item.name)
    return OpenItem(item.file, item.name)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _address(entry: RetrievedItem) -> str:
    return f"{entry.item.file}:{entry.item.name}"


def summary_lines(result: RetrievalResult, *, embedder_configured: bool) -> list[Text]:
    """Budget, dropped rows, unresolved links, the time gate and the ranking used."""
    budget = "no limit" if result.budget_tokens is None else str(result.budget_tokens)
    lines = [Text(f"budget: used {result.budget_used} / {budget}")]
    if result.dropped:
        dropped = Text(f"dropped {len(result.dropped)}: ", style="yellow")
        parts = [
            safe_line(f"{_address(e)} ({e.source}, ~{e.tokens_est} tok)") for e in result.dropped
        ]
        lines.append(dropped + Text(", ").join(parts))
    if result.unresolved_links:
        unresolved = Text("unresolved links: ", style="red")
        lines.append(unresolved + safe_line(", ".join(result.unresolved_links)))
    if result.time_range is None:
        gate = "time gate: none (whole store)"
    else:
        start, end = result.time_range
        gate = f"time gate: {start if start == end else f'{start}..{end}'}"
        gate += f"  [{result.time_range_source}]"
        if result.time_range_widened:
            gate += " (widened: window was empty)"
    lines.append(Text(gate))
    if result.embedding_used:
        lines.append(Text("ranking: BM25 + cosine (fused) · embedding: on", style="green"))
    elif embedder_configured:
        lines.append(Text("ranking: embedding: failed → BM25 only", style="bold red"))
    else:
        lines.append(Text("ranking: BM25 (embedding: off)"))
    return lines


class QueryPanel(Widget):
    """Query input, knobs, the explained result table and its summary."""

    DEFAULT_CSS = """
    QueryPanel { height: 1fr; }
    QueryPanel #query-knobs {
        height: auto; grid-size: 6; grid-columns: 13 15 11 17 14 1fr; grid-gutter: 0 1;
    }
    QueryPanel.-narrow #query-knobs { grid-size: 3; grid-columns: 13 15 1fr; }
    QueryPanel #query-knobs Horizontal { height: 1; }
    QueryPanel #query-knobs Label { padding: 0 1 0 0; color: $text-muted; }
    QueryPanel #query-knobs Input { width: 1fr; }
    QueryPanel #query-knobs Select { width: 1fr; }
    QueryPanel #query-knobs Checkbox { border: none; padding: 0; height: 1; }
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
        """A rebuilt index (other tokenization) replaced ``backend.index``."""

        def __init__(self, note: str) -> None:
            super().__init__()
            self.note = note

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

    def compose(self) -> ComposeResult:
        yield Input(placeholder="query… (e.g. beach 昨天)", id="query-input")
        with Grid(id="query-knobs"):
            with Horizontal():
                yield Label("limit")
                yield Input("10", type="integer", compact=True, id="query-limit")
            with Horizontal():
                yield Label("budget")
                yield Input(placeholder="none", type="integer", compact=True, id="query-budget")
            with Horizontal():
                yield Checkbox("links", True, id="query-links")
            with Horizontal():
                yield Label("jieba")
                yield Select(
                    [(k, k) for k in _JIEBA], value="auto", allow_blank=False, compact=True, id="query-jieba"
                )
            with Horizontal():
                yield Label("fusion")
                yield Input(placeholder="w", compact=True, id="query-fusion")
            with Horizontal():
                yield Label("time")
                yield Input(placeholder="A or A..B / 昨天", compact=True, id="query-time")
        yield Static(id="query-status", markup=False)
        yield DataTable(id="query-results", cursor_type="row", zebra_stripes=True)
        yield Static(id="query-summary", markup=False)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("#", "src", "score", "bm25", "cos", "~tok", "item", "terms / via")
        backend = self.backend
        fusion = self.query_one("#query-fusion", Input)
        fusion.disabled = backend.embedder is None
        fusion.tooltip = "BM25's share in the fused score" if not fusion.disabled else "needs an embedder"
        if backend.index is not None and backend.embedder is not None:
            fusion.value = str(getattr(backend.index, "fusion_weight", ""))
        jieba = {None: "auto", True: "on", False: "off"}[backend.use_jieba]
        self.query_one("#query-jieba", Select).value = jieba
        self._status("type a query")

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < 96, "-narrow")

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
        params = self._params()
        if params is None:
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

    # -- knobs --------------------------------------------------------------

    def _params(self) -> QueryParams | None:
        """Read the knobs; on a bad value show it inline and return None."""
        try:
            limit = int(self.query_one("#query-limit", Input).value or "10")
            budget_text = self.query_one("#query-budget", Input).value.strip()
            budget = int(budget_text) if budget_text else None
        except ValueError:
            return self._error("limit and budget must be whole numbers")
        if limit < 1 or (budget is not None and budget < 1):
            return self._error("limit and budget must be positive")
        time_text = self.query_one("#query-time", Input).value.strip()
        time_range = None
        if time_text:
            time_range = parse_span(time_text) or parse_time_range(
                time_text, today=self.backend.today()
            )
            if time_range is None:
                return self._error(f"bad time range {time_text!r}: use YYYY-MM-DD or A..B")
        return QueryParams(
            query=self.query_one("#query-input", Input).value,
            limit=limit,
            budget=budget,
            expand_links=self.query_one("#query-links", Checkbox).value,
            time_range=time_range,
        )

    @on(Input.Changed, "#query-input")
    def _query_typed(self, event: Input.Changed) -> None:
        event.stop()
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE_SECONDS, self.run_query)

    @on(Input.Changed, "#query-limit, #query-budget, #query-time")
    @on(Checkbox.Changed, "#query-links")
    def _knob_changed(self, event: Message) -> None:
        event.stop()
        self.run_query()

    @on(Input.Changed, "#query-fusion")
    def _fusion_changed(self, event: Input.Changed) -> None:
        event.stop()
        index = self.backend.index
        if not event.value.strip():
            return
        try:
            weight = float(event.value)
        except ValueError:
            weight = -1.0
        if not 0.0 <= weight <= 1.0:
            self._error("fusion weight must be between 0 and 1")
            return
        if index is not None:
            with self._lock:
                index.fusion_weight = weight
        self.run_query()

    @on(Select.Changed, "#query-jieba")
    def _jieba_changed(self, event: Select.Changed) -> None:
        event.stop()
        use_jieba = _JIEBA.get(str(event.value))
        if use_jieba == self.backend.use_jieba:
            return
        self.set_index_building(True, f"rebuilding the index with jieba {event.value}…")
        self._rebuild_index(use_jieba)

    @work(thread=True, exclusive=True, group="query-index")
    def _rebuild_index(self, use_jieba: bool | None) -> None:
        from wikimem import MemoryIndex  # lazy: retrieval is only needed here

        backend = self.backend
        started = time.perf_counter()
        old = backend.index
        kwargs: dict[str, Any] = {"use_jieba": use_jieba, "embedder": backend.embedder}
        for knob in ("fusion_weight", "fusion"):  # keep the knobs the old index was built with
            if hasattr(old, knob):
                kwargs[knob] = getattr(old, knob)
        try:
            index = MemoryIndex(backend.store, **kwargs)
            index.rebuild()
        except Exception as exc:  # e.g. jieba failing to load: keep the old index
            self.post_message(self.IndexSwapped(f"index not rebuilt: {exc!r}"))
            return
        if get_current_worker().is_cancelled:
            return
        with self._lock:
            backend.index, backend.use_jieba = index, use_jieba
        mode = {None: "auto", True: "on", False: "off"}[use_jieba]
        note = f"index rebuilt with jieba {mode} in {time.perf_counter() - started:.1f} s"
        self.post_message(self.IndexSwapped(note))

    def on_query_panel_index_swapped(self, message: IndexSwapped) -> None:
        message.stop()
        self.notify(message.note, markup=False)
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
        self._status(f"{hits} hits, {links} linked{timing}")

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
        link = entry.source == "link"
        tail = f"via {entry.via}" if link else ", ".join(entry.matched_terms)
        cells = [
            Text(rank, style=style),
            Text(entry.source, style=f"{style} {'cyan' if link else 'green'}".strip()),
            Text(_num(entry.score), style=style, justify="right"),
            Text(_num(entry.bm25_score), style=style, justify="right"),
            Text(_num(entry.cos_score), style=style, justify="right"),
            Text(str(entry.tokens_est), style=style, justify="right"),
            safe_line(("  " if link else "") + _address(entry), style),
            safe_line(tail, f"{style} {'italic' if link else ''}".strip()),
        ]
        table.add_row(*cells, key=str(len(self._rows)))
        self._rows.append(entry)

    @on(DataTable.RowSelected, "#query-results")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        if key is not None and key.isdigit() and int(key) < len(self._rows):
            self.post_message(open_message_for(self._rows[int(key)]))

    def _status(self, text: str) -> None:
        status = self.query_one("#query-status", Static)
        status.remove_class("-error")
        status.update(Text(text))

    def _error(self, text: str) -> None:
        status = self.query_one("#query-status", Static)
        status.add_class("-error")
        status.update(Text(text))
        return None
