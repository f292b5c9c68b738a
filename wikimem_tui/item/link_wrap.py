"""Wrapping that never breaks a line inside a ``[[wiki link]]``.

Textual wraps text at whitespace only, and folds a "word" wider than what is
left of the line by the cell. A link glued to the text before it (Chinese has
no spaces: ``想去海边玩。[[daily_life:beach-trip-plan]]``) is then cut in the
middle, and a link whose name holds a space breaks at that space: the reader
sees two halves of an address, neither of which names anything.

:class:`KeptWhole` is the item view's body as Textual ``Content`` (so it is
still plain text and styled spans, its clicks and selection working as
before) that breaks lines itself, at the width it is drawn at: a link is one
unit, with a break allowed before and after it even without a space; only a
link wider than the whole line is folded (there is no other way to show it).
Outside links, breaks are Textual's: after whitespace, or by the cell when a
word is wider than the line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.cells import cell_len, chop_cells
from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions

__all__ = ["LINK_RE", "KeptWhole", "break_offsets"]

#: What is kept whole: a ``[[…]]`` on one line (the item view's link candidates).
LINK_RE = re.compile(r"\[\[[^\[\]\n]*\]\]")
_WORD_START_RE = re.compile(r"(?<=\s)\S")


def break_offsets(line: str, width: int, atoms: Sequence[tuple[int, int]] = ()) -> list[int]:
    """Where ``line`` (no newline) is broken to fit ``width`` cells, never inside an atom.

    ``atoms`` are ``(start, end)`` spans of ``line`` kept on one line (unless
    one alone is wider than ``width``: then it is folded by the cell).
    """
    if width <= 0 or cell_len(line) <= width:
        return []
    inside = {i for start, end in atoms for i in range(start + 1, end)}
    points = {m.start() for m in _WORD_START_RE.finditer(line)}
    points.update(edge for start, end in atoms for edge in (start, end))
    starts = sorted(p for p in points if 0 < p < len(line) and p not in inside)
    breaks: list[int] = []
    used = 0
    for start, end in zip([0, *starts], [*starts, len(line)]):
        unit = line[start:end]
        shown = cell_len(unit.rstrip())
        if used + shown <= width:
            used += cell_len(unit)
            continue
        if shown > width:  # wider than any line: fold it, as Textual folds a long word
            pieces = chop_cells(unit, width)
            for piece in pieces[:-1]:
                if start:
                    breaks.append(start)
                start += len(piece)
            if start:
                breaks.append(start)
            used = cell_len(pieces[-1])
            continue
        if start:
            breaks.append(start)
        used = cell_len(unit)
    return sorted(set(breaks))


def _broken(content: Content, width: int) -> Content:
    """``content`` with a newline at each break for ``width``; the space a break replaces is dropped."""
    lines: list[Content] = []
    for line in content.split("\n", allow_blank=True):
        plain = line.plain
        atoms = [m.span() for m in LINK_RE.finditer(plain)]
        pieces = line.divide(break_offsets(plain, width, atoms))
        lines.extend([piece.rstrip() for piece in pieces[:-1]] + [pieces[-1]])
    return Content("\n").join(lines)


class KeptWhole(Content):
    """Content whose lines break outside ``[[…]]`` links (see the module docstring)."""

    def __init__(self, content: Content) -> None:
        super().__init__(content.plain, list(content.spans), content.cell_length, strip_control_codes=False)
        self._at_width: tuple[int, Content] | None = None

    @classmethod
    def of(cls, content: Content) -> KeptWhole:
        """``content`` kept whole (a named constructor: Content's own ``from_*`` return plain Content)."""
        return cls(content)

    def lines_at(self, width: int) -> Content:
        """The content as drawn ``width`` cells wide: its lines already broken (cached for the last width)."""
        if self._at_width is None or self._at_width[0] != width:
            self._at_width = (width, _broken(self, width))
        return self._at_width[1]

    def get_height(self, rules: RulesMap, width: int) -> int:
        """The height of the broken lines (Textual asks before drawing, for ``height: auto``)."""
        pad = rules.get("line_pad", 0) * 2
        return self.lines_at(width - pad).get_height(rules, width)

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        """Draw the broken lines: each fits ``width``, so Textual's own wrap leaves them as they are."""
        pad = options.rules.get("line_pad", 0) * 2
        return self.lines_at(width - pad).render_strips(width, height, style, options)
