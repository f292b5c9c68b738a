"""Yes/no confirmation before anything destructive (delete, overwrite, discard).

The question is a ``Text`` (untrusted names stay literal); ``details`` are
extra lines shown in a scrollable box under it, e.g. the items that link to
an item about to be deleted, however many there are.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Static

from wikimem_tui.common.dialog import Dialog
from wikimem_tui.common.safe import clean_line

__all__ = ["DISCARD_KEYS", "ConfirmScreen", "confirm_discard"]


class ConfirmScreen(Dialog[bool | None]):
    """Ask ``message`` (a Text, so untrusted parts stay literal).

    Dismisses True (y), False (n) or None (escape: back out of the whole action).
    With ``keys`` (what each key does, in words) a line under the question
    says it, and a printable key that answers nothing is refused out loud
    (the line says so, the terminal bells) instead of being silently
    ignored: the discard question, where an escape (the key that opened it)
    or a stray letter must never leave the user guessing what happened.
    """

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 72; max-width: 95%; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    ConfirmScreen #confirm-details { height: auto; max-height: 12; margin-top: 1; border: round $panel; }
    ConfirmScreen Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
    ConfirmScreen Button { margin-left: 1; }
    ConfirmScreen #confirm-keys { margin-top: 1; color: $text-muted; }
    ConfirmScreen #confirm-keys.-nudged { color: $warning; }
    """

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n", "answer(False)", "No", id="confirm.no"),
        Binding("escape", "back", "Back", id="confirm.back"),
    ]

    def __init__(
        self,
        message: Text,
        yes: str = "Delete",
        no: str = "Cancel",
        *,
        details: list[Text] | None = None,
        keys: Text | None = None,
    ) -> None:
        super().__init__()
        self.message = message
        self.yes = yes
        self.no = no
        self.details = details or []
        self.keys = keys
        """What each key does, in words, under the question (None: the buttons say it)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.message)
            if self.details:
                with VerticalScroll(id="confirm-details"):
                    yield Static(Text("\n").join(self.details))
            if self.keys is not None:
                yield Static(self.keys, id="confirm-keys")
            with Horizontal():
                yield Button(f"{self.yes} (y)", id="yes", variant="error")
                yield Button(f"{self.no} ({'n, esc' if self.keys is not None else 'n'})", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, answer: bool) -> None:
        """Close with ``answer``."""
        self.dismiss(answer)

    def action_back(self) -> None:
        """Close without an answer."""
        self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def on_key(self, event: events.Key) -> None:
        """A key that answers nothing is not taken for an answer: the key line says which ones do."""
        if self.keys is None or event.key in _ANSWERING or not event.is_printable:
            return
        event.stop()
        event.prevent_default()
        keys = self.query_one("#confirm-keys", Static)
        keys.add_class("-nudged")
        keys.update(Text.assemble((f"{clean_line(event.character or event.key)!r} answers nothing: ", "bold"),
                                  self.keys))
        self.app.bell()


#: Keys that answer (or move between the answers) in a ConfirmScreen.
_ANSWERING = frozenset({"y", "n", "escape", "enter", "space", "tab", "shift+tab", "left", "right"})

#: The discard question's keys, spelled out: an escape twice in a row keeps the draft, and says so.
DISCARD_KEYS = Text.assemble(("y", "bold"), ": discard and close · ", ("n", "bold"), " or ", ("escape", "bold"),
                             ": keep editing")


def confirm_discard(screen: Screen[Any], question: str = "Discard what you typed?") -> None:
    """Close ``screen`` (with None) once the user agrees to drop what they typed into it."""

    def answered(discard: bool | None) -> None:
        if discard:
            screen.dismiss(None)

    screen.app.push_screen(ConfirmScreen(Text(question), yes="Discard", no="Keep editing", keys=DISCARD_KEYS), answered)
