"""The item area's write flows: new, rename, move, delete, promote, and copy.

Apart from ``item_area.py`` (which shows, navigates and edits) by concept:
these are the multi-step flows that end in one write. Each is a function
of the area it runs on, started as the area's worker (``item_flow``), that
awaits its dialog (``push_screen_wait``) and writes through the injected
``Backend`` with the content as it was shown (``expected``), so an item
changed by another process since is never overwritten: nothing is written
and the user is told (:func:`refused`): so is a write the store refuses
because it would lose data (``LossyWriteError``), and one a full disk
stopped (``OSError``; nothing landed). The flows use the area's public
face only and keep no state of their own.
"""

from __future__ import annotations

from functools import partial
from typing import Literal

from rich.text import Text
from textual.worker import WorkerFailed

from wikimem import ConflictError, LossyWriteError, RecallItem, WikiLink
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.common.dialogs import move_form, new_file_form, new_item_form, rename_form
from wikimem_tui.core.backend import ReadOnlyError
from wikimem_tui.item.item_area import ItemArea, item_flow
from wikimem_tui.item.item_view import address, diary_label
from wikimem_tui.queue.promote import PromoteScreen

__all__ = ["copy", "delete", "move", "new_item", "promote", "refused", "rename"]


def _items_link(count: int) -> str:
    return "1 item links" if count == 1 else f"{count} items link"


def _diary_dangles(count: int, *, also: bool) -> str:
    """The sentence every diary backlink list carries: those links are not rewritten."""
    who = "1 diary entry links" if count == 1 else f"{count} diary entries link"
    return (f"{who} to it{' too' if also else ''}; the diary is append-only, so "
            f"{'its link is' if count == 1 else 'their links are'} never rewritten and will dangle.")


def _shown_item(area: ItemArea) -> RecallItem | None:
    """The item in the view, as read (None, with a hint, when there is none or the editor is open)."""
    if area.editing:
        area.notify("finish editing first (ctrl+s or esc)", markup=False)
        return None
    if area.view.item is None:
        area.notify("open an item first (t tree, g go to)", markup=False)
    return area.view.item


def refused(area: ItemArea, what: str, exc: BaseException | None) -> None:
    """Say why a write did not happen (nothing was written)."""
    if isinstance(exc, ReadOnlyError):
        area.notify(str(exc), severity="warning", markup=False)
        return
    if isinstance(exc, ConflictError):
        area.notify(f"not {what}: {exc.file}:{exc.name} changed on disk since it was shown; nothing written. "
                    "Showing the current version.", severity="error", markup=False)
        area.reshow()
        return
    # A refused lossy write says what to fix by hand, and a full disk what failed: both need reading time.
    long = isinstance(exc, (LossyWriteError, OSError))
    area.notify(f"not {what}: {exc}", severity="error", markup=False, timeout=20 if long else None)


@item_flow
async def new_item(area: ItemArea, new_file: bool = False) -> None:
    """Ask for an address (an existing one keeps the dialog open), then edit an empty draft."""
    store = area.backend.store
    files = store.files()

    def check(values: dict[str, str]) -> str | None:
        file, name = values["file"], values["name"]
        if new_file and file in files:
            return f"RecallFile {file} already exists (n adds an item to it)"
        if store.get(file, name) is not None:
            return f"{file}:{name} already exists"
        return None

    current = area.view.current
    form = (new_file_form(check, cursor_blink=area.cursor_blink) if new_file else
            new_item_form(files, current[0] if current else None, check, cursor_blink=area.cursor_blink))
    values = await area.app.push_screen_wait(form)
    if values is None or area.blocked_by_draft():
        return
    area.show_editor(values["file"], values["name"], None)


def _taken(area: ItemArea, item: RecallItem, file: str, name: str) -> str | None:
    """Why ``item`` cannot go to ``file:name`` (another item is there), or None."""
    moved = (file, name) != (item.file, item.name)
    return f"{file}:{name} already exists" if moved and area.backend.store.get(file, name) is not None else None


@item_flow
async def rename(area: ItemArea) -> None:
    """Ask for a new name; offer a link rewrite when others link here."""
    item = _shown_item(area)
    if item is None:
        return
    def check(values: dict[str, str]) -> str | None:
        return _taken(area, item, item.file, values["name"])

    values = await area.app.push_screen_wait(rename_form(item.file, item.name, check, cursor_blink=area.cursor_blink))
    if values is not None and values["name"] != item.name:
        await _relocate(area, item, item.file, values["name"])


@item_flow
async def move(area: ItemArea) -> None:
    """Ask for another RecallFile; offer a link rewrite when others link here."""
    item = _shown_item(area)
    if item is None:
        return
    def check(values: dict[str, str]) -> str | None:
        return _taken(area, item, values["file"], item.name)

    form = move_form(item.file, item.name, area.backend.store.files(), check, cursor_blink=area.cursor_blink)
    values = await area.app.push_screen_wait(form)
    if values is not None and values["file"] != item.file:
        await _relocate(area, item, values["file"], item.name)


def _backlink_lines(area: ItemArea, item: RecallItem) -> tuple[list[Text], list[Text]]:
    """The items, then the diary entries, linking to ``item`` (one line each)."""
    catalogue = area.catalogue
    backlinks = catalogue.backlinks_of(item.file, item.name) if catalogue else []
    diary = catalogue.diary_backlinks_of(item.file, item.name) if catalogue else []
    return [address(file, name, "") for file, name in backlinks], [diary_label(key) for key in diary]


async def _relocate(area: ItemArea, item: RecallItem, new_file: str, new_name: str) -> None:
    lines, diary = _backlink_lines(area, item)
    rewrite = False
    if lines:
        message = Text(f"{_items_link(len(lines))} to ")
        message.append_text(address(item.file, item.name))
        message.append(". Rewrite those links to ").append_text(address(new_file, new_name)).append("?")
        if diary:
            message.append(f"\n{_diary_dangles(len(diary), also=True)}")
        answer = await area.app.push_screen_wait(
            ConfirmScreen(message, yes="Rewrite links", no="Keep links", details=lines + diary))
        if answer is None:  # escape: no move at all
            return
        rewrite = answer
    elif diary:  # nothing to rewrite, but links that will dangle: say so before moving
        verb = "Rename" if new_file == item.file else "Move"
        message = Text(f"{verb} ").append_text(address(item.file, item.name)).append(" to ")
        message.append_text(address(new_file, new_name)).append(f"?\n{_diary_dangles(len(diary), also=False)}")
        if not await area.app.push_screen_wait(
                ConfirmScreen(message, yes=f"{verb}, leave diary links dangling", details=diary)):
            return
    # In a thread: rewriting links re-reads every RecallFile, seconds on a 100k store.
    job = partial(area.backend.relocate, item.file, item.name, new_file, new_name,
                  expected=item.content, rewrite_links=rewrite)
    worker = area.run_worker(job, thread=True, group="item-write", exit_on_error=False)
    try:
        moved = await worker.wait()
    except WorkerFailed:
        refused(area, "moved", worker.error)
        return
    area.notify(f"{item.file}:{item.name} → {moved.file}:{moved.name}" + (" (links rewritten)" if rewrite else "")
                + " · ctrl+z undoes it", markup=False)
    area.open_item(moved.file, moved.name)


@item_flow
async def delete(area: ItemArea) -> None:
    """Ask (listing the items that link here), then remove the item shown."""
    item = _shown_item(area)
    if item is None:
        return
    lines, diary = _backlink_lines(area, item)
    message = Text("Delete ").append_text(address(item.file, item.name)).append("?")
    yes = "Delete"
    if lines:
        message.append(f"\n{_items_link(len(lines))} to it; their links will dangle (shown as missing):")
    if diary:
        message.append(f"\n{_diary_dangles(len(diary), also=bool(lines))}")
    if lines or diary:
        yes = "Delete, leave links dangling"
    message.append("\nThe journal keeps a record; ctrl+z undoes it.", style="dim")
    if not await area.app.push_screen_wait(ConfirmScreen(message, yes=yes, details=lines + diary)):
        return
    try:
        area.backend.delete(item.file, item.name, expected=item.content)
    except (ReadOnlyError, ConflictError, ValueError, OSError) as exc:  # OSError: a full disk, nothing written
        refused(area, "deleted", exc)
        return
    area.view.show_missing(item.file, item.name)
    area.notify(f"deleted {item.file}:{item.name} · ctrl+z undoes it", markup=False)


@item_flow
async def promote(area: ItemArea) -> None:
    """Diary day shown → pick entries (the one promote flow: similar items first) → a new or extended wiki item."""
    day = area.shown_day
    if day is None:
        area.notify("open a diary day first (tree: diary, or the calendar)", markup=False)
        return
    date, time = day
    backend = area.backend
    screen = PromoteScreen(backend.diary.day(date), store=backend.store, index=backend.index, writer=backend,
                           app_owner=backend.owner, pick=True, time=time)
    item = await area.app.push_screen_wait(screen)
    if item is not None:
        area.notify(f"promoted to {item.file}:{item.name} (the journal lists the diary entries)", markup=False)
        area.open_item(item.file, item.name)


def copy(area: ItemArea, what: Literal["link", "block"]) -> None:
    """Copy the item shown as ``[[file:name]]`` or as its markdown block (heading and content)."""
    item = area.view.item
    if item is None:
        area.notify("open an item first (t tree, g go to)", markup=False)
        return
    link = WikiLink(item.file, item.name).render()
    text = link if what == "link" else f"## {item.name}\n\n{item.content}\n"
    area.app.copy_to_clipboard(text)
    area.notify(f"copied {link}" if what == "link" else f"copied the markdown of {link}", markup=False)
