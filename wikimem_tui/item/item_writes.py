"""The item area's write flows: new, rename, move, delete, promote, and copy.

Split from ``item_area.py`` (which shows, navigates and edits) by concept:
these are the multi-step flows that end in one write. Each is a ``@work``
method that awaits its dialog (``push_screen_wait``) and writes through the
injected ``Backend`` with the content as it was shown (``expected``), so an
item changed by another process since is never overwritten: nothing is
written and the user is told (``_refused``): so is a write the store refuses
because it would lose data (``LossyWriteError``), and one a full disk
stopped (``OSError``; nothing landed). ``ItemWrites`` is a mixin of
``ItemArea``; the attributes it relies on are declared below.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Literal

from rich.text import Text
from textual import work
from textual.widget import Widget
from textual.worker import WorkerFailed

from wikimem import ConflictError, LossyWriteError, RecallItem, WikiLink
from wikimem_tui.core.backend import Backend, ReadOnlyError
from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.common.safe import safe_line
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.common.dialogs import move_form, new_file_form, new_item_form, rename_form
from wikimem_tui.queue.day_promote import PromoteScreen
from wikimem_tui.item.item_view import diary_label

if TYPE_CHECKING:
    from wikimem_tui.item.editor import ItemEditor
    from wikimem_tui.item.item_view import ItemView

__all__ = ["ItemWrites", "address"]


def address(file: str, name: str, style: str = "bold") -> Text:
    """``file:name`` as literal, styled Text."""
    return safe_line(f"{file}:{name}", style)


def _items_link(count: int) -> str:
    return "1 item links" if count == 1 else f"{count} items link"


def _diary_dangles(count: int, *, also: bool) -> str:
    """The sentence every diary backlink list carries: those links are not rewritten."""
    who = "1 diary entry links" if count == 1 else f"{count} diary entries link"
    return (f"{who} to it{' too' if also else ''}; the diary is append-only, so "
            f"{'its link is' if count == 1 else 'their links are'} never rewritten and will dangle.")


class ItemWrites(Widget):
    """New, rename, move, delete, promote and copy on the item (or diary day) shown."""

    backend: Backend
    catalogue: Catalogue | None
    _cursor_blink: bool

    if TYPE_CHECKING:
        @property
        def view(self) -> ItemView: ...
        @property
        def editor(self) -> ItemEditor: ...
        @property
        def editing(self) -> bool: ...
        @property
        def shown_day(self) -> tuple[str, str | None] | None: ...
        def blocked_by_draft(self) -> bool: ...
        def open_item(self, file: str, name: str) -> None: ...
        def reshow(self) -> None: ...
        def _switch(self, to: Literal["item-view", "item-editor"]) -> None: ...

    def _shown_item(self) -> RecallItem | None:
        """The item in the view, as read (None, with a hint, when there is none or the editor is open)."""
        if self.editing:
            self.notify("finish editing first (ctrl+s or esc)", markup=False)
            return None
        if self.view.item is None:
            self.notify("open an item first (t tree, g go to)", markup=False)
        return self.view.item

    def _refused(self, what: str, exc: BaseException | None) -> None:
        """Say why a write did not happen (nothing was written)."""
        if isinstance(exc, ReadOnlyError):
            self.notify(str(exc), severity="warning", markup=False)
            return
        if isinstance(exc, ConflictError):
            self.notify(f"not {what}: {exc.file}:{exc.name} changed on disk since it was shown; nothing written. "
                        "Showing the current version.", severity="error", markup=False)
            self.reshow()
            return
        # A refused lossy write says what to fix by hand, and a full disk what failed: both need reading time.
        long = isinstance(exc, (LossyWriteError, OSError))
        self.notify(f"not {what}: {exc}", severity="error", markup=False, timeout=20 if long else None)

    @work(group="item-flow")
    async def new_item(self, new_file: bool = False) -> None:
        """Ask for an address (an existing one keeps the dialog open), then edit an empty draft."""
        store = self.backend.store
        files = store.files()

        def check(values: dict[str, str]) -> str | None:
            file, name = values["file"], values["name"]
            if new_file and file in files:
                return f"RecallFile {file} already exists (n adds an item to it)"
            if store.get(file, name) is not None:
                return f"{file}:{name} already exists"
            return None

        current = self.view.current
        form = (new_file_form(check, cursor_blink=self._cursor_blink) if new_file else
                new_item_form(files, current[0] if current else None, check, cursor_blink=self._cursor_blink))
        values = await self.app.push_screen_wait(form)
        if values is None or self.blocked_by_draft():
            return
        self._switch("item-editor")
        self.editor.load(values["file"], values["name"], None)

    @work(group="item-flow")
    async def rename(self) -> None:
        """Ask for a new name; offer a link rewrite when others link here."""
        item = self._shown_item()
        if item is None:
            return
        store = self.backend.store

        def check(values: dict[str, str]) -> str | None:
            taken = values["name"] != item.name and store.get(item.file, values["name"]) is not None
            return f"{item.file}:{values['name']} already exists" if taken else None

        values = await self.app.push_screen_wait(rename_form(item.file, item.name, check, cursor_blink=self._cursor_blink))
        if values is not None and values["name"] != item.name:
            await self._relocate(item, item.file, values["name"])

    @work(group="item-flow")
    async def move(self) -> None:
        """Ask for another RecallFile; offer a link rewrite when others link here."""
        item = self._shown_item()
        if item is None:
            return
        store = self.backend.store

        def check(values: dict[str, str]) -> str | None:
            taken = values["file"] != item.file and store.get(values["file"], item.name) is not None
            return f"{values['file']}:{item.name} already exists" if taken else None

        form = move_form(item.file, item.name, store.files(), check, cursor_blink=self._cursor_blink)
        values = await self.app.push_screen_wait(form)
        if values is not None and values["file"] != item.file:
            await self._relocate(item, values["file"], item.name)

    def _backlink_lines(self, item: RecallItem) -> tuple[list[Text], list[Text]]:
        """The items, then the diary entries, linking to ``item`` (one line each)."""
        catalogue = self.catalogue
        backlinks = catalogue.backlinks_of(item.file, item.name) if catalogue else []
        diary = catalogue.diary_backlinks_of(item.file, item.name) if catalogue else []
        return [address(file, name, "") for file, name in backlinks], [diary_label(key) for key in diary]

    async def _relocate(self, item: RecallItem, new_file: str, new_name: str) -> None:
        lines, diary = self._backlink_lines(item)
        rewrite = False
        if lines:
            message = Text(f"{_items_link(len(lines))} to ")
            message.append_text(address(item.file, item.name))
            message.append(". Rewrite those links to ").append_text(address(new_file, new_name)).append("?")
            if diary:
                message.append(f"\n{_diary_dangles(len(diary), also=True)}")
            answer = await self.app.push_screen_wait(
                ConfirmScreen(message, yes="Rewrite links", no="Keep links", details=lines + diary))
            if answer is None:  # escape: no move at all
                return
            rewrite = answer
        elif diary:  # nothing to rewrite, but links that will dangle: say so before moving
            verb = "Rename" if new_file == item.file else "Move"
            message = Text(f"{verb} ").append_text(address(item.file, item.name)).append(" to ")
            message.append_text(address(new_file, new_name)).append(f"?\n{_diary_dangles(len(diary), also=False)}")
            if not await self.app.push_screen_wait(
                    ConfirmScreen(message, yes=f"{verb}, leave diary links dangling", details=diary)):
                return
        # In a thread: rewriting links re-reads every RecallFile, seconds on a 100k store.
        job = partial(self.backend.relocate, item.file, item.name, new_file, new_name,
                      expected=item.content, rewrite_links=rewrite)
        worker = self.run_worker(job, thread=True, group="item-write", exit_on_error=False)
        try:
            moved = await worker.wait()
        except WorkerFailed:
            self._refused("moved", worker.error)
            return
        self.notify(f"{item.file}:{item.name} → {moved.file}:{moved.name}" + (" (links rewritten)" if rewrite else "")
                    + " · ctrl+z undoes it", markup=False)
        self.open_item(moved.file, moved.name)

    @work(group="item-flow")
    async def delete(self) -> None:
        """Ask (listing the items that link here), then remove the item shown."""
        item = self._shown_item()
        if item is None:
            return
        lines, diary = self._backlink_lines(item)
        message = Text("Delete ").append_text(address(item.file, item.name)).append("?")
        yes = "Delete"
        if lines:
            message.append(f"\n{_items_link(len(lines))} to it; their links will dangle (shown as missing):")
        if diary:
            message.append(f"\n{_diary_dangles(len(diary), also=bool(lines))}")
        if lines or diary:
            yes = "Delete, leave links dangling"
        message.append("\nThe journal keeps a record; ctrl+z undoes it.", style="dim")
        if not await self.app.push_screen_wait(ConfirmScreen(message, yes=yes, details=lines + diary)):
            return
        try:
            self.backend.delete(item.file, item.name, expected=item.content)
        except (ReadOnlyError, ConflictError, ValueError, OSError) as exc:  # OSError: a full disk, nothing written
            self._refused("deleted", exc)
            return
        self.view.show_missing(item.file, item.name)
        self.notify(f"deleted {item.file}:{item.name} · ctrl+z undoes it", markup=False)

    @work(group="item-flow")
    async def promote(self) -> None:
        """Diary day shown → pick entries → a new or extended wiki item with evidence lines."""
        day = self.shown_day
        if day is None:
            self.notify("open a diary day first (tree: diary, or the calendar)", markup=False)
            return
        date, time = day
        screen = PromoteScreen(self.backend, date, self.backend.diary.day(date), time)
        item = await self.app.push_screen_wait(screen)
        if item is not None:
            self.notify(f"promoted to {item.file}:{item.name} (the journal lists the diary entries)", markup=False)
            self.open_item(item.file, item.name)

    # -- copy ------------------------------------------------------------------------------

    def copy(self, what: Literal["link", "block"]) -> None:
        """Copy the item shown as ``[[file:name]]`` or as its markdown block (heading and content)."""
        item = self.view.item
        if item is None:
            self.notify("open an item first (t tree, g go to)", markup=False)
            return
        link = WikiLink(item.file, item.name).render()
        text = link if what == "link" else f"## {item.name}\n\n{item.content}\n"
        self.app.copy_to_clipboard(text)
        self.notify(f"copied {link}" if what == "link" else f"copied the markdown of {link}", markup=False)
