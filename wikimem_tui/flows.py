"""User flows that span widgets and screens: open, edit, save, rename, delete…

Kept out of ``app.py`` so the App stays a router. Every function takes the
app and does one user-level thing; writes go through ``Backend`` (which goes
through the public store API with the app's owner) and end with a
``StoreChanged(external=False)`` so every view refreshes the same way a
change by another process would. Showing things (open item/file/day, panes)
lives in ``flows_open`` and is re-exported here: the App calls ``flows.*``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import TabbedContent

from wikimem import DiaryItem, RecallItem
from wikimem_tui.flows_open import address as _address
from wikimem_tui.flows_open import blocked_by_draft as _blocked_by_draft
from wikimem_tui.flows_open import item_editor as _editor
from wikimem_tui.flows_open import item_view as _view
from wikimem_tui.flows_open import open_day, open_file, open_item, reshow, show_pane
from wikimem_tui.flows_open import post as _post
from wikimem_tui.flows_open import switch as _switch
from wikimem_tui.messages import StoreChange
from wikimem_tui.screens.confirm import ConfirmScreen
from wikimem_tui.screens.conflict import ConflictChoice, ConflictScreen
from wikimem_tui.screens.dialogs import move_form, new_file_form, new_item_form, rename_form
from wikimem_tui.screens.goto import GoToScreen
from wikimem_tui.widgets.editor import ItemEditor

if TYPE_CHECKING:
    from wikimem_tui.app import WikimemApp

__all__ = [
    "append_diary", "cancel_edit", "check_conflict", "confirm_quit", "delete", "edit",
    "external_editor", "goto", "move", "new_item", "open_day", "open_file", "open_item", "promote",
    "rename", "reshow", "saved", "show_conflict", "show_pane",
]


# -- editing --------------------------------------------------------------------


def edit(app: WikimemApp) -> None:
    """Open the editor on the item shown."""
    view = _view(app)
    if app.editing:
        _editor(app).area.focus()
        return
    if view.current is None:
        app.notify("open an item first (t tree, g go to)", markup=False)
        return
    item = app.backend.store.get(*view.current)
    if item is None:
        app.notify_error("this item no longer exists")
        return
    _switch(app, "item-editor")
    _editor(app).load(item.file, item.name, item.content)


def _close_editor(app: WikimemApp) -> None:
    _switch(app, "item-view")
    reshow(app)
    _view(app).focus()


def _draft_question(question: str, editor: ItemEditor) -> Text:
    return Text(question).append_text(_address(editor.file, editor.item_name)).append("?")


def cancel_edit(app: WikimemApp) -> None:
    """Leave the editor; ask first when the draft has changes."""
    if not app.editing:
        return
    editor = _editor(app)
    if not editor.dirty:
        _close_editor(app)
        return
    message = _draft_question("Discard unsaved edits to ", editor)

    def answered(discard: bool | None) -> None:
        if discard:
            _close_editor(app)

    app.push_screen(ConfirmScreen(message, yes="Discard"), answered)


def confirm_quit(app: WikimemApp) -> None:
    """Quit only after the user agrees to drop the draft."""
    message = _draft_question("Quit and discard unsaved edits to ", _editor(app))
    app.push_screen(ConfirmScreen(message, yes="Quit"), lambda yes: yes and app.exit())


def saved(app: WikimemApp, item: RecallItem) -> None:
    """After the editor wrote ``item``: record, refresh, show it."""
    _post(app, app.backend.note_write([item.file]))
    _switch(app, "item-view")
    _view(app).show_item(item, app.catalogue)
    _view(app).focus()  # the editor is gone: keys go back to the item, not the filter
    app.notify(f"saved {item.file}:{item.name}", markup=False)


def check_conflict(app: WikimemApp, change: StoreChange) -> None:
    """The file being edited changed on disk: reload a clean draft, or ask."""
    editor = _editor(app)
    if not app.editing or editor.file not in change.wiki_files:
        return
    disk = app.backend.store.get(editor.file, editor.item_name)
    disk_content = disk.content if disk is not None else None
    if disk_content == editor.base:
        return
    if not editor.dirty:
        editor.take(disk_content)
        app.notify("reloaded the item from disk (you had no edits)", markup=False)
        return
    show_conflict(app, editor.file, editor.item_name, editor.text, disk)


def show_conflict(app: WikimemApp, file: str, name: str, mine: str, disk: RecallItem | None) -> None:
    """Both versions side by side; apply the user's choice."""
    if isinstance(app.screen, ConflictScreen):
        return
    editor = _editor(app)

    def chosen(choice: ConflictChoice | None) -> None:
        if choice is None:
            return
        current = app.backend.store.get(file, name)
        editor.base = current.content if current is not None else None
        if choice.action == "disk":
            editor.take(editor.base)
            _close_editor(app)
            return
        editor.area.load_text(choice.text or "")
        editor.save(force=True)

    screen = ConflictScreen(file, name, mine, disk.content if disk else None, cursor_blink=app.cursor_blink)
    app.push_screen(screen, chosen)


def new_item(app: WikimemApp, *, new_file: bool = False) -> None:
    """Ask for an address, then open the editor on an empty draft."""
    store = app.backend.store
    files = store.files()
    current = _view(app).current
    form = new_file_form() if new_file else new_item_form(files, current[0] if current else None)

    def got(values: dict[str, str] | None) -> None:
        if values is None or _blocked_by_draft(app):
            return
        file, name = values["file"], values["name"]
        if new_file and file in files:
            app.notify_error(f"RecallFile {file} already exists")
        elif store.get(file, name) is not None:
            app.notify_error(f"{file}:{name} already exists")
        else:
            _switch(app, "item-editor")
            _editor(app).load(file, name, None)

    app.push_screen(form, got)


# -- rename, move, delete -------------------------------------------------------------


def _relocate(app: WikimemApp, new_file: str | None, new_name: str | None) -> None:
    """Move/rename the open item; when others link to it, offer to rewrite their links."""
    file, name = _view(app).current or ("", "")
    target = (new_file or file, new_name or name)
    backlinks = app.catalogue.backlinks_of(file, name) if app.catalogue else []
    if not backlinks:
        app.call_later(_apply_relocate, app, (file, name), target, False)
        return
    message = Text(f"{len(backlinks)} item(s) link to ")
    message.append_text(_address(file, name))
    message.append(". Rewrite those links to ")
    message.append_text(_address(*target))
    message.append("?")

    def answered(rewrite: bool | None) -> Awaitable[None] | None:
        if rewrite is None:  # escape: no move at all
            return None
        return _apply_relocate(app, (file, name), target, rewrite)

    app.push_screen(ConfirmScreen(message, yes="Rewrite links", no="Keep links"), answered)


async def _apply_relocate(app: WikimemApp, old: tuple[str, str], target: tuple[str, str], rewrite: bool) -> None:
    # In a thread: rewriting links re-reads every RecallFile, seconds on a 100k store.
    try:
        change = await asyncio.to_thread(app.backend.relocate, *old, *target, rewrite_links=rewrite)
    except (ValueError, PermissionError) as exc:
        app.notify_error(f"not changed: {exc}")
        return
    _post(app, change)
    app.notify(f"{old[0]}:{old[1]} → {target[0]}:{target[1]}" + (" (links rewritten)" if rewrite else ""),
               markup=False)
    open_item(app, *target)


def _need_item(app: WikimemApp) -> tuple[str, str] | None:
    if app.editing:
        app.notify("finish editing first (ctrl+s or esc)", markup=False)
        return None
    current = _view(app).current
    if current is None or app.backend.store.get(*current) is None:
        app.notify("open an item first (t tree, g go to)", markup=False)
        return None
    return current


def rename(app: WikimemApp) -> None:
    """Ask for a new name; add under it, remove the old, offer a link rewrite."""
    current = _need_item(app)
    if current is not None:
        app.push_screen(rename_form(*current), lambda v: v and _relocate(app, None, v["name"]))


def move(app: WikimemApp) -> None:
    """Ask for another RecallFile; add there, remove here, offer a link rewrite."""
    current = _need_item(app)
    if current is not None:
        form = move_form(*current, app.backend.store.files())
        app.push_screen(form, lambda v: v and _relocate(app, v["file"], None))


def delete(app: WikimemApp) -> None:
    """Ask, then remove the item shown."""
    current = _need_item(app)
    if current is None:
        return
    message = Text("Delete ")
    message.append_text(_address(*current))
    message.append("? The journal keeps a record, the content is gone.")

    def answered(yes: bool | None) -> None:
        if not yes:
            return
        try:
            _post(app, app.backend.delete(*current))
        except (ValueError, PermissionError) as exc:
            app.notify_error(f"not deleted: {exc}")
            return
        _view(app).show_empty(f"Deleted {current[0]}:{current[1]}.")
        app.notify(f"deleted {current[0]}:{current[1]}", markup=False)

    app.push_screen(ConfirmScreen(message), answered)


# -- diary, go to, $EDITOR ---------------------------------------------------------------


def append_diary(app: WikimemApp) -> None:
    """Open the append dialog for the day in view (calendar or item view), else today."""
    from wikimem_tui.screens.diary_append import DiaryAppendScreen

    active, shown = app.query_one("#panes", TabbedContent).active, _view(app).shown
    date = getattr(app.query_one("#calendar-pane"), "selected_date", None) if active == "tab-calendar" else None
    if active == "tab-item" and not app.editing and shown and shown[0] == "day":
        date = shown[1]

    def appended(entry: DiaryItem | None) -> None:
        if entry is not None:
            _post(app, app.backend.note_write(diary_dates=[entry.date]))
            app.notify(f"appended diary {entry.date} {entry.time}", markup=False)

    app.push_screen(DiaryAppendScreen(date), appended)


def promote(app: WikimemApp) -> None:
    """Diary day shown → pick entries → a new or extended wiki item with evidence lines."""
    from wikimem_tui.screens.promote import PromoteScreen

    shown = _view(app).shown
    if not shown or shown[0] != "day":
        app.notify("open a diary day first (tree: diary, or the calendar)", markup=False)
        return
    date, time = shown[1], shown[2] or None

    def promoted(result: tuple[StoreChange, str, str] | None) -> None:
        if result is not None:
            change, file, name = result
            _post(app, change)
            app.notify(f"promoted to {file}:{name} (the journal lists the diary entries)", markup=False)
            open_item(app, file, name)

    app.push_screen(PromoteScreen(date, app.backend.diary.day(date), time), promoted)


def goto(app: WikimemApp) -> None:
    """Fuzzy-find any item and open it."""
    if app.catalogue is None:
        app.notify("still reading the store…", markup=False)
        return
    screen = GoToScreen(app.catalogue.all_items(), cursor_blink=app.cursor_blink)
    app.push_screen(screen, lambda key: key and open_item(app, *key))


def external_editor(app: WikimemApp) -> None:
    """Hand the draft (or the open item) to $VISUAL/$EDITOR; what comes back is saved by the editor."""
    editor = _editor(app)
    if not app.editing:
        current = _view(app).current
        item = app.backend.store.get(*current) if current else None
        if item is None:
            app.notify("open an item first (t tree, g go to)", markup=False)
            return
        _switch(app, "item-editor")
        editor.load(item.file, item.name, item.content)
    if not editor.run_external(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi") and not editor.dirty:
        _close_editor(app)
