"""Why (not) recalled: one pinned item's fate under the query pane's current query and knobs.

The diagnosis is ``MemoryIndex.why_not`` -- the very pipeline run whose
result the table shows (the panel asks ``why_not`` instead of ``retrieve``
while an item is pinned and shows ``why.result``), so the verdict can never
disagree with the rows above it. The words are ``wikimem.explain``'s
``why_not_lines``, the ones ``wikimem explain --why`` prints; this widget
only colours the verdict by stage and adds its own two hints (how to pin
another item and how to unpin). The item's name is memory text: drawn as
``Text`` with control characters made visible.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static

from wikimem import WhyNot, why_not_lines
from wikimem_tui.common.safe import safe_line

__all__ = ["STAGE_STYLES", "STAGE_WORDS", "WhyNotBox"]

#: The verdict line's colour by stage: recalled green, near misses yellow, the rest red.
STAGE_STYLES = {
    "recalled": "bold green",
    "deduplicated": "bold green",
    "limit": "bold yellow",
    "budget": "bold yellow",
    "floor": "bold yellow",
    "time_gate": "bold red",
    "not_candidate": "bold red",
    "missing": "bold red",
}

#: The verdict in words: the library's stage names are identifiers (``not_candidate``), not sentences.
STAGE_WORDS = {
    "recalled": "recalled",
    "deduplicated": "recalled, in its link place",
    "limit": "cut by the limit",
    "budget": "cut by the token budget",
    "floor": "below the relevance floor",
    "time_gate": "outside the time window",
    "not_candidate": "not a candidate",
    "missing": "no such item",
}


class WhyNotBox(Static, can_focus=True):
    """The pinned item's verdict and evidence; hidden while nothing is pinned."""

    HELP_TITLE = "Why (not) recalled"

    BINDINGS = [
        Binding("x,delete", "unpin", "Unpin", id="query.unpin"),
    ]

    DEFAULT_CSS = """
    WhyNotBox { height: auto; max-height: 9; border: round $accent; padding: 0 1; display: none; }
    WhyNotBox.-pinned { display: block; }
    WhyNotBox:focus { border: round $accent-lighten-2; }
    """

    class Unpinned(Message):
        """The user let go of the pinned item."""

    class PickRequested(Message):
        """The user wants to pin another item (the App owns the picker: it has the names)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.pinned: tuple[str, str] | None = None
        """The ``(file, name)`` pinned (a diary entry: ``(day, HH:MM)``), or None."""
        self.why: WhyNot | None = None
        """The last diagnosis shown (None while waiting for the first, or with no query)."""

    def pin(self, file: str, name: str) -> None:
        """Pin ``file:name``: shown at once, its verdict once the next query run answers."""
        self.pinned, self.why = (file, name), None
        self.add_class("-pinned")
        self._draw("finding out…")

    def unpin(self) -> None:
        """Forget the pinned item and hide."""
        self.pinned, self.why = None, None
        self.remove_class("-pinned")
        self.update(Text())

    def show_why(self, why: WhyNot) -> None:
        """The diagnosis of the pinned item for the query just run."""
        self.why = why
        self._draw()

    def waiting(self, note: str) -> None:
        """No verdict for now (no query yet, the index is building, a knob is bad): say why."""
        self.why = None
        self._draw(note)

    def _draw(self, note: str | None = None) -> None:
        if self.pinned is None:
            return
        title = Text("why (not) recalled  ", style="bold")
        title.append_text(safe_line(f"{self.pinned[0]}:{self.pinned[1]}"))
        title.append("    ")
        title.append("w: pin another", style=Style(dim=True, meta={"@click": "pick"}))
        title.append(" · ", style=Style(dim=True))
        title.append("x: unpin", style=Style(dim=True, meta={"@click": "unpin"}))
        lines = [title]
        if self.why is None:
            lines.append(Text(note or "", style="dim italic"))
        else:
            for line in why_not_lines(self.why)[1:]:  # the item line is the title
                style = ""
                if line.startswith("verdict:"):
                    stage = self.why.stage
                    style = STAGE_STYLES.get(stage, "")
                    line = f"verdict: {STAGE_WORDS.get(stage, stage.replace('_', ' '))} — {self.why.reason}"
                lines.append(safe_line(line, style))
        self.update(Text("\n").join(lines))

    def action_unpin(self) -> None:
        """Let go of the pinned item."""
        self.unpin()
        self.post_message(self.Unpinned())

    def action_pick(self) -> None:
        """Pin another item (by name, in the App's picker)."""
        self.post_message(self.PickRequested())
