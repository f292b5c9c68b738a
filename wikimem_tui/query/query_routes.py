"""What the App routes to and from the query pane: the index build's progress, the embeddings' state.

Each reaches past the pane (the status line) and is reached from the
App's progress callback, keymap or messages, which only hand over to
these; the App passes what it owns (its status line's redraw) in, so this
stays in the pane's layer. Pinning an item (why not) stays on the App: it
reads the tree's and the item view's items.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App

from wikimem_tui.common.status_line import StatusLine
from wikimem_tui.query.embed import EmbedStatus
from wikimem_tui.query.query_panel import QueryPanel

__all__ = ["embed_changed", "embeddings", "index_progress"]


def index_progress(app: App[Any], status: Callable[[str], None], pct: int, done: int, total: int) -> None:
    """The index build's progress: on the status line (``status``), and in the query pane (a query may be waiting)."""
    status(f"index: building {pct}% ({done}/{total} files)")
    for panel in app.query(QueryPanel):
        panel.index_progress(done, total)


def embeddings(app: App[Any]) -> None:
    """Pause the running vector sync, or show what embedding costs and offer to start."""
    embed = app.query_one(QueryPanel).embed_status
    if embed is None:
        app.notify("embeddings are off: start with --embed local (offline) or --embed URL", markup=False)
        return
    embed.toggle()


def embed_changed(app: App[Any], status: Callable[[], None], message: EmbedStatus.Changed) -> None:
    """The vector sync's state, on the status line (``status`` redraws it)."""
    for line in app.query(StatusLine):
        line.embed_note = message.text
    status()
