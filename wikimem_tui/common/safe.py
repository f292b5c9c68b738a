"""Render untrusted memory text literally: never markup, never escapes.

Everything shown on screen that came from a memory file (names, content,
owners, journal fields) was written by an LLM from a conversation, so it may
contain Rich markup (``[bold]``, ``[link=…]``), ANSI/terminal escape
sequences or other control characters. Which characters are *hidden* is the
library's rule (``wikimem.hidden_at``, shared with the CLI's text output, so
``wikimem show`` and the app never disagree); this module is the one place in
the app that turns such text into something safe to display:

* only ``rich.text.Text`` objects are built (``Text(...)`` never parses
  markup), never markup strings;
* hidden characters are made *visible*, so a hidden sequence is noticed
  instead of silently dropped: in read-only views ESC becomes ``␛`` and the
  rest of the C0 range its Unicode "control picture"; everything else
  (C1 controls, bidi overrides and isolates, zero-width characters that
  hide text, line/paragraph separators, Unicode tag characters) is shown
  as a ``\\x9b`` / ``\\u202e`` / ``\\U000e0041`` escape;
* in editable fields (the editor, the merge box, inputs) a hidden character
  appears as a *marked* escape, ``⟦\\x1b⟧``, and :func:`from_editor` turns
  exactly those back into the very same characters, so an edit that does
  not touch them changes no byte. Only the editor writes the mark: text the
  user types or pastes goes through :func:`to_editor` first, which turns a
  mark in it into a marked escape of the mark itself, so ``\\x1b`` typed by
  hand -- or ``⟦\\x1b⟧`` -- is saved as the characters typed, never as an
  ESC. Literal backslashes need no doubling, and the mapping is reversible
  for every string (``common/safe_inputs.py`` keeps edits from cutting a
  marked escape in half).
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

from wikimem import ALWAYS_HIDDEN, JOINERS, escape_char, hidden_at

__all__ = ["MARK", "clean", "clean_line", "from_editor", "has_hidden", "marked_spans", "safe_line", "safe_text",
           "to_editor"]

#: Opens and closes an escape the editor wrote: ``⟦\\x1b⟧``. Not on any keyboard, one cell wide.
MARK, MARK_END = "\u27e6", "\u27e7"
_DECODABLE_RE = re.compile(f"[{ALWAYS_HIDDEN}{JOINERS}{MARK}]")
_MARKED_RE = re.compile(f"{MARK}\\\\(x[0-9a-fA-F]{{2}}|u[0-9a-fA-F]{{4}}|U[0-9a-fA-F]{{8}}){MARK_END}")


def _visible(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟ (ESC → ␛)
    if code == 0x7F:
        return "\u2421"  # ␡
    return escape_char(char)


def _show(text: str, *, one_line: bool) -> str:
    hidden = hidden_at(text, one_line=one_line)
    if not hidden:
        return text
    return "".join(_visible(char) if i in hidden else char for i, char in enumerate(text))


def has_hidden(text: str) -> bool:
    """True when ``text`` holds a character this module would show as an escape."""
    return bool(hidden_at(text))


def clean(text: str) -> str:
    """``text`` with every hidden character made visible (newlines and tabs kept)."""
    return _show(text, one_line=False)


def clean_line(text: str) -> str:
    """Like :func:`clean` but for one-line labels: newlines and tabs are made visible too."""
    return _show(text, one_line=True)


def safe_text(text: str, style: str | Style = "") -> Text:
    """A ``Text`` showing multi-line untrusted ``text`` literally."""
    return Text(clean(text), style=style, end="")


def safe_line(text: str, style: str | Style = "") -> Text:
    """A one-line ``Text`` showing untrusted ``text`` literally (for labels, tree nodes)."""
    return Text(clean_line(text), style=style, end="", no_wrap=True)


# -- editable text: marked, reversible escapes ----------------------------------------


def _marked(char: str) -> str:
    return f"{MARK}{escape_char(char)}{MARK_END}"


def to_editor(text: str) -> str:
    """``text`` for an editable field: hidden characters (and the mark itself) as marked escapes.

    ``from_editor(to_editor(s)) == s`` for every string ``s``, the result
    holds no hidden character, and every mark in it opens a marked escape.
    """
    hidden = hidden_at(text)
    if not hidden and MARK not in text:
        return text
    return "".join(_marked(char) if i in hidden or char == MARK else char for i, char in enumerate(text))


def from_editor(text: str) -> str:
    """The inverse of :func:`to_editor`: marked escapes become the characters they stand for.

    Everything else is text as typed: ``\\x1b`` without the mark, and a
    marked escape of an ordinary character (``⟦\\x41⟧``), which the editor
    never writes.
    """

    def decode(match: re.Match[str]) -> str:
        code = int(match.group(1)[1:], 16)
        char = chr(code) if code <= 0x10FFFF else ""
        return char if _DECODABLE_RE.fullmatch(char) else match.group(0)

    return _MARKED_RE.sub(decode, text) if MARK in text else text


def marked_spans(line: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each marked escape in ``line``: an edit takes or leaves each one whole."""
    return [match.span() for match in _MARKED_RE.finditer(line)] if MARK in line else []
