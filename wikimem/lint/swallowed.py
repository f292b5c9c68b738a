"""What the block parser swallows without a word: git conflict markers, metadata fields joined by ';'.

Both read as perfectly valid memory -- a conflict is two versions of a
block in its content, ``<!-- wikimem: owner=a; source=b -->`` an owner
``a; source=b`` -- so neither the parser nor the block checks ever see a
problem. These checks look for the give-away in the facts a scan already
has, and cost two substring searches and one join per file when there is
nothing to find (a full lint of 100k items must not notice them).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Protocol

from wikimem.lint.findings import Finding, make_finding
from wikimem.disk.markers import conflict_lines

__all__ = ["conflict_finding", "may_conflict", "separator_findings", "swallowed", "values_hold"]


class Named(Protocol):
    """What the separator check reads of an item (:class:`wikimem.lint.scan.ItemFacts` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def owner(self) -> str | None: ...
    @property
    def source_conv(self) -> str | None: ...

# A metadata value that swallowed the next field: "a; source=b" (fields joined by ";").
_SWALLOWED_RE = re.compile(r";\s*(?:owner|source|source_conv|ts)\s*=", re.I)
# What wikimem.disk.markers looks for first: a file with neither holds no conflict.
_OPEN_MARKER, _CLOSE_MARKER = "<<<<<<<", ">>>>>>>"


def may_conflict(text: str) -> bool:
    """The cheap first test: only a file holding ``<<<<<<<`` or ``>>>>>>>`` can hold a conflict."""
    return _OPEN_MARKER in text or _CLOSE_MARKER in text


def conflict_finding(path: str, text: str, names: Sequence[str], heads: Sequence[int]) -> Finding | None:
    """The ``conflict-markers`` error of a file holding git conflict markers (see :mod:`wikimem.disk.markers`)."""
    lines = conflict_lines(text)
    if not lines:
        return None
    at = bisect_right(heads, lines[0]) - 1
    shown = ", ".join(map(str, lines[:8])) + (", …" if len(lines) > 8 else "")
    return make_finding(
        "conflict-markers", path, f"git conflict markers on line{'s' if len(lines) > 1 else ''} {shown}: "
        "the file holds two versions of itself; keep one side, delete the marker lines (--fix never accepts "
        "or rewrites such a file)", line=lines[0], item=names[at] if at >= 0 else None)


def swallowed(value: str) -> bool:
    """True when a metadata value swallowed another field (``a; source=b``)."""
    return _SWALLOWED_RE.search(value) is not None


def values_hold(needle: str, values: list[str | None]) -> bool:
    """True when some value contains ``needle`` (one C-level join; None values are rare)."""
    try:
        return needle in "".join(values)  # type: ignore[arg-type]
    except TypeError:
        return needle in "".join(filter(None, values))


def separator_findings(path: str, items: Sequence[Named], line_at: Callable[[int], int]) -> list[Finding]:
    """``malformed-meta`` for each block whose owner or source swallowed the fields after it.

    ``line_at(index)`` is the line of block ``index``'s metadata comment.
    """
    out = []
    for index, item in enumerate(items):
        for key, value in (("owner", item.owner), ("source", item.source_conv)):
            if value is None or not swallowed(value):
                continue
            fixed = " | ".join(part.strip() for part in f"{key}={value}".split(";"))
            out.append(make_finding(
                "malformed-meta", path, f"metadata comment: the fields are separated by ';' instead of '|', so "
                f"{key} reads as {value[:60]!r} and the fields after it are lost; write <!-- wikimem: {fixed[:80]} -->",
                line=line_at(index), item=item.name, fixable=False))
            break
    return out
