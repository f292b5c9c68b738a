"""Query panel: ``MemoryIndex.retrieve(..., explain=True)`` as you type.

Retrieval is synchronous and may block (a cold 100k-item index takes
seconds to build), so the event loop never calls it: after a short debounce
a keystroke starts a thread worker in the exclusive ``query`` group, and
``runner.QueryRunner`` makes the newest query win (one lock around the
index, stale queries skipped, stale answers dropped).

The rows (``table``) and the summary say what the library decided, in
``wikimem.explain``'s words (``results``).

Why (not) recalled: an item can be pinned (``pin``; the App's ``w`` pins the
tree's or the item view's item, or picks one by name). While one is, the
worker asks ``MemoryIndex.why_not`` instead of ``retrieve`` -- the same
pipeline run -- and shows its ``result`` in the table and its verdict in the
``WhyNotBox``, live as the query and the knobs change.

While the index builds, a typed query waits and the status line says how far
the build is (``index_progress``); it runs the moment the App says the index
is ready. With an embedder, ``EmbedStatus`` (``embed``) plans and runs
the vector sync; until it is done queries rank with BM25 only and the
ranking line says why.

Querying is read-only by construction: this module calls ``retrieve`` /
``why_not`` and, for the tokenizer knob, builds a *new* in-memory index
(swapped in whole); it never writes a file (the vector sync writes the
derived cache, unless read-only). Every name and term on screen comes from
memory text and is drawn as ``Text``; the knobs and their validation live in
``knobs``.
"""

from __future__ import annotations


from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from wikimem import RetrievalResult
from wikimem_tui.common.fit_input import FitInput
from wikimem_tui.core.backend import Backend
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.query import panel_messages
from wikimem_tui.query.embed import EmbedStatus
from wikimem_tui.query.index_wait import IndexWait
from wikimem_tui.query.knobs import KnobError, QueryKnobs, QueryParams
from wikimem_tui.query.results import for_agent, hit_counts, open_message_for, summary_lines
from wikimem_tui.query.table import ResultsTable
from wikimem_tui.query.tokenizer import (
    NO_JIEBA, analyzer_name, floor_text, jieba_installed, rebuild_and_swap, rebuilding_note,
)
from wikimem_tui.query.runner import QueryRunner
from wikimem_tui.query.why import WhyNotBox

__all__ = ["QueryPanel", "QueryParams", "jieba_installed", "open_message_for", "summary_lines"]

DEBOUNCE_SECONDS = 0.15
#: Terminal rows below which the screen is "-short" (the App's vertical breakpoint): 80x24 and the like.
SHORT = 30


class QueryPanel(Widget):
    """Query input, knobs, the explained result table and its summary."""

    HELP_TITLE = "Query pane"

    BINDINGS = [
        Binding("escape", "toggle_focus", "Query → results", show=False, id="query.toggle-focus"),
        Binding("ctrl+y", "copy_for_agent", "Copy result", id="query.copy"),
    ]

    DEFAULT_CSS = """
    QueryPanel { height: 1fr; }
    QueryPanel #query-status { height: 1; color: $text-muted; }
    QueryPanel #query-status.-error { color: $error; }
    QueryPanel #query-results { height: 1fr; }
    QueryPanel #query-row { height: auto; max-height: 4; color: $text-muted; }
    QueryPanel #query-summary { height: auto; max-height: 10; overflow-y: auto; }
    """

    Results = panel_messages.Results
    IndexSwapped = panel_messages.IndexSwapped

    def __init__(self, backend: Backend, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.backend = backend
        """The app's :class:`~wikimem_tui.core.backend.Backend` (its index answers the queries)."""
        self.runner = QueryRunner()
        """The queries' sequence numbers and the one lock around the index (``runner``)."""
        self._debounce: Timer | None = None
        self._wait = IndexWait()
        """Whether the index builds, and what a waiting query says meanwhile (``index_wait``)."""
        self.last_result: RetrievalResult | None = None
        #: The query run whose answer (or error, or "type a query") is on show.
        self._shown_seq = 0
        """The result on screen (None before the first query)."""
        self.show_timing = True
        """Show how long retrieve took (snapshot tests turn it off)."""
        self._said = ""

    @property
    def knobs(self) -> QueryKnobs:
        """The knob grid."""
        return self.query_one(QueryKnobs)

    def _use_jieba(self) -> bool:
        """The tokenizer of the index in force (the index knows; the backend's flag may say "auto")."""
        mode = getattr(self.backend.index, "use_jieba", self.backend.use_jieba)
        return bool(mode)

    @property
    def table(self) -> ResultsTable:
        """The explained rows of the result on screen."""
        return self.query_one(ResultsTable)

    @property
    def why_box(self) -> WhyNotBox:
        """The pinned item's verdict."""
        return self.query_one(WhyNotBox)

    @property
    def embed_status(self) -> EmbedStatus | None:
        """The embedding sync (None without an embedder)."""
        found = self.query(EmbedStatus)
        return found.first() if found else None

    def compose(self) -> ComposeResult:
        backend = self.backend
        fusion = floor = None
        if backend.embedder is not None:
            fusion = getattr(backend.index, "fusion_weight", 0.5)
            floor = floor_text(backend.index)
        yield FitInput(placeholder="query… (e.g. beach 昨天)", id="query-input")
        yield QueryKnobs(use_jieba=self._use_jieba(), fusion=fusion, floor=floor, id="query-knobs",
                         analyzer=analyzer_name(backend.index))
        if backend.embedder is not None:
            yield EmbedStatus(backend, id="query-embed")
        yield Static(id="query-status", markup=False)
        yield WhyNotBox(id="query-why")
        yield ResultsTable(id="query-results")
        yield Static(id="query-row", markup=False)  # the highlighted row in full (the table cuts it)
        yield Static(id="query-summary", markup=False)

    def on_mount(self) -> None:
        self._status("type a query")

    # -- public API ---------------------------------------------------------

    @property
    def index_building(self) -> bool:
        """While True, queries wait and the status says so (see ``set_index_building``)."""
        return self._wait.building

    def set_index_building(self, building: bool, note: str = "") -> None:
        """The App says the index is (re)building; when done, re-run the query (no polling: it is told)."""
        if building:
            self._status(self._wait.start(note))
            return
        seconds = self._wait.finish()
        if seconds is not None and self._use_jieba():  # started with jieba: say what the first build cost
            self.notify(f"index built with jieba in {seconds:.1f} s (bigrams are faster)", markup=False)
        self.run_query()
        embed = self.embed_status
        if embed is not None:
            embed.index_ready()

    def index_progress(self, done: int, total: int) -> None:
        """How far the App's index build is: a waiting query says so."""
        note = self._wait.progress(done, total)
        if self.index_building:
            self._status(note)
            if self.why_box.pinned is not None:
                self.why_box.waiting(note)

    @property
    def pinned(self) -> tuple[str, str] | None:
        """The item whose fate is shown (``pin``), or None."""
        return self.why_box.pinned

    def pin(self, file: str, name: str) -> None:
        """Show why ``file:name`` is (not) recalled by the current query, live as it changes."""
        self.why_box.pin(file, name)
        self.add_class("-pinned")  # a short screen budgets its rows for the box (app.tcss)
        self.run_query()

    def unpin(self) -> None:
        """Stop showing the pinned item's fate."""
        self.why_box.unpin()
        self.remove_class("-pinned")
        self.run_query()

    def suggested_pin(self) -> tuple[str, str] | None:
        """The result row under the table's cursor (what a picker should offer first), or None."""
        entry = self.table.entry_under_cursor()
        return (entry.item.file, entry.item.name) if entry is not None else None

    def refresh_from_store(self, change: StoreChange | None = None) -> None:
        """Memory changed: the same query may now recall something else (and new items need vectors)."""
        if change is None or change.wiki_files or change.diary_dates:
            self.run_query()
        embed = self.embed_status
        if embed is not None and change is not None and change.wiki_files and not change.external:
            embed.store_changed()  # external changes reach it through the index refresh (set_index_building)

    @property
    def settled(self) -> bool:
        """No keystroke waits for its debounce and the newest run's answer is on show (what a test waits for)."""
        return self._debounce is None and self._shown_seq == self.runner.seq

    def run_query(self) -> None:
        """Run the current query with the current knobs now (no debounce)."""
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        seq = self.runner.next()  # every older query is stale from here, whatever happens next
        query = self.query_one("#query-input", Input).value
        try:
            params = self.knobs.params(query, self.backend.today())
        except KnobError as exc:
            self.knobs.blocking(exc.knob)  # say so where the knob is, too
            self._error(str(exc))
            self._shown_seq = seq
            return
        self.knobs.blocking(None)
        if not params.query.strip() and params.time_range is None:
            self._show(None)
            self._shown_seq = seq
            self._status("type a query")
            self.why_box.waiting("type a query: its verdict on this item shows here")
            return
        if self.index_building or self.backend.index is None:
            self._status(self._wait.note)
            self.why_box.waiting(self._wait.note)
            return
        self._status("searching…")
        self._retrieve(seq, params, self.pinned)

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
        self.table.focus()

    def action_toggle_focus(self) -> None:
        """Escape: from the query box or a knob to the results; from the results, nowhere.

        Escape means "leave" to a newcomer: sent back into the query box (text
        selected) from the results, the global keys typed next (``t``, ``h``)
        replaced the query. ``/`` goes back to the query box on purpose.
        """
        if not self.table.has_focus:
            self.table.focus()

    def on_query_knobs_changed(self, message: QueryKnobs.Changed) -> None:
        message.stop()
        self.run_query()

    def on_query_knobs_invalid(self, message: QueryKnobs.Invalid) -> None:
        """A knob's value stopped (or started) being used: the status line says which, until it is."""
        message.stop()
        self._status(self._said)

    def on_query_knobs_floor_changed(self, message: QueryKnobs.FloorChanged) -> None:
        message.stop()
        self.runner.adjust(self.backend, lambda index: index.set_cos_floor(message.floor), needs="set_cos_floor")
        self.run_query()

    def on_embed_status_changed(self, message: EmbedStatus.Changed) -> None:
        """Fusion became possible (or stopped being): the same query ranks differently. The App shows it too."""
        if self.last_result is not None and message.ready != self.last_result.embedding_used:
            self.run_query()

    def on_why_not_box_unpinned(self, message: WhyNotBox.Unpinned) -> None:
        message.stop()
        self.remove_class("-pinned")
        self.run_query()

    def on_query_knobs_fusion_changed(self, message: QueryKnobs.FusionChanged) -> None:
        message.stop()
        self.runner.adjust(self.backend, lambda index: setattr(index, "fusion_weight", message.weight))
        self.run_query()

    def on_query_knobs_tokenizer_changed(self, message: QueryKnobs.TokenizerChanged) -> None:
        message.stop()
        if message.use_jieba and not jieba_installed():
            self.notify(NO_JIEBA, severity="warning", markup=False)
            self.knobs.set_tokenizer(False)
            return
        self.set_index_building(True, rebuilding_note(message.use_jieba, message.analyzer))
        if message.use_jieba and message.analyzer is None:
            self.notify("loading jieba (about 1–2 s) and re-tokenizing the store…", markup=False)
        self._rebuild_index(message.use_jieba, message.analyzer)

    @work(thread=True, exclusive=True, group="query-index")
    def _rebuild_index(self, use_jieba: bool, analyzer: str | None = None) -> None:
        worker = get_current_worker()
        said = rebuild_and_swap(self.backend, self.runner, use_jieba, analyzer, lambda: worker.is_cancelled)
        if said is not None:
            self.post_message(self.IndexSwapped(*said))

    def on_query_panel_index_swapped(self, message: panel_messages.IndexSwapped) -> None:
        message.stop()
        self.notify(message.note, markup=False, severity="information" if message.ok else "error")
        self.knobs.set_tokenizer(self._use_jieba(), analyzer_name(self.backend.index))
        if self.index_building:
            self.set_index_building(False)

    # -- the worker and its results -----------------------------------------

    @work(thread=True, exclusive=True, group="query")
    def _retrieve(self, seq: int, params: QueryParams, pinned: tuple[str, str] | None) -> None:
        worker = get_current_worker()
        knobs = {"limit": params.limit, "budget_tokens": params.budget, "expand_links": params.expand_links,
                 "time_range": params.time_range, "search_diary": params.search_diary}
        try:
            with self.backend.activity.busy():  # the index warm-up waits meanwhile (core/activity)
                answer = self.runner.answer(self.backend, seq, params.query, knobs, pinned, lambda: worker.is_cancelled)
        except Exception as exc:  # never let a query take the app down
            self.post_message(self.Results(seq, None, 0.0, f"query failed: {exc!r}"))
            return
        if answer is not None:
            self.post_message(self.Results(seq, answer.result, answer.ms, why=answer.why))

    def on_query_panel_results(self, message: panel_messages.Results) -> None:
        message.stop()
        if message.seq != self.runner.seq:
            return  # a newer query is on its way
        self._shown_seq = message.seq
        if message.result is None:
            self._error(message.error)
            self.why_box.waiting(message.error)
            return
        self._show(message.result)
        if message.why is not None and self.pinned is not None:
            self.why_box.show_why(message.why)
        timing = f" · {message.ms:.1f} ms" if self.show_timing else ""
        self._status(hit_counts(message.result) + timing)

    def _show(self, result: RetrievalResult | None) -> None:
        self.last_result = result
        self.table.show(result)
        self._show_row()
        summary = self.query_one("#query-summary", Static)
        if result is None:
            summary.update(Text())
            return
        embed = self.embed_status  # there is one exactly when an embedder is configured
        note = embed.summary_note(result) if embed is not None else {}
        summary.update(Text("\n").join(summary_lines(result, **note)))

    @on(ResultsTable.Highlighted)
    def _show_row(self) -> None:
        self.query_one("#query-row", Static).update(self.table.row_detail())

    def action_copy_for_agent(self) -> None:
        """Copy what an agent would be handed for this query (hits and links within the budget)."""
        text, note = for_agent(self.last_result)
        if text is not None:
            self.app.copy_to_clipboard(text)
        self.notify(note, severity="information" if text is not None else "warning", markup=False)

    def _status(self, text: str, *, error: bool = False) -> None:
        """The status line: ``text``, then every knob whose value is not used (``QueryKnobs.ignored``)."""
        self._said = text
        ignored = list(self.knobs.ignored.values()) if self.query(QueryKnobs) else []
        status = self.query_one("#query-status", Static)
        status.set_class(error or bool(ignored), "-error")
        line = Text(text)
        for note in ignored:
            line.append(" · " if line else "").append(note, style="bold")
        status.update(line)

    def _error(self, text: str) -> None:
        self._status(text, error=True)
