"""The query pane's messages to itself, from its workers: an answer, an index swapped in.

Posted from thread workers (``post_message`` is thread-safe) and handled
on the event loop, so a worker never touches a widget. They keep the
pane's namespace (``on_query_panel_results``…) and are reachable as
``QueryPanel.Results`` / ``QueryPanel.IndexSwapped``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from wikimem import RetrievalResult

if TYPE_CHECKING:
    from wikimem import WhyNot

__all__ = ["IndexSwapped", "Results"]


class Results(Message, namespace="query_panel"):
    """A finished retrieval (from the worker thread); ``why`` when an item is pinned."""

    def __init__(self, seq: int, result: RetrievalResult | None, ms: float, error: str = "", why: WhyNot | None = None) -> None:
        super().__init__()
        self.seq, self.result, self.ms, self.error, self.why = seq, result, ms, error, why


class IndexSwapped(Message, namespace="query_panel"):
    """The index was rebuilt (``ok``) with another tokenizer, or could not be."""

    def __init__(self, note: str, ok: bool = True) -> None:
        super().__init__()
        self.note, self.ok = note, ok
