"""What changed on disk, as one value: the watcher, the backend and every pane speak it.

Kept apart from the Textual messages (``common/messages.py`` carries it in
``StoreChanged``) so the part of the app that needs no Textual -- the
backend that records its own writes, the watcher that sees everyone
else's, the curation reads that re-read only what changed -- can name it
without importing Textual.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["StoreChange"]


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
