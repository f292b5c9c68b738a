"""The curation questions the item area asks (audit, retraction), answered from one warm snapshot.

``wikimem.audit`` and ``wikimem.retraction`` read the whole memory when
handed a path. The app asks them again after every edit, so it keeps one
``wikimem.lint.Snapshot`` and refreshes it before each question: only files
whose ``(mtime_ns, size)`` changed, or that a store change named
(:meth:`CurationReader.changed`: an edit that keeps both is still seen), are
re-read, so on a big store an audit costs the edit, not the store. The snapshot is not thread-safe and the
questions run in thread workers, so each one holds a lock from refresh to
answer. Nothing here writes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from wikimem import DiaryItem, audit, retraction
from wikimem.curation import Audit, CaptureChain, Dependent, EntryRef, capture_chain
from wikimem.lint import Snapshot
from wikimem_tui.core.changes import StoreChange

__all__ = ["CurationReader", "EntryCiters"]


@dataclass(frozen=True)
class EntryCiters:
    """One diary entry of a day (what an evidence line cites), and what rests on it.

    One entry, not its minute: two entries of 14:30 are two of these, each
    with only the items citing it (``diary DAY 14:30`` / ``… 14:30#2``).
    """

    entry: DiaryItem
    dependents: tuple[Dependent, ...]

    @property
    def date(self) -> str:
        """The entry's day."""
        return self.entry.date

    @property
    def key(self) -> str:
        """The entry's ``HH:MM[#n]`` (``EntryId.key``)."""
        return self.entry.entry_id.key


class CurationReader:
    """Audit and retraction over a snapshot of ``root`` kept warm between questions."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._snapshot: Snapshot | None = None
        self._lock = threading.Lock()
        self._changed_lock = threading.Lock()  # the UI thread adds while a question may be running
        self._changed: set[str] = set()

    def changed(self, change: StoreChange) -> None:
        """Remember the files a store change names: the next question re-reads them whatever their stat says."""
        with self._changed_lock:
            self._changed.update(f"wiki/{f}.md" for f in change.wiki_files)
            self._changed.update(f"diary/{d}.md" for d in change.diary_dates)

    def _fresh(self) -> Snapshot:
        """The snapshot, brought up to date (call with the lock held)."""
        with self._changed_lock:
            changed, self._changed = self._changed, set()
        if self._snapshot is None:
            self._snapshot = Snapshot.read(self.root)
        else:
            self._snapshot.refresh(changed)
        return self._snapshot

    def audit(self, file: str, name: str) -> Audit:
        """What ``file:name`` rests on and what rests on it; ``KeyError`` when it does not exist."""
        with self._lock:
            return audit(self._fresh(), file, name)

    def capture_chain(self, file: str, name: str) -> CaptureChain:
        """The audit of ``file:name`` followed down to evidence cards and session logs (``KeyError``: no item)."""
        with self._lock:
            return capture_chain(self._fresh(), file, name)

    def retraction(self, *, entry: EntryRef | None = None, item: tuple[str, str] | None = None,
                   follow_links: bool = False) -> list[Dependent]:
        """Everything resting on a diary entry (``(date, HH:MM[#n])``) or a wiki item, transitively, nearest first."""
        with self._lock:
            return retraction(self._fresh(), entry=entry, item=item, follow_links=follow_links)

    def day(self, date: str, entries: list[DiaryItem], time: str | None = None) -> list[EntryCiters]:
        """For each entry of the day (only the one ``time`` names, ``HH:MM[#n]``): what rests on it, transitively."""
        chosen = [e for e in entries if time is None or e.entry_id.key == time]
        with self._lock:
            snapshot = self._fresh()
            return [EntryCiters(e, tuple(retraction(snapshot, entry=e.entry_id))) for e in chosen]
