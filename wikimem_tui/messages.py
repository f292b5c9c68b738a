"""Messages that cross widget boundaries.

Widgets never reach into each other: a widget that wants an item opened, a
day shown or a status line changed posts one of these, and the App (which
owns the layout) routes it. Keeping them in one module lets every widget
depend on this file alone rather than on its siblings.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


class OpenItem(Message):
    """Show the wiki item ``file:name`` in the item view."""

    def __init__(self, file: str, name: str) -> None:
        super().__init__()
        self.file = file
        self.name = name


class OpenDiaryDay(Message):
    """Show the entries of one diary day (``YYYY-MM-DD``), optionally one entry highlighted.

    ``time`` names the entry as ``EntryId.key`` does: ``HH:MM`` for the
    minute's first entry, ``HH:MM#n`` for its n-th (``wikimem.diary_id``).
    """

    def __init__(self, date: str, time: str | None = None) -> None:
        super().__init__()
        self.date = date
        self.time = time


class OpenRecallFile(Message):
    """Select a whole RecallFile (e.g. from the tree or a journal line)."""

    def __init__(self, file: str) -> None:
        super().__init__()
        self.file = file


@dataclass(frozen=True)
class StoreChange:
    """What changed on disk, as the watcher or an in-app write saw it.

    ``wiki_files`` are RecallFile names, ``diary_dates`` day-file dates;
    ``journal`` is true when journal.jsonl grew, shrank or was replaced;
    ``vectors`` when derived caches changed; ``curation`` when the lint
    baseline (``lint-baseline.json``: drift accepted) or the review marks
    (``reviewed.json``) changed -- Health and the queue read them.
    """

    wiki_files: frozenset[str] = frozenset()
    diary_dates: frozenset[str] = frozenset()
    journal: bool = False
    vectors: bool = False
    external: bool = True
    curation: bool = False

    def describe(self) -> str:
        """A short human sentence for a notification."""
        parts: list[str] = []
        if self.wiki_files:
            names = sorted(self.wiki_files)
            shown = ", ".join(names[:3]) + (f" +{len(names) - 3}" if len(names) > 3 else "")
            parts.append(f"wiki: {shown}")
        if self.diary_dates:
            dates = sorted(self.diary_dates)
            shown = ", ".join(dates[:3]) + (f" +{len(dates) - 3}" if len(dates) > 3 else "")
            parts.append(f"diary: {shown}")
        if self.journal and not parts:
            parts.append("journal")
        return "; ".join(parts) or "nothing"


class StoreChanged(Message):
    """Files changed (by another process, or by this app); views refresh themselves."""

    def __init__(self, change: StoreChange) -> None:
        super().__init__()
        self.change = change


class IndexReady(Message):
    """The background index build finished (or was refreshed)."""
