"""Editable fields that never put a hidden character on the terminal.

Textual's ``TextArea`` and ``Input`` draw their text as it is, so an item
holding ``\\x1b]0;pwned\\x07`` would retitle the terminal the moment it is
opened for editing. These subclasses hold the *escaped* form
(:func:`wikimem_tui.safe.to_editor`): loading goes through it, and so does
every edit (typing, paste, the conflict screen's merge box), so nothing
hidden can enter the document. ``raw`` turns the field back into the exact
characters (:func:`~wikimem_tui.safe.from_editor`), which is what is saved.
"""

from __future__ import annotations

from textual.widgets import Input, TextArea
from textual.widgets.text_area import Edit, EditResult

from wikimem_tui.safe import from_editor, to_editor

__all__ = ["SafeInput", "SafeTextArea"]


class SafeTextArea(TextArea):
    """A TextArea over the escaped text; ``raw`` is the text to save."""

    def __init__(self, raw: str = "", *, cursor_blink: bool = True, **kwargs: object) -> None:
        super().__init__(to_editor(raw), **kwargs)  # type: ignore[arg-type]
        self.cursor_blink = cursor_blink

    @property
    def raw(self) -> str:
        """The document with escapes turned back into the characters they stand for."""
        return from_editor(self.text)

    def load_raw(self, raw: str) -> None:
        """Show ``raw`` (untrusted) for editing; undo history starts afresh."""
        self.load_text(to_editor(raw))

    def edit(self, edit: Edit) -> EditResult:
        """Every change (keys, paste, replace) enters escaped: a pasted ESC shows as ``\\x1b``."""
        edit.text = to_editor(edit.text)
        return super().edit(edit)


class SafeInput(Input):
    """An Input over the escaped value; ``raw`` is the value to use."""

    def __init__(self, raw: str = "", *, cursor_blink: bool = True, **kwargs: object) -> None:
        super().__init__(to_editor(raw), **kwargs)  # type: ignore[arg-type]
        self.cursor_blink = cursor_blink

    @property
    def raw(self) -> str:
        """The value with escapes turned back into the characters they stand for."""
        return from_editor(self.value)

    @raw.setter
    def raw(self, value: str) -> None:
        self.value = to_editor(value)

    def replace(self, text: str, start: int, end: int) -> None:
        """Typing and paste end up here: what enters is escaped."""
        super().replace(to_editor(text), start, end)
