"""Small forms: new item, new RecallFile, rename, move.

Each validates with the library's own rules (``validate_file``,
``sanitize_item_name``) and the caller's ``check`` (e.g. "already exists")
before closing, shows the error inline and stays open with what was typed,
so a dialog never hands the app a name the store would reject. Escape with
typed text asks before discarding it. Fields are ``SafeInput``s: a name
pre-filled from memory shows hidden characters as escapes.

A form opens in its first empty field (the new-item form's name, its file
pre-filled from the item shown), and no field selects its text on focus:
a pre-filled value is never replaced by the first key typed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from wikimem import sanitize_item_name, validate_file
from wikimem_tui.common.dialog import Dialog
from wikimem_tui.common.safe import clean_line, safe_line
from wikimem_tui.common.confirm import confirm_discard
from wikimem_tui.common.safe_inputs import SafeInput

__all__ = ["Field", "FormScreen", "move_form", "new_file_form", "new_item_form", "rename_form"]


@dataclass(frozen=True)
class Field:
    """One input: ``kind`` "file" or "name" selects the validator."""

    key: str
    label: str
    kind: str
    value: str = ""
    placeholder: str = ""


class FormScreen(Dialog[dict[str, str] | None]):
    """A titled form of ``Field``s; dismisses with ``{key: cleaned value}`` or None."""

    DEFAULT_CSS = """
    FormScreen { align: center middle; }
    FormScreen > Vertical { width: 64; max-width: 95%; height: auto; border: thick $primary; background: $surface; padding: 1 2; }
    FormScreen #form-title { text-style: bold; margin-bottom: 1; }
    FormScreen #form-error { color: $error; height: auto; }
    FormScreen Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
    FormScreen Button { margin-left: 1; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="form.cancel")]

    def __init__(
        self,
        title: Text,
        fields: list[Field],
        *,
        hint: str = "",
        check: Callable[[dict[str, str]], str | None] | None = None,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.fields = fields
        self.hint = hint
        self.check = check
        """Extra validation of the cleaned values: an error message keeps the dialog open."""
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="form-title")
            for field in self.fields:
                yield Label(Text(field.label))  # a Text: "[a-z0-9_-]" is not markup
                yield SafeInput(field.value, placeholder=field.placeholder, id=f"field-{field.key}",
                                select_on_focus=False, cursor_blink=self._cursor_blink)
            if self.hint:
                yield Static(Text(clean_line(self.hint), style="dim"))
            yield Static(id="form-error")
            with Horizontal():
                yield Button("OK", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        empty = next((f for f in self.fields if not f.value), self.fields[0])
        self.query_one(f"#field-{empty.key}", SafeInput).focus()

    def _values(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for field in self.fields:
            raw = self.query_one(f"#field-{field.key}", SafeInput).raw.strip()
            if field.kind == "file":
                validate_file(raw)
                out[field.key] = raw
            else:
                out[field.key] = sanitize_item_name(raw)
        return out

    def action_submit(self) -> None:
        """Validate; close with the values or show what is wrong."""
        try:
            values = self._values()
            problem = self.check(values) if self.check is not None else None
        except ValueError as exc:
            problem = str(exc)
        if problem:
            self.query_one("#form-error", Static).update(safe_line(problem))
            return
        self.dismiss(values)

    @property
    def typed(self) -> bool:
        """True when any field differs from what the dialog opened with."""
        return any(self.query_one(f"#field-{f.key}", SafeInput).raw != f.value for f in self.fields)

    def action_cancel(self) -> None:
        """Close without a result; asks first when something was typed."""
        if not self.typed:
            self.dismiss(None)
            return

        confirm_discard(self)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        inputs = list(self.query(Input))
        index = inputs.index(event.input)
        if index + 1 < len(inputs):
            inputs[index + 1].focus()
        else:
            self.action_submit()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "ok":
            self.action_submit()
        else:
            self.action_cancel()


def _title(prefix: str, subject: str | None = None) -> Text:
    text = Text(prefix)
    if subject:
        text.append_text(safe_line(subject, "bold"))
    return text


Check = Callable[[dict[str, str]], str | None]


def _writable(file: str) -> bool:
    try:
        validate_file(file)
    except ValueError:
        return False
    return True


def _listing(label: str, files: list[str]) -> str:
    """The files a write can reach (a hand-made ``wiki/Weird-Name.md`` is shown in the tree, never offered)."""
    files = [file for file in files if _writable(file)]
    return f"{label}: " + ", ".join(files[:12]) + (" …" if len(files) > 12 else "") if files else ""


def new_item_form(files: list[str], default_file: str | None, check: Check, *, cursor_blink: bool = True) -> FormScreen:
    """Ask for RecallFile + item name of a new item."""
    return FormScreen(
        _title("New item"),
        [Field("file", "RecallFile", "file", default_file or "", "e.g. preferences"), Field("name", "Item name", "name")],
        hint=_listing("Existing files", files), check=check, cursor_blink=cursor_blink,
    )


def new_file_form(check: Check, *, cursor_blink: bool = True) -> FormScreen:
    """Ask for a new RecallFile name and its first item's name."""
    return FormScreen(
        _title("New RecallFile (it exists once its first item is saved)"),
        [Field("file", "RecallFile name ([a-z0-9_-])", "file", "", "e.g. projects"), Field("name", "First item name", "name")],
        check=check, cursor_blink=cursor_blink,
    )


def rename_form(file: str, name: str, check: Check, *, cursor_blink: bool = True) -> FormScreen:
    """Ask for the new name of ``file:name``."""
    return FormScreen(_title("Rename ", f"{file}:{name}"), [Field("name", "New name", "name", name)],
                      check=check, cursor_blink=cursor_blink)


def move_form(file: str, name: str, files: list[str], check: Check, *, cursor_blink: bool = True) -> FormScreen:
    """Ask for the RecallFile to move ``file:name`` to."""
    others = [f for f in files if f != file]
    return FormScreen(_title("Move ", f"{file}:{name}"), [Field("file", "To RecallFile", "file", "")],
                      hint=_listing("Files", others), check=check, cursor_blink=cursor_blink)
