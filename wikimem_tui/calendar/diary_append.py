"""The diary append dialog: the diary's only write, from the app.

The diary is append-only, so this dialog is the whole editing story for it:
no edit, no delete. Validation is the library's (``Diary.append`` raises
``ValueError`` and writes nothing), shown inline so the user can fix the
entry without losing it. The time defaults to the backend's clock, not the
real one, so tests and screenshots are reproducible. The write is the
Backend's (``append_diary``: read-only checked and the own write recorded
there, once); Escape with a typed entry asks before discarding it.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static, TextArea

from wikimem import DiaryItem
from wikimem_tui.common.dialog import Dialog
from wikimem_tui.common.fit_input import FitInput
from wikimem_tui.core.backend import Backend, ReadOnlyError
from wikimem_tui.common.confirm import confirm_discard

__all__ = ["DiaryAppendScreen"]


class DiaryAppendScreen(Dialog[DiaryItem | None]):
    """Write one new diary entry; dismisses with the entry, or ``None`` if cancelled."""

    DEFAULT_CSS = """
    DiaryAppendScreen { align: center middle; }
    DiaryAppendScreen > Vertical {
        width: 72; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    DiaryAppendScreen #append-when { height: auto; }
    DiaryAppendScreen #append-when Input { width: 1fr; }
    DiaryAppendScreen #append-when Label { padding: 1 1 0 0; }
    DiaryAppendScreen TextArea { height: 10; }
    DiaryAppendScreen #append-error { color: $error; height: auto; }
    DiaryAppendScreen #append-buttons { height: auto; align-horizontal: right; }
    DiaryAppendScreen Button { margin-left: 1; }
    """

    BINDINGS = [
        Binding("ctrl+s", "save", "Append", priority=True, id="diary_append.save"),
        Binding("escape", "cancel", "Cancel", id="diary_append.cancel"),
    ]

    def __init__(self, backend: Backend, date: str | None = None, *, cursor_blink: bool = True) -> None:
        super().__init__()
        self.backend = backend
        self.date = date
        """The day the entry goes to (default: the backend's today)."""
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        backend = self.backend
        date = self.date or backend.today().isoformat()
        time = backend.clock().astimezone().strftime("%H:%M")
        with Vertical():
            yield Static(Text("New diary entry (append-only)", style="bold"))
            with Horizontal(id="append-when"):
                yield Label("date")
                yield FitInput(date, placeholder="YYYY-MM-DD", id="append-date")
                yield Label("time")
                yield FitInput(time, placeholder="HH:MM", id="append-time")
            yield TextArea(id="append-content", soft_wrap=True)
            yield Static(id="append-error", markup=False)
            with Horizontal(id="append-buttons"):
                yield Button("Append  ctrl+s", variant="primary", id="append-save")
                yield Button("Cancel  esc", id="append-cancel")

    def on_mount(self) -> None:
        for field in self.query("Input, TextArea"):
            field.cursor_blink = self._cursor_blink  # type: ignore[attr-defined]
        self.query_one(TextArea).focus()

    def _error(self, message: str) -> None:
        self.query_one("#append-error", Static).update(Text(message))

    def action_save(self) -> None:
        """Append the entry, or show why the library refused it."""
        date = self.query_one("#append-date", Input).value.strip() or None
        time = self.query_one("#append-time", Input).value.strip() or None
        content = self.query_one(TextArea).text
        try:
            entry = self.backend.append_diary(content, date=date, time=time)
        except (ValueError, ReadOnlyError) as exc:
            self._error(f"not appended: {exc}")
            return
        self.dismiss(entry)

    def action_cancel(self) -> None:
        """Close without writing; asks first when an entry was typed."""
        if not self.query_one(TextArea).text.strip():
            self.dismiss(None)
            return

        confirm_discard(self, "Discard the entry you typed?")

    @on(Button.Pressed, "#append-save")
    def _save_pressed(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#append-cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()
