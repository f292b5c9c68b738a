"""The item editor: a TextArea whose save is ``MemoryStore.add`` and nothing else.

Two promises live here. Bad input writes nothing: the store validates and
raises ``ValueError``, which is shown inline under the text, and the buffer
is kept so the user can fix it. And nobody's edit is lost silently: the
editor remembers the content it was opened with (``base``); if the disk
version differs from it at save time (another process wrote the item), it
does not write but posts ``Conflict`` so the app can show both versions.
"""

from __future__ import annotations

import shlex
import subprocess
import tempfile
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Static, TextArea

from wikimem import RecallItem
from wikimem_tui.safe import safe_line

__all__ = ["ItemEditor"]


class ItemEditor(Vertical):
    """Edit the content of one item (``file:name``)."""

    DEFAULT_CSS = """
    ItemEditor { height: 1fr; }
    ItemEditor #editor-title { height: 1; text-style: bold; padding: 0 1; }
    ItemEditor TextArea { height: 1fr; }
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

    class Conflict(Message):
        """The disk version changed since editing began; nothing was written."""

        def __init__(self, file: str, name: str, mine: str, disk: RecallItem | None) -> None:
            super().__init__()
            self.file = file
            self.item_name = name
            self.mine = mine
            self.disk = disk

    class Closed(Message):
        """The user left the editor without saving."""

    def __init__(self, *, cursor_blink: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self._cursor_blink = cursor_blink
        self.file = ""
        """RecallFile of the item being edited."""
        self.item_name = ""
        """Item name being edited (its heading)."""
        self.base: str | None = None
        """Content as it was on disk when editing began (None: a new item)."""

    def compose(self) -> ComposeResult:
        yield Static(id="editor-title")
        area = TextArea(id="editor-area", soft_wrap=True, tab_behavior="focus")
        area.cursor_blink = self._cursor_blink
        yield area
        yield Static(id="editor-error")
        with Horizontal(id="editor-buttons"):
            yield Button("Save ^s", id="editor-save", variant="primary")
            yield Button("Cancel esc", id="editor-cancel")

    @property
    def area(self) -> TextArea:
        """The TextArea holding the draft."""
        return self.query_one(TextArea)

    @property
    def text(self) -> str:
        """The draft as typed."""
        return self.area.text

    @property
    def dirty(self) -> bool:
        """True when the draft differs from what editing started with."""
        return self.text.strip() != (self.base or "").strip()

    def load(self, file: str, name: str, content: str | None) -> None:
        """Start editing ``file:name``; ``content`` None means a new item."""
        self.file, self.item_name, self.base = file, name, content
        title = Text("editing ", style="dim")
        title.append_text(safe_line(file, "bold"))
        title.append(":")
        title.append_text(safe_line(name, "bold"))
        if content is None:
            title.append("  (new)", style="italic")
        self.query_one("#editor-title", Static).update(title)
        self.area.load_text(content or "")
        self.show_error(None)
        self.area.focus()

    def show_error(self, message: str | None) -> None:
        """Show (or clear) a validation error under the text."""
        error = self.query_one("#editor-error", Static)
        error.update(safe_line(message or ""))
        error.set_class(bool(message), "shown")

    def save(self, *, force: bool = False) -> RecallItem | None:
        """Write the draft via ``store.add``; None when nothing was written.

        Without ``force``, a disk version different from ``base`` (and from
        the draft) posts ``Conflict`` instead of writing.
        """
        backend = self.app.backend  # type: ignore[attr-defined]
        if backend.read_only:
            self.app.notify("read-only: nothing saved", severity="warning", markup=False)
            return None
        store = backend.store
        disk = store.get(self.file, self.item_name)
        if not force:
            disk_content = disk.content if disk is not None else None
            if disk_content != self.base and disk_content != self.text.strip():
                self.post_message(self.Conflict(self.file, self.item_name, self.text, disk))
                return None
        # The edit is this app's (owner, ts); where the memory came from (source) stays.
        source = disk.source_conv if disk is not None else None
        try:
            item = store.add(self.file, self.item_name, self.text, owner=backend.owner,
                             source_conv=source, ts=backend.clock())
        except ValueError as exc:
            self.show_error(f"not saved: {exc}")
            return None
        self.base = item.content
        self.show_error(None)
        self.post_message(self.Saved(item))
        return item

    def run_external(self, command: str) -> bool:
        """Round-trip the draft through an external editor (the app suspends meanwhile).

        The text comes back into the draft and is saved through :meth:`save`
        (so validation and conflict checks apply); returns False when nothing
        changed or the editor could not run, in which case nothing is written.
        """
        text = self.text
        with tempfile.TemporaryDirectory(prefix="wikimem-") as tmp:
            path = Path(tmp) / f"{self.file}.md"
            path.write_text(text, encoding="utf-8")
            try:
                with self.app.suspend():
                    subprocess.run([*shlex.split(command), str(path)], check=False)
            except Exception as exc:  # SuspendNotSupported, editor not found…
                self.app.notify(f"cannot run $EDITOR ({command}): {exc}", severity="error", markup=False)
                return False
            new_text = path.read_text(encoding="utf-8")
        if new_text.strip() == text.strip():
            self.app.notify("unchanged: nothing written", markup=False)
            return False
        self.area.load_text(new_text)
        return self.save() is not None

    def take(self, content: str | None) -> None:
        """Replace the draft and the base with the disk version (after a conflict)."""
        self.base = content
        self.area.load_text(content or "")
        self.show_error(None)

    @on(Button.Pressed, "#editor-save")
    def _save_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.save()

    @on(Button.Pressed, "#editor-cancel")
    def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.Closed())
