"""The topic tree's filter box: the input, its status line and the content scan.

Names are matched by the tree itself (from the catalogue, cheap); this widget
debounces typing, runs the content scan in a thread worker after a longer
pause (``tree_search.ContentSearch`` reads the files), and reports both as
messages, so the tree only ever reacts to a settled filter. The status line
says what the filter found — "3 names · 2 in content",
"searching content… 40%", "no matches for 'x'" — so an empty tree is
never left unexplained.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from wikimem import MemoryStore
from wikimem_tui.common.fit_input import FitInput
from wikimem_tui.tree.tree_search import ContentHits, ContentSearch
from wikimem_tui.core.words import count

__all__ = ["FilterBox", "FilterInput"]

#: Seconds of typing pause before the names filter applies, and before the content scan starts.
NAME_DELAY, CONTENT_DELAY = 0.12, 0.35


class FilterInput(FitInput):
    """The filter's text box: up/down move the tree's cursor instead of scrolling the box."""

    HELP_TITLE = "Tree filter"

    BINDINGS = [
        Binding("down", "move(1)", "Next match", id="tree.next-match", show=False),
        Binding("up", "move(-1)", "Previous match", id="tree.previous-match", show=False),
    ]

    def action_move(self, delta: int) -> None:
        """Ask the tree to move its cursor ``delta`` nodes (the match enter would open)."""
        self.post_message(FilterBox.Move(delta))


class FilterBox(Vertical):
    """Filter input plus one status line; posts ``Changed`` and ``ContentFound``."""

    DEFAULT_CSS = """
    FilterBox { height: auto; }
    FilterBox > Input { height: 3; }
    FilterBox > #tree-filter-status { height: 1; color: $text-muted; padding: 0 1; display: none; }
    FilterBox.-active > #tree-filter-status { display: block; }
    """

    class Changed(Message):
        """The filter settled on ``text`` (casefolded, stripped; "" = no filter)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class ContentFound(Message):
        """The content scan for ``hits.text`` finished."""

        def __init__(self, hits: ContentHits) -> None:
            super().__init__()
            self.hits = hits

    class Submitted(Message):
        """Enter in the box (after the filter was applied)."""

    class Move(Message):
        """Up/down in the box: move the tree's cursor by ``delta``."""

        def __init__(self, delta: int) -> None:
            super().__init__()
            self.delta = delta

    def __init__(self, store: MemoryStore, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = ""
        """The filter in force."""
        self._store = store
        self._search: ContentSearch | None = None
        self._name_timer: Timer | None = None
        self._content_timer: Timer | None = None
        self._found: tuple[int, ContentHits | None, bool] = (0, None, False)

    def compose(self) -> ComposeResult:
        yield FilterInput(placeholder="f: filter names, content", select_on_focus=False, id="tree-filter")
        yield Static(id="tree-filter-status", markup=False)

    @property
    def input(self) -> Input:
        """The text box."""
        return self.query_one(Input)

    def type(self, character: str) -> None:
        """Focus the box and add ``character`` at its cursor (type-to-filter from the tree).

        The rest of a burst of keys waits in the App's key gate until the
        box has the focus (``common/key_gate``), so it is typed there, not run as
        the tree's commands.
        """
        self.input.focus()
        self.input.insert_text_at_cursor(character)

    def clear(self) -> None:
        """Empty the box and drop the filter now (no debounce)."""
        self._stop_timers()
        self.input.value = ""
        self._settle("")

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        value = event.value.strip().casefold()
        self._stop_timers()
        self._name_timer = self.set_timer(NAME_DELAY, lambda: self._settle(value))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._name_timer is not None:
            self._stop_timers()
            self._settle(event.value.strip().casefold())
        self.post_message(self.Submitted())

    def _stop_timers(self) -> None:
        for timer in (self._name_timer, self._content_timer):
            if timer is not None:
                timer.stop()
        self._name_timer = self._content_timer = None

    def _settle(self, value: str) -> None:
        self._name_timer = None
        self.text = value
        self.set_class(bool(value), "-active")
        self.workers.cancel_group(self, "tree-content")
        self.post_message(self.Changed(value))

    # -- content ----------------------------------------------------------------

    def search_content(self, files: Iterable[str], dates: Iterable[str], *, delay: float = CONTENT_DELAY) -> None:
        """Scan ``files`` and diary ``dates`` for the current filter after ``delay`` seconds."""
        if self._content_timer is not None:
            self._content_timer.stop()
        value, files, dates = self.text, list(files), list(dates)
        if value:
            self._content_timer = self.set_timer(delay, lambda: self._scan(value, files, dates))

    @work(thread=True, exclusive=True, group="tree-content", exit_on_error=False)
    def _scan(self, value: str, files: list[str], dates: list[str]) -> None:
        """Read item and diary text in a thread; one message at the end, progress every 10%."""
        worker = get_current_worker()
        if self._search is None:
            self._search = ContentSearch(self._store)
        shown = [-1]

        def progress(done: int, total: int) -> None:
            tenth = 10 * done // max(total, 1)
            if tenth != shown[0]:
                shown[0] = tenth
                self.app.call_from_thread(self._progress, value, 10 * tenth)

        hits = self._search.scan(value, files, dates, should_stop=lambda: worker.is_cancelled, progress=progress)
        if hits.complete and not worker.is_cancelled:
            self.post_message(self.ContentFound(hits))

    def _progress(self, value: str, pct: int) -> None:
        if value == self.text and pct < 100:
            self._render_status(f"searching content… {pct}%")

    # -- status -----------------------------------------------------------------

    def show_status(self, names: int, hits: ContentHits | None, empty: bool) -> None:
        """What the filter found: names now, content when the scan is done."""
        self._found = (names, hits, empty)
        self._render_status()

    def _render_status(self, scanning: str = "searching content…") -> None:
        names, hits, empty = self._found
        status = self.query_one("#tree-filter-status", Static)
        if not self.text:
            status.update("")
        elif empty and hits is not None:
            status.update(Text(f"no matches for {self.text!r}"))
        else:
            text = Text(f"{count(names, 'name')} · ")
            text.append(scanning if hits is None else f"{hits.count()} in content", style="italic")
            status.update(text)
