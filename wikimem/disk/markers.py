"""Git conflict markers in a memory file: one detector for lint, the writers and the baseline.

A conflicted merge leaves both versions in the file between marker lines,
which the block parser reads as content: lint reports it
(``conflict-markers``), ``--fix`` never accepts it into the baseline, and a
write must not rewrite it as if it were one version. ``=======`` and
``|||||||`` alone are ordinary Markdown (a setext underline, a table rule),
so they count only in a file that also holds a ``<<<<<<<`` or ``>>>>>>>``
line. Lint asks this of every file, so the common answer is two substring
searches.
"""

from __future__ import annotations

import re

__all__ = ["conflict_lines", "has_conflict_markers"]

_OPEN, _CLOSE = "<<<<<<<", ">>>>>>>"
_STRONG_RE = re.compile(r"^(?:<{7}|>{7})(?:[ \t][^\n]*)?$", re.M)
_ANY_RE = re.compile(r"^(?:<{7}|>{7}|={7}|\|{7})(?:[ \t][^\n]*)?$", re.M)
_STRONG_BYTES_RE = re.compile(rb"^(?:<{7}|>{7})(?:[ \t][^\n]*)?$", re.M)


def has_conflict_markers(text: str | bytes) -> bool:
    """True when ``text`` (a file's text, or its bytes) holds a ``<<<<<<<`` or ``>>>>>>>`` marker line."""
    if isinstance(text, (bytes, bytearray)):
        if b"<<<<<<<" not in text and b">>>>>>>" not in text:
            return False
        return _STRONG_BYTES_RE.search(text.replace(b"\r", b"")) is not None
    if _OPEN not in text and _CLOSE not in text:
        return False
    return _STRONG_RE.search(text.replace("\r", "")) is not None


def conflict_lines(text: str) -> list[int]:
    """The 1-based numbers of the marker lines in ``text`` ([] when it holds no conflict)."""
    if not has_conflict_markers(text):
        return []
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [text.count("\n", 0, match.start()) + 1 for match in _ANY_RE.finditer(text)]
