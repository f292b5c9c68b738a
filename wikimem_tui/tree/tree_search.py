"""The tree filter's content search: which items and diary days contain a text.

Names are matched on the UI thread from the catalogue (cheap); content needs
every file read, so it runs in a thread worker and reads through this cache.
A file is re-read only when its (mtime, size) signature changed, so the
second filter on a 100k-item store costs a scan of lowered strings, not a
re-read of the disk. Knows nothing about Textual: the worker calls ``scan``
and hands the result to the tree.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikimem import path_stat

__all__ = ["ContentHits", "ContentSearch"]

Signature = tuple[int, int] | None
Texts = list[tuple[str, str]]
"""``(name or HH:MM, lowered content)`` per item, in file order."""


@dataclass
class ContentHits:
    """Items (per RecallFile, in file order) and diary days whose text contains the filter."""

    text: str
    items: dict[str, list[str]] = field(default_factory=dict)
    days: list[str] = field(default_factory=list)
    complete: bool = True
    """False when the scan was stopped before it read everything."""

    def count(self) -> int:
        """Items plus days found."""
        return sum(len(names) for names in self.items.values()) + len(self.days)


class ContentSearch:
    """Lowered item texts per file, refreshed by file signature; thread-safe."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self._files: dict[str, tuple[Signature, Texts]] = {}
        self._days: dict[str, tuple[Signature, Texts]] = {}
        self._lock = threading.Lock()

    def _texts(self, cache: dict[str, tuple[Signature, Texts]], key: str, path: Path,
               read: Callable[[], Texts]) -> Texts:
        sig = path_stat(path)
        with self._lock:
            cached = cache.get(key)
        if cached is not None and cached[0] == sig and sig is not None:
            return cached[1]
        texts = read() if sig is not None else []
        with self._lock:
            cache[key] = (sig, texts)
        return texts

    def file_texts(self, file: str) -> Texts:
        """The lowered content of every item of ``file`` (names are the catalogue's business)."""
        def read() -> Texts:
            return [(i.name, i.content.casefold()) for i in self.store.items(file)]

        return self._texts(self._files, file, self.store.file_path(file), read)

    def day_texts(self, date: str) -> Texts:
        """The lowered content of every entry of the diary day ``date``."""
        diary = self.store.diary

        def read() -> Texts:
            return [(e.time, e.content.casefold()) for e in diary.day(date)]

        return self._texts(self._days, date, diary.path(date), read)

    def scan(
        self,
        text: str,
        files: Iterable[str],
        dates: Iterable[str],
        *,
        should_stop: Callable[[], bool] = lambda: False,
        progress: Callable[[int, int], None] | None = None,
    ) -> ContentHits:
        """Every item of ``files`` and day of ``dates`` whose text contains ``text`` (casefolded)."""
        needle = text.casefold()
        files, dates = list(files), list(dates)
        hits = ContentHits(text)
        total = len(files) + len(dates)
        for done, file in enumerate(files, 1):
            if should_stop():
                hits.complete = False
                return hits
            found = [name for name, body in self.file_texts(file) if needle in body]
            if found:
                hits.items[file] = found
            if progress is not None:
                progress(done, total)
        for done, date in enumerate(dates, len(files) + 1):
            if should_stop():
                hits.complete = False
                return hits
            if any(needle in body for _, body in self.day_texts(date)):
                hits.days.append(date)
            if progress is not None:
                progress(done, total)
        return hits
