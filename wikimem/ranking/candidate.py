"""One ranked candidate, the unit every ranking stage reads and adds to.

BM25's top ``pool``, the nearest vectors, and the diary entries of a time
window all become a :class:`Candidate`; fusion (:mod:`wikimem.ranking.semantic`),
the re-ranking signals (:mod:`wikimem.ranking.context`,
:mod:`wikimem.ranking.feedback`, :mod:`wikimem.ranking.link_context`), the
floor, the explain rows and the why-not diagnosis all read the same fields,
so it lives in a module of its own rather than in any one of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wikimem.models import RecallItem

__all__ = ["Candidate"]


@dataclass
class Candidate:
    """One ranked candidate before expansion: a wiki doc (``doc >= 0``) or diary entry."""

    key: tuple[Any, ...]
    item: RecallItem
    doc: int | None
    score: float = 0.0
    bm25: float = 0.0
    cos: float | None = None
    #: What its file neighbours add to its lexical score (:mod:`wikimem.ranking.context`), and the best of them.
    context: float = 0.0
    context_via: str | None = None
    #: The added terms' share of its BM25 (:mod:`wikimem.ranking.feedback`).
    feedback: float = 0.0
    #: What the candidates it links to or from add (:mod:`wikimem.ranking.link_context`), and the best of them.
    link: float = 0.0
    link_via: str | None = None

    @property
    def lexical(self) -> float:
        """The lexical side of fusion: BM25 plus every re-ranking signal built on it."""
        return self.bm25 + self.context + self.feedback + self.link
