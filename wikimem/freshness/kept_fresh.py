"""The freshness calls of a :class:`~wikimem.retrieval.MemoryIndex`: hear writes, catch up, refresh, close.

Why a mixin of its own: everything that keeps the index level with the files
-- this process's writes heard and applied before the next query, a
watcher's files re-read, the stat sweep of :meth:`KeptFresh.refresh` --
is one concern apart from ranking, and the index class was twice the
project's file size with it. It works on the index's own corpus, lock and
pending writes (declared below, set by ``MemoryIndex.__init__``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

from wikimem.freshness.catch_up import apply_pending, own_write_current, reindex, stale_files
from wikimem.freshness.diary_index import DiaryIndex
from wikimem.freshness.pending import PendingWrites, unlisten
from wikimem.index.corpus import WikiCorpus
from wikimem.store.transaction import FileWrite

__all__ = ["KeptFresh"]


class KeptFresh:
    """Freshness for :class:`~wikimem.retrieval.MemoryIndex` (a mixin: the index owns what these read)."""

    store: Any
    _lock: AbstractContextManager[Any]
    _corpus: WikiCorpus | None
    _rev: Any
    _pending: PendingWrites
    _listener: Callable[..., None] | None
    _diary: DiaryIndex | None

    def _ensure_built(self) -> None:
        raise NotImplementedError

    def _ensure(self) -> WikiCorpus:
        raise NotImplementedError

    def _on_write(self, file: str, write: FileWrite | None = None) -> None:
        # Runs right after the store's commit (maybe in another thread): only
        # note the file and what the write did; the next query applies it.
        self._pending.note(file, write)

    def close(self) -> None:
        """Stop listening to the store's writes (the index still answers queries)."""
        if self._listener is not None:
            unlisten(self.store, self._listener)
        self._listener = None
        if self._diary is not None:
            self._diary.close()

    def refresh(self) -> list[str]:
        """Re-read only files whose stat changed, appeared or vanished.

        Returns the RecallFiles whose indexed content changed, sorted. Cheap
        (one ``stat`` per file) when nothing changed. The whole diary's
        index, once a diary-wide query built it, is swept the same way
        (:meth:`refresh_diary`).
        """
        self._ensure_built()
        with self._lock:
            corpus = self._ensure()
            changed = self._reindex(corpus, stale_files(self.store, corpus))
            if self._diary is not None:
                self._diary.refresh()
            return changed

    def refresh_diary(self, days: Iterable[str] | None = None) -> list[str]:
        """Re-read the given diary days (e.g. from a file watcher), or (None) those whose stat moved.

        Returns the days whose entries changed, sorted. A no-op until a
        diary-wide query (``search_diary=True``) built the diary's index:
        that load reads the files as they are then.
        """
        with self._lock:
            return self._diary.refresh(days) if self._diary is not None else []

    def refresh_files(self, files: Iterable[str], *, skip_own_writes: bool = False) -> list[str]:
        """Re-read the given RecallFiles (e.g. from a file watcher); returns those whose indexed content changed, sorted.

        Unconditionally by default. ``skip_own_writes=True`` is for a watcher
        that also sees this process's own writes (an app that writes through
        the store and watches the same files): this process's writes are
        applied first (their own edits, as a query would), and a file that is
        still exactly as the last of them left it -- its ``(mtime_ns, size,
        inode)`` now equal to the identity taken under the store lock right
        after that commit -- is not read again (the watcher's event was that
        write); any other file, or one written since by anyone else, is
        re-read. Files skipped this way are not in the returned list (their
        change was applied with the write).
        """
        self._ensure_built()
        with self._lock:
            if not skip_own_writes:
                return self._reindex(self._ensure(), list(files))
            wanted = set(files)
            reread, changed = self._catch_up()  # a write that did not chain was re-read just now
            corpus = self._ensure()
            todo = [f for f in wanted - reread if not own_write_current(self.store, corpus, f)]
            return sorted(wanted.intersection(changed).union(self._reindex(corpus, todo)))

    def _reindex(self, corpus: WikiCorpus, files: Iterable[str]) -> list[str]:
        self._corpus, changed = reindex(self.store, corpus, files)
        return changed

    def _fresh(self) -> WikiCorpus:
        """The corpus with every write heard of (or guessed) applied (wikimem.freshness)."""
        self._catch_up()
        return self._ensure()  # compaction may have swapped the corpus

    def _catch_up(self) -> tuple[set[str], list[str]]:
        """Apply every write heard of: the files that had to be re-read for it, and those whose content changed."""
        rev = getattr(self.store, "revision", None)
        pending, heard = self._pending.take()
        reread: set[str] = set()
        changed: list[str] = []
        if pending:
            self._corpus, files, changed = apply_pending(self.store, self._ensure(), pending)
            reread.update(files)
        if rev != self._rev:
            if not isinstance(rev, int) or not isinstance(self._rev, int) or heard < rev - self._rev:
                changed += self.refresh()  # moved without telling us: trust the files' stats
            self._rev = rev
        return reread, changed
