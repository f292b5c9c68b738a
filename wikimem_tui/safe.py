"""Render untrusted memory text literally: never markup, never escapes.

Everything shown on screen that came from a memory file (names, content,
owners, journal fields) was written by an LLM from a conversation, so it may
contain Rich markup (``[bold]``, ``[link=…]``), ANSI/terminal escape
sequences or other control characters. This module is the one place that
turns such text into something safe to display:

* only ``rich.text.Text`` objects are built (``Text(...)`` never parses
  markup), never markup strings;
* control characters are made *visible*: ESC becomes ``␛`` and the rest of
  the C0 range its Unicode "control picture", C1 controls and bidi overrides
  are shown as ``\\x9b`` / ``\\u202e`` escapes, so a hidden sequence is
  noticed instead of silently dropped.
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

__all__ = ["clean", "clean_line", "safe_text", "safe_line"]

# C0 controls except tab and newline, DEL, C1 controls, and the bidi
# embedding/override/isolate characters that can reorder what is displayed.
_CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_LINE_CONTROL_RE = re.compile("[\x00-\x1f\x7f\x80-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟ (ESC → ␛)
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def clean(text: str) -> str:
    """``text`` with every control character made visible (newlines and tabs kept)."""
    return _CONTROL_RE.sub(_visible, text)


def clean_line(text: str) -> str:
    """Like :func:`clean` but for one-line labels: newlines and tabs are made visible too."""
    return _LINE_CONTROL_RE.sub(_visible, text)


def safe_text(text: str, style: str | Style = "") -> Text:
    """A ``Text`` showing multi-line untrusted ``text`` literally."""
    return Text(clean(text), style=style, end="")


def safe_line(text: str, style: str | Style = "") -> Text:
    """A one-line ``Text`` showing untrusted ``text`` literally (for labels, tree nodes)."""
    return Text(clean_line(text), style=style, end="", no_wrap=True)
