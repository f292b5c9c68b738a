"""The object that keeps a :class:`~wikimem.retrieval.MemoryIndex`'s corpus level with its store's files.

Keeping the index level with the files is one concern apart from ranking,
so the keeper owns its state (the corpus in use, the store revision it
matches, the writes heard since, the diary's index); the index hands it the
store and the lock, and swaps in each new build through :meth:`adopt`. The
keeper never builds: callers build first (outside the lock), then ask.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

from wikimem.freshness.catch_up import apply_pending, own_write_current, reindex, stale_files
from wikimem.freshness.diary_index import DiaryIndex
from wikimem.freshness.pending import PendingWrites, unlisten, weak_listener
from wikimem.index.corpus.wiki import WikiCorpus
from wikimem.index.corpus.diary import DiaryCorpus
from wikimem.store.transaction import FileWrite

__all__ = ["FreshnessKeeper"]


class FreshnessKeeper:
    """A store's corpus, kept level with the files: writes heard, applied on demand, stat sweeps.

    ``lock`` is the index's (re-entrant) lock: every method that reads or
    edits the corpus takes it, and :meth:`fresh` expects it held.
    """

    def __init__(self, store: Any, lock: AbstractContextManager[Any]) -> None:
        self.store = store
        self._lock = lock
        self._corpus: WikiCorpus | None = None
        self._rev = getattr(store, "revision", None)
        #: Files written in this process since the last query (wikimem.freshness.pending).
        self._pending = PendingWrites()
        self._listener = weak_listener(self._on_write, store)
        #: The whole diary's index (built by the first diary-wide query).
        self._diary: DiaryIndex | None = None

    def _on_write(self, file: str, write: FileWrite | None = None) -> None:
        # Runs right after the store's commit (maybe in another thread): only
        # note the file and what the write did; the next query applies it.
        self._pending.note(file, write)

    @property
    def corpus(self) -> WikiCorpus | None:
        """The corpus in use as it is (writes heard since not applied); None before the first build."""
        return self._corpus

    def start_build(self) -> Any:
        """Forget the writes heard so far (a build reads them) and return the store revision the build will match.

        Writes from here on are either read by that build or re-applied
        (harmlessly: a diff) by the next query.
        """
        self._pending.take()
        return getattr(self.store, "revision", None)

    def adopt(self, corpus: WikiCorpus, rev: Any) -> None:
        """Use ``corpus``, built at store revision ``rev`` (from :meth:`start_build`), from now on."""
        with self._lock:  # a diary-wide query may be re-reading days: the diary is dropped after it, not under it
            self._corpus = corpus
            self._rev = rev
            if self._diary is not None:
                self._diary.forget()  # re-read by the next diary-wide query

    def current(self) -> WikiCorpus:
        """The corpus in use (the caller built it first)."""
        assert self._corpus is not None, "build the index first"
        return self._corpus

    def close(self) -> None:
        """Stop listening to the store's writes and the diary's appends."""
        if self._listener is not None:
            unlisten(self.store, self._listener)
        self._listener = None
        if self._diary is not None:
            self._diary.close()

    def refresh(self) -> list[str]:
        """Re-read only files whose stat changed, appeared or vanished; the RecallFiles whose indexed content changed, sorted.

        The whole diary's index, once built, is swept the same way.
        """
        with self._lock:
            corpus = self.current()
            changed = self._reindex(corpus, stale_files(self.store, corpus))
            if self._diary is not None:
                self._diary.refresh()
            return changed

    def refresh_diary(self, days: Iterable[str] | None = None) -> list[str]:
        """Re-read the given diary days, or (None) those whose stat moved; the days whose entries changed, sorted."""
        with self._lock:
            return self._diary.refresh(days) if self._diary is not None else []

    def refresh_files(self, files: Iterable[str], *, skip_own_writes: bool = False) -> list[str]:
        """Re-read the given RecallFiles; those whose indexed content changed, sorted (see ``MemoryIndex.refresh_files``)."""
        with self._lock:
            if not skip_own_writes:
                return self._reindex(self.current(), list(files))
            wanted = set(files)
            reread, changed = self._catch_up()  # a write that did not chain was re-read just now
            corpus = self.current()
            todo = [f for f in wanted - reread if not own_write_current(self.store, corpus, f)]
            return sorted(wanted.intersection(changed).union(self._reindex(corpus, todo)))

    def _reindex(self, corpus: WikiCorpus, files: Iterable[str]) -> list[str]:
        self._corpus, changed = reindex(self.store, corpus, files)
        return changed

    def fresh(self) -> WikiCorpus:
        """The corpus with every write heard of (or guessed) applied; the caller holds the lock."""
        self._catch_up()
        return self.current()  # compaction may have swapped the corpus

    def _catch_up(self) -> tuple[set[str], list[str]]:
        """Apply every write heard of: the files that had to be re-read for it, and those whose content changed."""
        rev = getattr(self.store, "revision", None)
        pending, heard = self._pending.take()
        reread: set[str] = set()
        changed: list[str] = []
        if pending:
            self._corpus, files, changed = apply_pending(self.store, self.current(), pending)
            reread.update(files)
        if rev != self._rev:
            if not isinstance(rev, int) or not isinstance(self._rev, int) or heard < rev - self._rev:
                changed += self.refresh()  # moved without telling us: trust the files' stats
            self._rev = rev
        return reread, changed

    def diary_corpus(self, new_diary_corpus: Callable[[], DiaryCorpus]) -> DiaryCorpus:
        """The whole diary's corpus, loaded by the first call from ``new_diary_corpus()`` (the caller holds the lock)."""
        if self._diary is None:
            self._diary = DiaryIndex(self.store.diary, new_diary_corpus)
        return self._diary.corpus()
