"""Both versions side by side when the item being edited changed on disk.

The app never picks a winner by itself: the user keeps their draft, takes
the disk version, or merges by hand. Escape backs out to the editor with the
draft intact and nothing written. The merge box is a ``SafeTextArea`` (hidden
characters as reversible escapes, like the editor), and toasts are not shown
on this screen (they would cover its buttons): they appear once it closes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from wikimem_tui.common.dialog import Dialog
from wikimem_tui.common.safe import safe_line, safe_text
from wikimem_tui.common.safe_inputs import SafeTextArea

__all__ = ["ConflictChoice", "ConflictScreen"]


@dataclass(frozen=True)
class ConflictChoice:
    """``keep`` (write ``text``, the draft), ``disk`` (drop the draft) or ``merge`` (write ``text``)."""

    action: Literal["keep", "disk", "merge"]
    text: str | None = None


class ConflictScreen(Dialog[ConflictChoice | None]):
    """Show the draft and the disk version; return the user's choice (None: back to editing)."""

    DEFAULT_CSS = """
    ConflictScreen { align: center middle; }
    ConflictScreen > Vertical { width: 95%; height: 95%; border: thick $error; background: $surface; padding: 0 1; }
    ConflictScreen #conflict-title { height: auto; text-style: bold; }
    ConflictScreen #sides { height: 1fr; }
    ConflictScreen #sides > Vertical { width: 1fr; border: round $panel; }
    ConflictScreen .side-title { text-style: bold; background: $panel; }
    ConflictScreen #merge { height: 1fr; }
    ConflictScreen #conflict-note { height: auto; color: $warning; }
    ConflictScreen #conflict-buttons { height: auto; }
    ConflictScreen Button { margin-right: 1; }
    ConflictScreen Toast { display: none; }
    """

    BINDINGS = [
        # priority: the merge TextArea would otherwise take ctrl+k / ctrl+t itself.
        Binding("ctrl+k", "choose('keep')", "Keep mine", id="conflict.keep", priority=True),
        Binding("ctrl+t", "choose('disk')", "Take disk", id="conflict.disk", priority=True),
        Binding("ctrl+s", "choose('merge')", "Save merge", id="conflict.merge", priority=True),
        Binding("escape", "back", "Back to editor", id="conflict.back"),
    ]

    def __init__(self, file: str, name: str, mine: str, disk: str | None, *, cursor_blink: bool = True) -> None:
        super().__init__()
        self.file, self.item_name, self.mine, self.disk = file, name, mine, disk
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        title = Text("Changed on disk while you were editing: ")
        title.append_text(safe_line(f"{self.file}:{self.item_name}", "bold"))
        with Vertical():
            yield Static(title, id="conflict-title")
            with Horizontal(id="sides"):
                with Vertical():
                    yield Static("mine (unsaved draft)", classes="side-title")
                    with VerticalScroll():
                        yield Static(safe_text(self.mine), id="mine")
                with Vertical():
                    yield Static("on disk now", classes="side-title")
                    with VerticalScroll():
                        disk = safe_text(self.disk) if self.disk is not None else Text("(deleted on disk)", style="italic")
                        yield Static(disk, id="disk")
            yield Static("merge by hand (edit, then Save merge):", classes="side-title")
            yield Static("", id="conflict-note", markup=False)
            yield SafeTextArea(self.mine, id="merge", soft_wrap=True, cursor_blink=self._cursor_blink)
            with Horizontal(id="conflict-buttons"):
                yield Button("Keep mine ^k", id="keep", variant="warning")
                yield Button("Take disk ^t", id="disk-btn", variant="primary")
                yield Button("Save merge ^s", id="merge-btn", variant="success")
                yield Button("Back esc", id="back")

    def action_choose(self, action: str) -> None:
        """Close with the chosen resolution."""
        if action == "keep":
            self.dismiss(ConflictChoice("keep", self.mine))
        elif action == "disk":
            self.dismiss(ConflictChoice("disk", self.disk))
        else:
            merged = self.query_one("#merge", SafeTextArea).raw
            if merged == self.mine and self.disk != self.mine:
                # The box starts as the draft: saving it untouched is "keep mine", which
                # replaces the version on disk -- too much for a reflex ctrl+s.
                self.query_one("#conflict-note", Static).update(
                    "The merge box still holds your draft unchanged: edit it first, or choose "
                    "Keep mine (ctrl+k) to replace the version on disk, or Take disk (ctrl+t).")
                self.query_one("#merge", SafeTextArea).focus()
                return
            self.dismiss(ConflictChoice("merge", merged))

    def action_back(self) -> None:
        """Back to the editor; nothing written."""
        self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        action = {"keep": "keep", "disk-btn": "disk", "merge-btn": "merge"}.get(event.button.id or "")
        if action is None:
            self.action_back()
        else:
            self.action_choose(action)
