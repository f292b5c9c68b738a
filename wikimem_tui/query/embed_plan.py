"""Before embeddings start: what they will cost, and the choice to start now or stay on BM25.

Embedding a store takes minutes to hours with a local model and costs money
with an endpoint, so the app never starts a large sync unasked. This dialog
shows the plan (``wikimem.vectors.SyncPlan``: items to embed, rows reused
from the cache, the estimated time) and returns True (start now) or False
(BM25 only for now). Both are safe: a sync can be paused at any time, keeps
what it embedded, and the next one resumes.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from wikimem_tui.common.dialog import Dialog
from wikimem_tui.common.safe import safe_line

__all__ = ["EmbedPlanScreen", "cost_line"]


def cost_line(plan: Any) -> str:
    """``"9,500 items to embed (500 reused), about 40 min"`` (time unknown for an endpoint)."""
    from wikimem.vectors import format_duration  # the embedding extra: present whenever there is a plan

    noun = "item" if plan.to_embed == 1 else "items"
    line = f"{plan.to_embed:,} {noun} to embed ({plan.reused:,} reused)"
    if plan.est_seconds is None:
        return line + f", time unknown ({plan.chars:,} characters to send; an endpoint is not timed for free)"
    return line + f", about {format_duration(plan.est_seconds)}"


class EmbedPlanScreen(Dialog[bool]):
    """Show the cost of embedding; dismiss True to start now, False for BM25 only for now."""

    DEFAULT_CSS = """
    EmbedPlanScreen { align: center middle; }
    EmbedPlanScreen > Vertical {
        width: 76; max-width: 95%; height: auto; border: thick $primary; background: $surface; padding: 1 2;
    }
    EmbedPlanScreen #embed-cost { text-style: bold; margin: 1 0; }
    EmbedPlanScreen Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
    EmbedPlanScreen Button { margin-left: 1; }
    """

    BINDINGS = [
        Binding("s", "answer(True)", "Start now", id="embed.start"),
        Binding("b,escape", "answer(False)", "BM25 only for now", id="embed.later"),
    ]

    def __init__(self, plan: Any, *, model: str, persist: bool) -> None:
        super().__init__()
        self.plan = plan
        """The ``SyncPlan`` shown."""
        self.model = model
        self.persist = persist

    def compose(self) -> ComposeResult:
        plan = self.plan
        notes = [Text("Until they are embedded, queries rank with BM25 only. E pauses the embedding at any "
                      "time; what is embedded is kept and the next run resumes from there.")]
        if not self.persist:
            notes.append(Text("Read-only: the vectors are kept in memory only (nothing is written to the memory "
                              "directory), so the next start embeds them again.", style="yellow"))
        if plan.mismatch:
            notes.append(safe_line(f"The cache on disk was built by another model ({plan.mismatch}); starting "
                                   "re-embeds every item and replaces it.", "yellow"))
        with Vertical():
            yield Static(safe_line(f"Embeddings: {self.model}", "bold"))
            yield Static(Text(cost_line(plan)), id="embed-cost")
            yield Static(Text("\n\n").join(notes))
            with Horizontal():
                yield Button("Start now (s)", id="start", variant="primary")
                yield Button("BM25 only for now (b)", id="later")

    def on_mount(self) -> None:
        self.query_one("#start", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "start")

    def action_answer(self, start: bool) -> None:
        """Start now (True) or stay on BM25 for now (False)."""
        self.dismiss(start)
