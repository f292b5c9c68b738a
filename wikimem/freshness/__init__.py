"""How a :class:`~wikimem.retrieval.MemoryIndex` keeps up with its store's files.

Two halves: :mod:`wikimem.freshness.pending` hears this process's writes
(which file, and its identity before/after, taken under the store lock)
and keeps them until the next query; :mod:`wikimem.freshness.catch_up`
re-reads those files into the corpus (a diff by item name), telling apart
the files nobody else wrote in between, and re-reads files whose stat
moved (another process's edits). :class:`~wikimem.freshness.kept_fresh.KeptFresh`
holds the index's calls for all this (``refresh``, ``refresh_files``,
``close``, the catch-up before each query). The index owns the corpus and
its lock; these modules apply writes under that lock.
"""

from __future__ import annotations

from wikimem.freshness.catch_up import apply_pending, own_write_current, reindex, stale_files
from wikimem.freshness.kept_fresh import KeptFresh
from wikimem.freshness.pending import CHAIN_KEPT, PendingWrites, unlisten, weak_listener
from wikimem.freshness.diary_index import DiaryIndex

__all__ = [
    "CHAIN_KEPT", "DiaryIndex", "KeptFresh", "PendingWrites", "apply_pending", "own_write_current", "reindex", "stale_files", "unlisten", "weak_listener",
]
