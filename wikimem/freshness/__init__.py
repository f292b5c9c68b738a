"""How a :class:`~wikimem.retrieval.MemoryIndex` keeps up with its store's files.

Two halves: :mod:`wikimem.freshness.pending` hears this process's writes
(each commit's own block edits and the file's identity before/after, taken
under the store lock) and keeps them until the next query;
:mod:`wikimem.freshness.catch_up` applies them to the corpus -- a write's
edits when its chain of identities shows nobody else wrote the file in
between, else a re-read of that file -- and re-reads files whose stat moved
(another process's edits). :class:`~wikimem.freshness.keeper.FreshnessKeeper`
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
