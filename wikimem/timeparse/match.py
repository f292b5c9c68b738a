"""What the time-word parser found in a text: the window, and where its words are.

Why a module of its own: the parser (:mod:`wikimem.timeparse`'s rules) decides
*which* window a text names; retrieval needs, besides the window, the
offsets of the words that named it, to take them out of the scored query
(:mod:`wikimem.ranking.pipeline`'s time gate) and to show them. That is a
small value type with its own rules about offsets and joining, shared by
both sides and independent of every parsing rule. Frozen, so a remembered
match (the pipeline keeps them per query text) is safe to share.
"""

from __future__ import annotations

from dataclasses import dataclass

from wikimem.models import TimeRange

__all__ = ["TimeMatch"]


@dataclass(frozen=True)
class TimeMatch:
    """A window read from a text, and where in the text its time words are.

    ``spans`` are ``(start, end)`` character offsets into the text that was
    parsed, ascending and disjoint: every time expression the parser
    recognised -- the ones that set the window and any less specific ones
    it outranked (``上周三 7月``: both are time words, the day wins). Retrieval
    removes them from the scored query, so a word that picked the diary
    window does not also vote as a search word.
    """

    time_range: TimeRange
    spans: tuple[tuple[int, int], ...]

    def words(self, text: str) -> list[str]:
        """The time expressions as they appear in ``text`` (the parsed text)."""
        return [text[start:end] for start, end in self.spans]

    def strip(self, text: str) -> str:
        """``text`` with each time expression replaced by one space.

        A space, not nothing, so the words on either side do not join into
        a new token (``上周钢琴`` must not give a bigram ``周钢``).
        """
        parts, last = [], 0
        for start, end in self.spans:
            parts.append(text[last:start])
            last = end
        parts.append(text[last:])
        return " ".join(parts)
