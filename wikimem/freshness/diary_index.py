"""The whole diary as an index of its own, built on first use and kept level with the day files.

A diary-wide query must rank entries with the diary's own statistics, never
the wiki's, and must not re-read every day file per query. A
:class:`~wikimem.index.corpus.diary.DiaryCorpus` is a ``WikiCorpus`` whose
files are days, so the wiki's machinery serves it unchanged, and freshness
follows the wiki's rules: this process's appends are heard and only their
day is re-read; others' changes are picked up by :meth:`DiaryIndex.refresh`
(one ``stat`` per day file). The caller holds the index lock for every call
here except the listener, which only notes the day.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

from wikimem.disk.loader import gc_paused
from wikimem.freshness.catch_up import reindex, stale_files
from wikimem.freshness.pending import PendingWrites, unlisten, weak_listener
from wikimem.index.corpus.diary import DiaryCorpus, DiaryFiles
from wikimem.store.transaction import FileWrite

__all__ = ["DiaryIndex"]


class DiaryIndex:
    """The diary's corpus: built by the first :meth:`corpus` call, then kept fresh."""

    def __init__(self, diary: Any, make: Callable[[], DiaryCorpus]) -> None:
        self.files = DiaryFiles(diary)
        self._diary = diary
        self._make = make
        self._corpus: DiaryCorpus | None = None
        self._pending = PendingWrites()
        self._listener = weak_listener(self._on_append, diary)

    def _on_append(self, day: str, write: FileWrite | None = None) -> None:
        self._pending.note(day)  # the day is re-read by the next query

    def corpus(self) -> DiaryCorpus:
        """The diary's corpus with every heard append applied (loaded on the first call)."""
        if self._corpus is None:
            self._pending.take()  # the load reads them
            corpus = self._make()
            with gc_paused():  # a load makes an object per entry: the cyclic GC would walk them again and again
                corpus.load(self.files)
            self._corpus = corpus
            return corpus
        days, _ = self._pending.take()
        if days:
            self._reindex(days)
        return self._corpus

    def _reindex(self, days: Iterable[str]) -> list[str]:
        assert self._corpus is not None
        corpus, changed = reindex(self.files, self._corpus, days)
        self._corpus = cast(DiaryCorpus, corpus)
        return changed

    def refresh(self, days: Iterable[str] | None = None) -> list[str]:
        """Re-read the given days, or (None) those whose stat moved, appeared or vanished; the days whose entries changed.

        Nothing to do before the first diary-wide query: the load reads the files as they are then.
        """
        if self._corpus is None:
            return []
        heard, _ = self._pending.take()
        wanted = stale_files(self.files, self._corpus) if days is None else days
        return self._reindex({*heard, *wanted})

    def forget(self) -> None:
        """Drop the corpus (a rebuild): the next diary-wide query loads the diary again."""
        self._corpus = None

    def close(self) -> None:
        """Stop hearing the diary's appends."""
        if self._listener is not None:
            unlisten(self._diary, self._listener)
        self._listener = None
