"""The status line under the panes: which memory, the index's state, whose writes, read-only, embeddings.

A widget of its own so the line's parts live in one place: the App hands
it a note (the index build's progress, a failure) and the readiness it
read from the store sync; what the embedding sync last said is kept here.
Names come from the memory directory and the owner flag, so every part is
drawn with its hidden characters made visible.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from wikimem_tui.common.safe import clean_line
from wikimem_tui.core.backend import Backend

__all__ = ["StatusLine"]


class StatusLine(Static):
    """One line: memory dir, index state, owner, embeddings, read-only."""

    def __init__(self, backend: Backend, *, tag: str | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.backend = backend
        """The memory shown: its directory, owner, embedder label and read-only flag."""
        self.tag = tag
        """What the memory is, after its name ("demo copy"): the start-up notice's lasting form."""
        self.embed_note: str | None = None
        """What the embedding sync says now (``EmbedStatus.Changed``), shown after the model."""

    def show(self, note: str | None = None, *, index_ready: bool) -> None:
        """Redraw: ``note`` in the index's place when given, else whether the index is ready."""
        b = self.backend
        text = Text()
        text.append(" wikimem ", style="reverse")
        text.append(f" {clean_line(b.root.name)}")
        if self.tag:
            text.append(f" ({clean_line(self.tag)})", style="italic")
        text.append(" │ ", style="dim")
        text.append(note or ("index ready" if index_ready else "index: building…"), style="bold")
        # Each part after a visible separator: read as plain text (a screen reader, a copied SVG), parts
        # joined by spaces alone ran together ("index readyowner tui:demo").
        text.append(" │ ", style="dim")
        text.append(f"owner {clean_line(b.owner)}", style="dim")
        if b.embed_label:
            embed = f"{b.embed_label} · {self.embed_note}" if self.embed_note else b.embed_label
            text.append(" │ ", style="dim")
            text.append(f"embed {clean_line(embed)}", style="dim")
        if b.read_only:
            text.append(" │ ", style="dim")
            text.append("READ-ONLY", style="bold red")
        self.update(text)
