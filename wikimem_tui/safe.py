"""Render untrusted memory text literally: never markup, never escapes.

Everything shown on screen that came from a memory file (names, content,
owners, journal fields) was written by an LLM from a conversation, so it may
contain Rich markup (``[bold]``, ``[link=…]``), ANSI/terminal escape
sequences or other control characters. This module is the one place that
decides which characters are *hidden* and turns such text into something
safe to display:

* only ``rich.text.Text`` objects are built (``Text(...)`` never parses
  markup), never markup strings;
* hidden characters are made *visible*, so a hidden sequence is noticed
  instead of silently dropped: in read-only views ESC becomes ``␛`` and the
  rest of the C0 range its Unicode "control picture"; everything else
  (C1 controls, bidi overrides and isolates, zero-width characters that
  hide text, line/paragraph separators, Unicode tag characters) is shown
  as a ``\\x9b`` / ``\\u202e`` / ``\\U000e0041`` escape;
* in editable fields (the editor, the merge box, inputs) hidden characters
  appear as those backslash escapes too, and :func:`from_editor` turns them
  back into the very same characters, so an edit that does not touch them
  changes no byte. A backslash that would otherwise make literal text look
  like an escape is doubled (``\\\\x1b`` is the four characters ``\\x1b``),
  so the mapping is reversible for every string.

Zero-width joiners (U+200C/U+200D) join emoji and shape Indic and Persian
script: between two non-ASCII characters they stay; next to ASCII, spaces or
an edge (where they can only hide something, as in ``pay\\u200dpal``) they
are shown.
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

__all__ = ["clean", "clean_line", "from_editor", "has_hidden", "safe_line", "safe_text", "to_editor"]

# Hidden whatever their neighbours: C0 except tab and newline, DEL, C1, soft
# hyphen, Mongolian vowel separator, zero-width space, LRM/RLM, line and
# paragraph separators, bidi embeddings/overrides/isolates, word joiner and
# invisible operators, BOM, and the tag characters used to smuggle text.
_ALWAYS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u180e\u200b\u200e\u200f\u2028\u2029"
    "\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f"
)
_JOINERS = "\u200c\u200d"
_HIDDEN_RE = re.compile(f"[{_ALWAYS}]|(?<![^\\x00-\\x7f\\s])[{_JOINERS}]|[{_JOINERS}](?![^\\x00-\\x7f\\s])")
_LINE_HIDDEN_RE = re.compile(f"[\t\n]|{_HIDDEN_RE.pattern}")
_JOINER_RE = re.compile(f"[{_JOINERS}]")
_DECODABLE_RE = re.compile(f"[{_ALWAYS}{_JOINERS}]")
# A run of backslashes, then maybe an escape body: \xHH, \uHHHH or \UHHHHHHHH.
_RUN_RE = re.compile(r"(\\+)(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})?")
_TAIL_RE = re.compile(r"x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}")


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _visible(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟ (ESC → ␛)
    if code == 0x7F:
        return "\u2421"  # ␡
    return _escape(char)


def _hidden_at(text: str, pattern: re.Pattern[str] = _HIDDEN_RE) -> set[int]:
    """Positions of hidden characters; a joiner next to a shown escape or another joiner is hidden too."""
    hidden = {m.start() for m in pattern.finditer(text)}
    joiners = [i for i, char in enumerate(text) if char in _JOINERS and i not in hidden] if _JOINER_RE.search(text) else []
    for i in joiners:
        if {i - 1, i + 1} & hidden or text[i - 1] in _JOINERS or text[i + 1] in _JOINERS:
            hidden.add(i)
    return hidden


def _show(text: str, pattern: re.Pattern[str]) -> str:
    hidden = _hidden_at(text, pattern)
    if not hidden:
        return text
    return "".join(_visible(char) if i in hidden else char for i, char in enumerate(text))


def has_hidden(text: str) -> bool:
    """True when ``text`` holds a character this module would show as an escape."""
    return bool(_hidden_at(text))


def clean(text: str) -> str:
    """``text`` with every hidden character made visible (newlines and tabs kept)."""
    return _show(text, _HIDDEN_RE)


def clean_line(text: str) -> str:
    """Like :func:`clean` but for one-line labels: newlines and tabs are made visible too."""
    return _show(text, _LINE_HIDDEN_RE)


def safe_text(text: str, style: str | Style = "") -> Text:
    """A ``Text`` showing multi-line untrusted ``text`` literally."""
    return Text(clean(text), style=style, end="")


def safe_line(text: str, style: str | Style = "") -> Text:
    """A one-line ``Text`` showing untrusted ``text`` literally (for labels, tree nodes)."""
    return Text(clean_line(text), style=style, end="", no_wrap=True)


# -- editable text: reversible escapes ------------------------------------------------


def _is_escape_body(body: str | None) -> bool:
    """``xHH``/``uHHHH``/``UHHHHHHHH`` naming a character :func:`to_editor` escapes."""
    if not body:
        return False
    code = int(body[1:], 16)
    return code <= 0x10FFFF and _DECODABLE_RE.fullmatch(chr(code)) is not None


def to_editor(text: str) -> str:
    """``text`` for an editable field: hidden characters as escapes, reversibly.

    ``from_editor(to_editor(s)) == s`` for every string ``s``, and the result
    holds no hidden character.
    """
    hidden = _hidden_at(text)
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "\\":
            j = i
            while j < n and text[j] == "\\":
                j += 1
            tail = _TAIL_RE.match(text, j)
            # Doubled when what follows would read as an escape: a hidden
            # character (written as one) or literal text shaped like one.
            doubled = j in hidden or (tail is not None and _is_escape_body(tail.group(0)))
            out.append("\\" * ((j - i) * (2 if doubled else 1)))
            i = j
            continue
        out.append(_escape(char) if i in hidden else char)
        i += 1
    return "".join(out)


def from_editor(text: str) -> str:
    """The inverse of :func:`to_editor`: escapes of hidden characters become those characters.

    In a run of backslashes before an escape body, pairs stand for literal
    backslashes and an odd one left over starts the escape; an escape body
    naming an ordinary character (``\\x41``) is left as typed.
    """

    def decode(match: re.Match[str]) -> str:
        run, body = len(match.group(1)), match.group(2)
        if not _is_escape_body(body):
            return match.group(0)
        if run % 2:
            return "\\" * (run // 2) + chr(int(body[1:], 16))
        return "\\" * (run // 2) + body

    return _RUN_RE.sub(decode, text)
