"""How a :class:`~wikimem.retrieval.MemoryIndex` keeps up with its store's files.

:mod:`~wikimem.freshness.pending` hears this process's writes and keeps them
until the next query; :mod:`~wikimem.freshness.catch_up` re-reads those
files, and files whose stat moved, into the corpus;
:class:`~wikimem.freshness.keeper.FreshnessKeeper` is the object an index
holds for all this.
"""

from __future__ import annotations

from wikimem.freshness.catch_up import apply_pending, own_write_current, reindex, stale_files
from wikimem.freshness.keeper import FreshnessKeeper
from wikimem.freshness.pending import CHAIN_KEPT, PendingWrites, unlisten, weak_listener
from wikimem.freshness.diary_index import DiaryIndex

__all__ = [
    "CHAIN_KEPT", "DiaryIndex", "FreshnessKeeper", "PendingWrites", "apply_pending", "own_write_current", "reindex", "stale_files", "unlisten", "weak_listener",
]
