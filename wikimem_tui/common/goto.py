"""Go to an item by typing a few letters of its file and name (``g``).

Fuzzy means subsequence: "prfcof" finds ``preferences:coffee``. Scoring
favours contiguous runs and matches at word starts; ranking runs in a thread
worker (exclusive, so a newer keystroke supersedes an older search) and only
the best ``LIMIT`` rows are shown, so 100k candidates never block typing.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from rich.text import Text

from wikimem_tui.common.dialog import Dialog
from wikimem_tui.common.fit_input import FitInput
from wikimem_tui.common.safe import safe_line

__all__ = ["GoToScreen", "fuzzy_score"]

LIMIT = 100


def rank(query: str, items: list[tuple[str, str]], limit: int = LIMIT) -> tuple[list[tuple[str, str]], int]:
    """The best ``limit`` items for ``query`` (best first) and how many matched at all."""
    query = query.strip().casefold()
    scored: list[tuple[int, int, tuple[str, str]]] = []
    for order, (file, name) in enumerate(items):
        score = fuzzy_score(query, f"{file}:{name}")
        if score is not None:
            scored.append((-score, order, (file, name)))
    scored.sort()
    return [key for _, _, key in scored[:limit]], len(scored)


def fuzzy_score(query: str, candidate: str) -> int | None:
    """Higher is better; None when ``query`` is not a subsequence of ``candidate``."""
    if not query:
        return 0
    hay = candidate.casefold()
    if query in hay:
        return 1000 - hay.index(query) - len(hay) // 10
    score = 0
    pos = 0
    prev = -2
    for char in query:
        found = hay.find(char, pos)
        if found < 0:
            return None
        score += 5 if found == prev + 1 else 0
        score += 3 if found == 0 or hay[found - 1] in " :_-" else 0
        score -= min(found - pos, 5)
        prev, pos = found, found + 1
    return score


class GoToScreen(Dialog[tuple[str, str] | None]):
    """Pick one ``(file, name)`` out of ``items``."""

    DEFAULT_CSS = """
    GoToScreen { align: center top; }
    GoToScreen > Vertical { width: 80; max-width: 95%; height: 70%; margin-top: 2; border: thick $primary; background: $surface; }
    GoToScreen OptionList { height: 1fr; border: none; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="goto.cancel"),
        Binding("down", "move(1)", "Down", show=False, id="goto.down"),
        Binding("up", "move(-1)", "Up", show=False, id="goto.up"),
    ]

    def __init__(self, items: list[tuple[str, str]], *, cursor_blink: bool = True) -> None:
        super().__init__()
        self.items = items
        self.shown: list[tuple[str, str]] = []
        """The rows currently listed, best first."""
        self._shown_for = ""
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        with Vertical():
            box = FitInput(placeholder="go to item… (fuzzy: file and name)", id="goto-input")
            box.cursor_blink = self._cursor_blink
            yield box
            yield OptionList(id="goto-list")

    def on_mount(self) -> None:
        self._show(self.items[:LIMIT], len(self.items), "")
        self.query_one(Input).focus()

    @work(thread=True, exclusive=True, group="goto")
    def _search(self, query: str) -> None:
        """Rank off the UI thread: 100k candidates take a few hundred ms in Python."""
        shown, total = rank(query, self.items)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, shown, total, query)

    def _show(self, shown: list[tuple[str, str]], total: int, query: str) -> None:
        self.shown = shown
        self._shown_for = query
        options = self.query_one(OptionList)
        options.clear_options()
        for file, name in self.shown:
            label = safe_line(file, "dim")
            label.append(":", style="dim")
            label.append_text(safe_line(name))
            options.add_option(Option(label))
        if total > len(shown):
            options.add_option(Option(Text(f"… {total - len(shown)} more, keep typing", style="italic dim"), disabled=True))
        if self.shown:
            options.highlighted = 0

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._search(event.value)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value != self._shown_for:  # enter before the search caught up: rank now
            best, _ = rank(event.value, self.items, 1)
            if best:
                self.dismiss(best[0])
            return
        index = self.query_one(OptionList).highlighted
        if index is not None and index < len(self.shown):
            self.dismiss(self.shown[index])

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_index < len(self.shown):
            self.dismiss(self.shown[event.option_index])

    def action_move(self, delta: int) -> None:
        """Move the highlight while typing."""
        options = self.query_one(OptionList)
        if delta > 0:
            options.action_cursor_down()
        else:
            options.action_cursor_up()

    def action_cancel(self) -> None:
        """Close without going anywhere."""
        self.dismiss(None)
