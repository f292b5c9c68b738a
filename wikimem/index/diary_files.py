"""The diary's day files in the shape a :class:`~wikimem.index.corpus.WikiCorpus` loads.

Design constraint: the whole diary must be searchable with its own
statistics, kept fresh the way the wiki is, without a second index engine.
A corpus only asks its source for ``files()``, ``file_stat(file)`` and
``file_items(file)``; this adapter answers with the day files: a "file" is
a day (``YYYY-MM-DD``), an "item" is an entry. A corpus keys items by name
within a file, and two entries may share a minute, so an entry's name in
the diary corpus is its heading *with* its ordinal, always spelled out
(``14:30#1``, ``14:30#2``): unique in its day, and read back unambiguously
by :func:`entry_of` (a hand-written heading may itself hold a ``#``; the
last one is the ordinal's). The corpus's diff on re-read then keeps the
doc of every entry whose text did not change, as it does for wiki items.

The adapter has no ``file_path``, so the corpus loads day by day (each
day's entries scanned as one batch), never with the wiki's bulk block
reader, whose names must be unique.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from wikimem.index.corpus import SEGMENT_DOCS, WikiCorpus
from wikimem.disk.names import is_time
from wikimem.models import DiaryItem, RecallItem, item_text
from wikimem.store import path_stat

__all__ = ["DiaryCorpus", "DiaryFiles", "entry_name", "entry_of"]


def entry_name(entry: DiaryItem) -> str:
    """An entry's name in the diary corpus: ``HH:MM#ordinal`` (see the module doc)."""
    return f"{entry.time}#{entry.ordinal}"


def _heading(name: str) -> str:
    return name.rpartition("#")[0]


def entry_of(item: RecallItem) -> DiaryItem:
    """The diary entry a diary-corpus item stands for (its day, heading, ordinal and provenance)."""
    time, _, ordinal = item.name.rpartition("#")
    return DiaryItem(item.file, time, item.content, item.owner, item.source_conv, item.ts, int(ordinal))


class DiaryFiles:
    """A diary seen as RecallFiles of entries: ``files()`` are its days, ``file_items(day)`` its entries."""

    def __init__(self, diary: Any) -> None:
        self.diary = diary
        self._dir = os.fspath(diary.dir)

    def files(self) -> list[str]:
        """The days that have a file, ascending."""
        dates: list[str] = self.diary.dates()
        return dates

    def file_stat(self, day: str) -> tuple[int, int] | None:
        """``(mtime_ns, size)`` of a day file, or ``None``: the change detector the corpus compares."""
        return path_stat(os.path.join(self._dir, f"{day}.md"))

    def file_items(self, day: str) -> list[RecallItem]:
        """A day's entries as items named ``HH:MM#ordinal``, in file order."""
        return [
            RecallItem(day, entry_name(e), e.content, e.owner, e.source_conv, e.ts)
            for e in self.diary.day(day)
        ]


class DiaryCorpus(WikiCorpus):
    """A corpus of diary entries: indexes ``HH:MM`` + content, as a window entry is scored.

    The ordinal in an entry's corpus name only keeps names unique; it is
    not a search word (``as_recall_item`` names a diary row by its minute).
    """

    def text(self, item: RecallItem) -> str:
        return item_text(_heading(item.name), item.content)

    def load(self, store: Any, progress: Callable[[int, int], None] | None = None) -> None:
        """Cold load of every day of ``store`` (a :class:`DiaryFiles`), ``SEGMENT_DOCS`` entries a batch.

        A diary is many small files: scanned one by one, each would be an
        index segment of its own, and a term's first search would pay a
        step per day.
        """
        days = store.files()
        group: list[tuple[str, list[RecallItem], tuple[int, int] | None]] = []
        size = 0
        if self.words is not None:
            self.words.begin()
        for done, day in enumerate(days, 1):
            stat = store.file_stat(day)  # before the read: a write during the load moves it again
            items = store.file_items(day)
            group.append((day, items, stat))
            size += len(items)
            if size >= SEGMENT_DOCS:
                self.load_files(group)
                group, size = [], 0
            if progress is not None:
                progress(done, len(days))
        if group:
            self.load_files(group)
        if self.words is not None:
            self.words.end()
        self.index.loaded(len(self.items))

    def window(self, start: str, end: str) -> list[tuple[int, DiaryItem]]:
        """The entries from ``start`` to ``end`` inclusive with their docs, chronological (as ``Diary.window`` orders them).

        Read from the corpus, not the files: a window of a large diary costs
        no file IO once the diary is indexed.
        """
        out: list[tuple[int, DiaryItem]] = []
        for day in sorted(d for d in self.files() if start <= d <= end):
            rows = []
            for doc in self._name_map(day).values():
                item = self.items[doc]
                if item is not None:
                    rows.append((doc, entry_of(item)))
            rows.sort(key=lambda row: row[1].time if is_time(row[1].time) else "99:99")
            out.extend(rows)
        return out
