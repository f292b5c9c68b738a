"""Showing things: an item, a RecallFile, a diary day, a pane; the helpers every flow uses.

Split from ``flows.py`` (which re-exports the public functions, so the App
still routes everything through ``flows``): navigation never writes, so
it needs none of the dialogs, and the write flows import it, not the other
way round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import ContentSwitcher, TabbedContent

from wikimem_tui.messages import StoreChange, StoreChanged
from wikimem_tui.safe import safe_line
from wikimem_tui.widgets.editor import ItemEditor
from wikimem_tui.widgets.item_view import ItemView
from wikimem_tui.widgets.topic_tree import TopicTree

if TYPE_CHECKING:
    from wikimem_tui.app import WikimemApp

__all__ = [
    "address", "blocked_by_draft", "item_editor", "item_view", "open_day", "open_file", "open_item",
    "post", "reshow", "show_pane", "switch",
]


def address(file: str, name: str, style: str = "bold") -> Text:
    return safe_line(f"{file}:{name}", style)


def item_view(app: WikimemApp) -> ItemView:
    return app.query_one(ItemView)


def item_editor(app: WikimemApp) -> ItemEditor:
    return app.query_one(ItemEditor)


def switch(app: WikimemApp, to: str) -> None:
    """Show the item view or editor; focus follows from another pane (the tree keeps it).

    Left where it was, the focus would fall back to a sibling in the pane
    being hidden (the query box, say) and the tabs would switch right back.
    """
    switcher = app.query_one("#item-switcher", ContentSwitcher)
    panes = app.query_one("#panes", TabbedContent)
    focused = app.focused
    switcher.current = to
    panes.active = "tab-item"
    if to == "item-view" and focused is not None and panes in focused.ancestors and switcher not in focused.ancestors:
        item_view(app).focus()


def post(app: WikimemApp, change: StoreChange) -> None:
    app.post_message(StoreChanged(change))


def show_pane(app: WikimemApp, pane: str) -> None:
    """Show ``pane`` and put the focus in it (the query box for ``query``)."""
    if pane == "tree":
        tree = app.query_one(TopicTree)
        tree.display = True
        tree.tree.focus()
        return
    app.query_one("#panes", TabbedContent).active = f"tab-{pane}"
    widget = app.query_one("#item-switcher" if pane == "item" else f"#{pane}-pane")
    # The query box for typing; the journal's rows, not its filters (keys then scroll and open).
    first = {"query": "#query-input", "journal": "#journal-view"}.get(pane, "*")
    targets = [w for w in widget.query(first) if w.focusable]
    if widget.focusable:
        widget.focus()
    elif targets:
        targets[0].focus()


def blocked_by_draft(app: WikimemApp) -> bool:
    if app.editing and item_editor(app).dirty:
        app.notify("unsaved edits: save (ctrl+s) or cancel (esc) first", severity="warning", markup=False)
        return True
    if app.editing:
        switch(app, "item-view")
    return False


def open_item(app: WikimemApp, file: str, name: str) -> None:
    """Show ``file:name`` in the item view and reveal it in the tree."""
    if blocked_by_draft(app):
        return
    item = app.backend.store.get(file, name)
    if item is None:
        item_view(app).show_missing(file, name)
    else:
        item_view(app).show_item(item, app.catalogue)
        app.query_one(TopicTree).reveal(item.file, item.name)
    switch(app, "item-view")


def open_file(app: WikimemApp, file: str) -> None:
    """Show a whole RecallFile."""
    if not blocked_by_draft(app):
        item_view(app).show_file(file, app.backend.store.items(file), app.catalogue)
        switch(app, "item-view")


def open_day(app: WikimemApp, date: str, time: str | None = None) -> None:
    """Show one diary day (``time`` highlighted)."""
    if blocked_by_draft(app):
        return
    try:
        entries = app.backend.diary.day(date)
    except ValueError:
        app.notify_error(f"not a diary date: {date}")
        return
    item_view(app).show_day(date, entries, app.catalogue, time)
    switch(app, "item-view")


def reshow(app: WikimemApp) -> None:
    """Re-read whatever the item view shows (after a store change)."""
    view = item_view(app)
    store = app.backend.store
    if not view.shown:
        return
    kind, *args = view.shown
    if kind == "item":
        item = store.get(args[0], args[1])
        if item is None:
            view.show_missing(args[0], args[1])
        else:
            view.show_item(item, app.catalogue, home=False)
    elif kind == "file":
        view.show_file(args[0], store.items(args[0]), app.catalogue)
    elif kind == "day":
        view.show_day(args[0], app.backend.diary.day(args[0]), app.catalogue, args[1] or None)
