"""What the App routes to and from the query pane: build progress, pinning an item (why not), embeddings.

Functions of the App rather than of the pane: each reads or moves
something outside it (the status line, the tree's or the item view's
item, the pin picker's screen, the tabs), and the App's methods that the
keymap and the messages reach only hand over to them. Kept out of
``app.py`` so that file stays the App's layout and its routing table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wikimem_tui.common.status_line import StatusLine
from wikimem_tui.query.embed import EmbedStatus
from wikimem_tui.query.pin_picker import PinPicker, pin_for
from wikimem_tui.query.query_panel import QueryPanel
from wikimem_tui.tree.topic_tree import TopicTree

if TYPE_CHECKING:
    from wikimem_tui.app import WikimemApp

__all__ = ["embed_changed", "embeddings", "index_progress", "why_not"]


def index_progress(app: WikimemApp, pct: int, done: int, total: int) -> None:
    """The index build's progress: on the status line, and in the query pane (a query may be waiting)."""
    app.update_status(f"index: building {pct}% ({done}/{total} files)")
    for panel in app.query(QueryPanel):
        panel.index_progress(done, total)


async def why_not(app: WikimemApp) -> None:
    """Pin an item in the query pane: the tree's or the item view's, else one picked by name."""
    panel = app.query_one(QueryPanel)
    tree, area = app.query_one(TopicTree), app.item_area
    node, shown = tree.node_tree.cursor_node, area.view.item
    tree_item = (node.data.file, node.data.name) if node and node.data and node.data.kind == "item" else None
    key = pin_for(app.focused, tree, tree_item, area, (shown.file, shown.name) if shown else None)
    if key is None and app.catalogue is None:
        app.notify("still reading the store…", severity="warning", markup=False)
        return
    if key is None and app.catalogue is not None:
        picker = PinPicker(app.catalogue.all_items(), suggested=panel.suggested_pin(), cursor_blink=app.cursor_blink)
        key = await app.push_screen_wait(picker)
    if key is not None:
        panel.pin(*key)
        app.action_pane("query")


def embeddings(app: WikimemApp) -> None:
    """Pause the running vector sync, or show what embedding costs and offer to start."""
    embed = app.query_one(QueryPanel).embed_status
    if embed is None:
        app.notify("embeddings are off: start with --embed local (offline) or --embed URL", markup=False)
        return
    embed.toggle()


def embed_changed(app: WikimemApp, message: EmbedStatus.Changed) -> None:
    """The vector sync's state, on the status line."""
    for status in app.query(StatusLine):
        status.embed_note = message.text
    app.update_status()
