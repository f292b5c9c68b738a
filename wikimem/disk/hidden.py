"""Which characters of memory text are hidden from a reader: the one rule the CLI and the app share.

Memory text is untrusted and shown in terminals. Some characters act on the
terminal (controls: escape sequences) and some hide or reorder what the
reader sees (bidi overrides, zero-width characters, tag characters). Both
front ends show such a character as a visible escape; this module decides
which ones they are, so ``wikimem show`` and the app never disagree.
Zero-width joiners join emoji and shape Indic and Persian script, so between
two non-ASCII characters they stay; next to ASCII, spaces or an edge, where
they can only hide something, they are hidden. Text for a program (JSON)
is never changed by this rule.
"""

from __future__ import annotations

import re

__all__ = ["ALWAYS_HIDDEN", "JOINERS", "escape_char", "has_hidden", "hidden_at", "show_hidden"]

#: Character-class body of the characters hidden whatever their neighbours.
ALWAYS_HIDDEN = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u180e\u200b\u200e\u200f\u2028\u2029"
    "\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f"
)
#: The zero-width non-joiner and joiner: hidden only where they cannot be shaping script or emoji.
JOINERS = "\u200c\u200d"
_HIDDEN_RE = re.compile(f"[{ALWAYS_HIDDEN}]|(?<![^\\x00-\\x7f\\s])[{JOINERS}]|[{JOINERS}](?![^\\x00-\\x7f\\s])")
_LINE_HIDDEN_RE = re.compile(f"[\t\n]|{_HIDDEN_RE.pattern}")
_JOINER_RE = re.compile(f"[{JOINERS}]")


def escape_char(char: str) -> str:
    """``char`` as a visible, inert escape: ``\\x1b``, ``\\u202e``, ``\\U000e0041``."""
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def hidden_at(text: str, *, one_line: bool = False) -> set[int]:
    """Positions of the hidden characters of ``text`` (``one_line``: newlines and tabs too)."""
    pattern = _LINE_HIDDEN_RE if one_line else _HIDDEN_RE
    hidden = {m.start() for m in pattern.finditer(text)}
    if not _JOINER_RE.search(text):
        return hidden
    for i in [i for i, char in enumerate(text) if char in JOINERS and i not in hidden]:
        if {i - 1, i + 1} & hidden or text[i - 1] in JOINERS or text[i + 1] in JOINERS:
            hidden.add(i)
    return hidden


def has_hidden(text: str) -> bool:
    """True when ``text`` holds a character :func:`hidden_at` finds."""
    return bool(hidden_at(text))


def show_hidden(text: str, *, one_line: bool = False) -> str:
    """``text`` with every hidden character written as its escape (:func:`escape_char`); the rest unchanged."""
    hidden = hidden_at(text, one_line=one_line)
    if not hidden:
        return text
    return "".join(escape_char(char) if i in hidden else char for i, char in enumerate(text))
