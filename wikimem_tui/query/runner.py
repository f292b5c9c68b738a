"""Who may ask the index, and whose answer is shown: the newest query wins, one query at a time.

Retrieval is synchronous and may block (a cold 100k-item index takes
seconds), so the query pane asks in thread workers; the index is not
promised to be thread-safe, so every use of it -- a query, a knob that
changes it (fusion weight, cosine floor), swapping in an index rebuilt
with another tokenizer -- holds :attr:`QueryRunner.lock`. Each query gets a
sequence number: one whose number is no longer the newest by the time it
gets the lock skips the call, and an answer for an older number is
dropped, so a slow query can never overwrite a newer one. No Textual
here: the pane's worker calls :meth:`QueryRunner.answer`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wikimem import RetrievalResult
from wikimem_tui.core.backend import Backend

if TYPE_CHECKING:
    from wikimem import WhyNot

__all__ = ["Answer", "QueryRunner"]


@dataclass(frozen=True)
class Answer:
    """What one query found, how long the index took, and (an item pinned) its verdict."""

    result: RetrievalResult
    ms: float
    why: WhyNot | None = None


class QueryRunner:
    """The query pane's sequence numbers and the one lock around its index."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        """Held around every use of the index (queries, knob changes, swapping it)."""
        self.seq = 0
        """The newest query's number; answers for older ones are dropped."""

    def next(self) -> int:
        """A number for a new query (every older one is now stale)."""
        self.seq += 1
        return self.seq

    def swap(self, backend: Backend, index: Any, use_jieba: bool) -> None:
        """Put a rebuilt ``index`` in the old one's place (no query is running then) and close the old one."""
        with self.lock:
            old, backend.index, backend.use_jieba = backend.index, index, use_jieba
        if hasattr(old, "close"):
            old.close()

    def adjust(self, backend: Backend, change: Callable[[Any], None], needs: str | None = None) -> None:
        """Change the index in force (a knob: fusion weight, cosine floor) between queries; not if it lacks ``needs``."""
        index = backend.index
        if index is not None and (needs is None or hasattr(index, needs)):
            with self.lock:
                change(index)

    def answer(self, backend: Backend, seq: int, query: str, knobs: dict[str, Any],
               pinned: tuple[str, str] | None, cancelled: Callable[[], bool]) -> Answer | None:
        """Run query ``seq`` (None when a newer one superseded it while it waited); the index's errors propagate.

        The index is the backend's at the time the lock is taken (a swap
        holds the lock too). With an item ``pinned`` it is asked ``why_not``
        -- the same pipeline run -- so the verdict is about the rows shown.
        """
        with self.lock:
            if seq != self.seq or cancelled():
                return None  # superseded while waiting
            started = time.perf_counter()
            index = backend.index
            why = None
            if pinned is not None:
                why = index.why_not(query, *pinned, **knobs)
                result = why.result
            else:
                result = index.retrieve(query, explain=True, **knobs)
        return Answer(result, (time.perf_counter() - started) * 1000, why)
