"""Git conflict markers in a memory file: one detector for lint, the writers and the baseline.

A memory directory is often a git repository, and a merge that conflicts
leaves both versions in the file between marker lines::

    <<<<<<< HEAD
    ours
    ||||||| base        (diff3 style only)
    =======
    theirs
    >>>>>>> branch

The block parser reads that as content, so nothing looks wrong, but the file
holds two versions of itself: lint reports it (``conflict-markers``, an
error), ``--fix`` never accepts it into the baseline, and a write must not
rewrite it as if it were one version. A marker line is the marker's seven
characters at the start of a line, alone or followed by a space and a label.
``=======`` and ``|||||||`` alone are ordinary Markdown (a setext underline,
a table rule), so they count only in a file that also holds a ``<<<<<<<`` or
``>>>>>>>`` line.

Speed: lint asks this of every file of the store, so the common answer (no
``<<<<<<<`` and no ``>>>>>>>`` anywhere) is two substring searches.
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
