"""Editable fields that never put a hidden character on the terminal.

Textual's ``TextArea`` and ``Input`` draw their text as it is, so an item
holding ``\\x1b]0;pwned\\x07`` would retitle the terminal the moment it is
opened for editing. These subclasses hold the *escaped* form
(:func:`wikimem_tui.common.safe.to_editor`): loading goes through it, and so does
every edit (typing, paste, the conflict screen's merge box), so nothing
hidden can enter the document. ``raw`` turns the field back into the exact
characters (:func:`~wikimem_tui.common.safe.from_editor`), which is what is saved.

Only the marked escapes the field wrote itself (``⟦\\x1b⟧``) turn back into
characters, so two rules keep every mark in the document the field's own:
what enters is escaped (a typed or pasted mark becomes a marked escape of
the mark, so ``⟦\\x1b⟧`` typed by hand stays text), and an edit takes or
leaves a marked escape whole -- a deletion or replacement that starts or
ends inside one widens to all of it, a character typed inside one goes
after it -- so no edit can turn ``⟦\\x1b⟧`` into ``⟦\\x07⟧``.
"""

from __future__ import annotations

from textual.widgets import Input, TextArea
from textual.widgets.text_area import Edit, EditResult

from wikimem_tui.common.fit_input import FitInput
from wikimem_tui.common.safe import from_editor, marked_spans, to_editor

__all__ = ["SafeInput", "SafeTextArea", "whole_escapes"]


def whole_escapes(line: str, start: int, end: int) -> tuple[int, int]:
    """``start``..``end`` (columns of ``line``) widened so no marked escape is cut.

    An empty range strictly inside an escape (typing there) moves past it;
    a range edge strictly inside one moves to that escape's outer edge.
    """
    if start == end:
        column = _edge(line, start, outward=1)
        return column, column
    return _edge(line, start, outward=-1), _edge(line, end, outward=1)


def _edge(line: str, column: int, *, outward: int) -> int:
    """``column``, or the start (-1) / end (1) of the marked escape it falls strictly inside."""
    for left, right in marked_spans(line):
        if left < column < right:
            return left if outward < 0 else right
    return column


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
        """Every change (keys, paste, replace) enters escaped and keeps marked escapes whole."""
        edit.text = to_editor(edit.text)
        (top, left), (bottom, right) = sorted((edit.from_location, edit.to_location))
        if top == bottom:
            left, right = whole_escapes(self.document.get_line(top), left, right)
        else:
            left = _edge(self.document.get_line(top), left, outward=-1)
            right = _edge(self.document.get_line(bottom), right, outward=1)
        edit.from_location, edit.to_location = (top, left), (bottom, right)
        return super().edit(edit)


class SafeInput(FitInput):
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
        """Typing, paste and deletion end up here: what enters is escaped, marked escapes stay whole."""
        start, end = whole_escapes(self.value, *sorted((start, end)))
        super().replace(to_editor(text), start, end)
