"""How a :class:`~wikimem.retrieval.MemoryIndex` keeps up with its store's files.

Two halves: :mod:`wikimem.freshness.pending` hears this process's writes
(which file, and its identity before/after, taken under the store lock)
and keeps them until the next query; :mod:`wikimem.freshness.catch_up`
re-reads those files into the corpus (a diff by item name), telling apart
the files nobody else wrote in between, and re-reads files whose stat
moved (another process's edits). :class:`~wikimem.freshness.keeper.FreshnessKeeper`
is the object an index holds for all this: it owns the corpus in use and
the writes heard, and does the catch-up before each query, ``refresh``,
``refresh_files`` and ``close`` under the lock the index gives it.
"""

from __future__ import annotations

from wikimem.freshness.catch_up import apply_pending, own_write_current, reindex, stale_files
from wikimem.freshness.keeper import FreshnessKeeper
from wikimem.freshness.pending import CHAIN_KEPT, PendingWrites, unlisten, weak_listener
from wikimem.freshness.diary_index import DiaryIndex

__all__ = [
    "CHAIN_KEPT", "DiaryIndex", "FreshnessKeeper", "PendingWrites", "apply_pending", "own_write_current", "reindex", "stale_files", "unlisten", "weak_listener",
]
