"""One ranked candidate, the unit every ranking stage reads and adds to.

BM25's top ``pool``, the nearest vectors, and the diary entries of a time
window all become a :class:`Candidate`; fusion (:mod:`wikimem.ranking.semantic`),
file context (:mod:`wikimem.ranking.context`), the floor, the explain rows and the why-not diagnosis all read the same fields,
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

    @property
    def lexical(self) -> float:
        """The lexical side of fusion: BM25 plus file context, which is built on it."""
        return self.bm25 + self.context
