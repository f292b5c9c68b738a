"""What a vector-cache sync will cost, said before it starts.

Embedding a large store takes hours with an offline model and costs money
with an endpoint, so a caller must be able to show "N of M items to embed,
about T" *without* embedding anything: planning only hashes texts and reads
the cache's keys, and the estimate comes from the embedder
(``estimate_seconds``, ``None`` when it cannot estimate for free).

It also defines the one text embedded for an item, so no caller spells it itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from wikimem.models import item_text

__all__ = [
    "Entry",
    "Progress",
    "SyncCancelled",
    "SyncPlan",
    "content_hash",
    "embed_text",
    "entries_for",
    "estimate_seconds",
    "format_duration",
]

#: ``((file, name), embedded text)``: one row of a cache sync.
Entry = tuple[tuple[str, str], str]
#: ``progress(done, total)``: texts embedded so far out of those to embed.
Progress = Callable[[int, int], None]


class _Item(Protocol):
    file: str
    name: str
    content: str


#: The text that is embedded (and hashed) for an item: ``name\\ncontent``, as
#: indexed by BM25 (:func:`wikimem.models.item_text`, the one definition).
embed_text = item_text


def content_hash(text: str) -> str:
    """sha256 hex of the UTF-8 text: the cache key of one embedded row."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def entries_for(items: Iterable[_Item]) -> list[Entry]:
    """Cache-sync entries for wiki items (``RecallItem``s, or diary entries as such)."""
    return [((item.file, item.name), embed_text(item.name, item.content)) for item in items]


class SyncCancelled(Exception):
    """A sync stopped by ``should_stop`` between batches.

    What was embedded before the stop is already in the cache (a valid cache
    holding a subset of the entries), so the next sync embeds only the rest.
    An ``Exception``, so retrieval's fail-open handling treats a cancelled
    sync like any embedding failure: BM25 for that query.
    """

    def __init__(self, done: int, total: int) -> None:
        super().__init__(f"vector sync cancelled after {done} of {total} texts")
        self.done = done
        self.total = total


@dataclass(frozen=True)
class SyncPlan:
    """The cost of making a cache hold some entries, computed without embedding.

    ``to_embed`` counts distinct texts (two items with the same text embed
    once), so ``reused + to_embed`` can be less than ``entries``.
    """

    #: Entries the cache will hold.
    entries: int
    #: Distinct texts that need an embedding call.
    to_embed: int
    #: Entries whose row is already cached (no call).
    reused: int
    #: Characters to embed (what an endpoint bills, roughly).
    chars: int
    #: Estimated wall time of the embedding calls; ``None`` when unknown.
    est_seconds: float | None
    #: Set when the cache was built by another model: nothing is reused, and
    #: retrieval will not sync such a cache by itself (see ``cache_mismatch``).
    mismatch: str | None = None

    @property
    def up_to_date(self) -> bool:
        """Nothing to embed."""
        return self.to_embed == 0

    def describe(self) -> str:
        """One line for a person: ``"120 of 5,000 items to embed (~2 min)"``."""
        if self.up_to_date:
            return f"all {self.entries:,} items embedded"
        text = f"{self.to_embed:,} of {self.entries:,} items to embed"
        if self.est_seconds is not None:
            text += f" (~{format_duration(self.est_seconds)})"
        return text


def format_duration(seconds: float) -> str:
    """``"45 s"``, ``"12 min"``, ``"3.5 h"``: the precision an estimate deserves."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def estimate_seconds(embedder: Any, texts: Sequence[str]) -> float | None:
    """The embedder's own estimate for ``texts``, or ``None`` when it cannot give one free."""
    if not texts:
        return 0.0
    estimate = getattr(embedder, "estimate_seconds", None)
    if not callable(estimate):
        return None
    seconds = estimate(texts)
    return float(seconds) if seconds is not None else None
