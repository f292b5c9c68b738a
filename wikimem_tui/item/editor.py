"""The item editor: a draft whose save is one checked write through the Backend.

Three promises live here. Bad input writes nothing: the store validates and
raises ``ValueError``, shown inline under the text, and the draft is kept.
Nobody's edit is lost silently: the editor remembers the content it was
opened with (``base``) and saves with ``expected=base``, so the store
compares it under its lock; another process's write in between raises
``ConflictError`` and the conflict screen shows both versions (there is no
check-then-write window). And provenance survives: the owner and source are
two explicit fields, pre-filled with the item's own values, so saving an
edit of the content alone keeps them.

Hidden characters (terminal escapes, bidi overrides…) in the item appear as
visible marked escapes, ``⟦\\x1b⟧``, and are saved back as the same
characters (``SafeTextArea``), so the terminal never receives them and an
edit that does not touch them changes no byte; an escape the user types
(``\\x1b`` without the mark) is saved as the text typed.
"""

from __future__ import annotations

import shlex
import subprocess
import tempfile
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Label, Static

from wikimem import ConflictError, RecallItem
from wikimem_tui.core.backend import Backend, ReadOnlyError
from wikimem_tui.common.safe import has_hidden, safe_line
from wikimem_tui.item.conflict import ConflictScreen
from wikimem_tui.common.safe_inputs import SafeInput, SafeTextArea

__all__ = ["ItemEditor"]


def _content(item: RecallItem | None) -> str | None:
    return item.content if item is not None else None


class ItemEditor(Vertical):
    """Edit the content, owner and source of one item (``file:name``)."""

    DEFAULT_CSS = """
    ItemEditor { height: 1fr; }
    ItemEditor #editor-title { height: 1; text-style: bold; padding: 0 1; }
    ItemEditor TextArea { height: 1fr; }
    ItemEditor #editor-provenance { height: auto; }
    ItemEditor #editor-provenance Label { padding: 1 1 0 1; }
    ItemEditor #editor-provenance Input { width: 1fr; }
    ItemEditor #editor-hidden { color: $warning; height: auto; padding: 0 1; display: none; }
    ItemEditor #editor-hidden.shown { display: block; }
    ItemEditor #editor-error { color: $error; height: auto; padding: 0 1; display: none; }
    ItemEditor #editor-error.shown { display: block; }
    ItemEditor #editor-buttons { height: auto; align-horizontal: right; }
    ItemEditor Button { margin: 0 1; min-width: 10; }
    """

    class Saved(Message):
        """The item was written; ``item`` is what the store returned."""

        def __init__(self, item: RecallItem) -> None:
            super().__init__()
            self.item = item

    class Closed(Message):
        """The editor is done without a save of its own (cancel, or the disk version was taken)."""

    def __init__(self, backend: Backend, *, cursor_blink: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.backend = backend
        self._cursor_blink = cursor_blink
        self.file = ""
        """RecallFile of the item being edited."""
        self.item_name = ""
        """Item name being edited (its heading)."""
        self.base: str | None = None
        """Content as last read from disk (None: a new item); the save's ``expected``."""
        self._base_owner = ""
        self._base_source = ""
        self._seen_disk: tuple[str | None] | None = None
        """The disk version the user last saw on the conflict screen and backed out of (None: none)."""

    def compose(self) -> ComposeResult:
        yield Static(id="editor-title")
        yield SafeTextArea(id="editor-area", soft_wrap=True, tab_behavior="focus", cursor_blink=self._cursor_blink)
        with Horizontal(id="editor-provenance"):
            yield Label("owner")
            yield SafeInput(id="editor-owner", placeholder="who this memory is from", cursor_blink=self._cursor_blink)
            yield Label("source")
            yield SafeInput(id="editor-source", placeholder="conversation id", cursor_blink=self._cursor_blink)
        yield Static(Text("This item holds hidden characters (terminal escapes, bidi or zero-width): they show as "
                          "⟦\\x1b⟧ and are saved back as the same characters; an escape you type stays text."),
                     id="editor-hidden")
        yield Static(id="editor-error")
        with Horizontal(id="editor-buttons"):
            yield Button("Save ^s", id="editor-save", variant="primary")
            yield Button("Cancel esc", id="editor-cancel")

    @property
    def area(self) -> SafeTextArea:
        """The TextArea holding the (escaped) draft."""
        return self.query_one(SafeTextArea)

    @property
    def text(self) -> str:
        """The draft as it will be saved (escapes turned back into characters)."""
        return self.area.raw

    @property
    def owner(self) -> str:
        """The owner field as it will be saved."""
        return self.query_one("#editor-owner", SafeInput).raw.strip()

    @property
    def source(self) -> str:
        """The source field as it will be saved."""
        return self.query_one("#editor-source", SafeInput).raw.strip()

    @property
    def dirty(self) -> bool:
        """True when the draft (content, owner or source) differs from what editing started with."""
        return (self.text.strip() != (self.base or "").strip()
                or (self.owner, self.source) != (self._base_owner, self._base_source))

    def load(self, file: str, name: str, item: RecallItem | None) -> None:
        """Start editing ``file:name``; ``item`` None means a new item (owned by the app)."""
        self.file, self.item_name = file, name
        title = Text("editing ", style="dim")
        title.append_text(safe_line(file, "bold"))
        title.append(":")
        title.append_text(safe_line(name, "bold"))
        if item is None:
            title.append("  (new)", style="italic")
        self.query_one("#editor-title", Static).update(title)
        self._take(item, new_owner=self.backend.owner)
        self.area.focus()

    def _take(self, item: RecallItem | None, *, new_owner: str = "") -> None:
        """Draft, base and provenance fields from ``item`` (None: empty, owner ``new_owner``)."""
        self.base = _content(item)
        self._seen_disk = None
        self._base_owner = (item.owner or "") if item is not None else new_owner
        self._base_source = (item.source_conv or "") if item is not None else ""
        self.area.load_raw(self.base or "")
        self.query_one("#editor-owner", SafeInput).raw = self._base_owner
        self.query_one("#editor-source", SafeInput).raw = self._base_source
        self.query_one("#editor-hidden").set_class(has_hidden(self.base or ""), "shown")
        self.show_error(None)

    def show_error(self, message: str | None) -> None:
        """Show (or clear) a validation error under the text."""
        error = self.query_one("#editor-error", Static)
        error.update(safe_line(message or ""))
        error.set_class(bool(message), "shown")

    # -- saving -------------------------------------------------------------------

    def save(self) -> None:
        """Write the draft, checked against ``base``; a conflict opens the conflict screen."""
        if not isinstance(self.app.screen, ConflictScreen):
            self._write(self.text, self.base, None)

    def disk_changed(self) -> None:
        """The file changed on disk: reload a clean draft, or show both versions when there are edits."""
        disk = self.backend.store.get(self.file, self.item_name)
        if _content(disk) == self.base or isinstance(self.app.screen, ConflictScreen):
            return
        if self._seen_disk == (_content(disk),):
            # Backed out of this very version ("Back"): the save will ask again. Asking on every
            # later write to the file (another item, a journal line) took the Escape meant here.
            return
        if not self.dirty:
            self._take(disk)
            self.notify("reloaded the item from disk (you had no edits)", markup=False)
            return
        self._write(self.text, self.base, ConflictError(self.file, self.item_name, self.base, disk))

    @work(group="editor-save")
    async def _write(self, content: str, expected: str | None, conflict: ConflictError | None) -> None:
        """Save ``content`` if the item still holds ``expected``; on a conflict let the user choose, and retry."""
        while True:
            if conflict is not None:
                screen = ConflictScreen(self.file, self.item_name, content, conflict.current,
                                        cursor_blink=self._cursor_blink)
                choice = await self.app.push_screen_wait(screen)
                if choice is None:  # back to the draft; nothing written
                    self._seen_disk = (conflict.current,)
                    return
                if choice.action == "disk":
                    self._take(conflict.item)
                    self.post_message(self.Closed())
                    return
                content, expected, conflict = choice.text or "", conflict.current, None
                self.area.load_raw(content)
            try:
                item = self.backend.save(self.file, self.item_name, content, expected=expected,
                                         owner=self.owner, source=self.source)
            except ConflictError as exc:
                conflict = exc
                continue
            except ReadOnlyError as exc:
                self.notify(str(exc), severity="warning", markup=False)
                return
            except (ValueError, OSError) as exc:  # OSError: a full disk (nothing landed); the draft stays
                self.show_error(f"not saved: {exc}")
                return
            self._take(item)
            self.post_message(self.Saved(item))
            return

    def run_external(self, command: str) -> bool:
        """Round-trip the draft through an external editor (the app suspends meanwhile).

        The text comes back into the draft and is saved through :meth:`save`
        (so validation and conflict checks apply); returns False when nothing
        changed or the editor could not run, in which case nothing is written.
        """
        text = self.text
        # A text file ends with a newline (vi warns "noeol", `cat >>` runs into the last line): the
        # editor gets one, and the one added is taken back off what returns.
        added = not text.endswith("\n")
        with tempfile.TemporaryDirectory(prefix="wikimem-") as tmp:
            path = Path(tmp) / f"{self.file}.md"
            path.write_text(text + "\n" if added else text, encoding="utf-8")
            try:
                with self.app.suspend():
                    subprocess.run([*shlex.split(command), str(path)], check=False)
            except Exception as exc:  # SuspendNotSupported, editor not found…
                self.notify(f"cannot run $EDITOR ({command}): {exc}", severity="error", markup=False)
                return False
            new_text = path.read_text(encoding="utf-8")
        if added and new_text.endswith("\n"):
            new_text = new_text[:-1]
        if new_text.strip() == text.strip():
            self.notify("unchanged: nothing written", markup=False)
            return False
        self.area.load_raw(new_text)
        self.save()
        return True

    @on(Button.Pressed, "#editor-save")
    def _save_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.save()

    @on(Button.Pressed, "#editor-cancel")
    def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.Closed())
