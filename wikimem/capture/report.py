"""What a capture run did, or in a dry run would do: the entries, the cards, and everything left out.

Nothing is left out silently: files that are not sessions (``skipped``),
paths the caller named that do not exist (``missing``), sessions refused
because a file they would change is damaged (``refused``, run again once
it is repaired), and, per log, the lines and blocks reading skipped by
reason (``notes``). ``as_dict`` is the ``--json`` output.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from wikimem.capture.redact import redact
from wikimem.disk.entry_id import EntryId

__all__ = ["CaptureReport", "PlannedEntry"]


@dataclass(frozen=True)
class PlannedEntry:
    """One diary entry a capture writes (or, in a dry run, would write)."""

    card_id: str
    session_id: str
    path: str
    date: str
    time: str
    ordinal: int
    content: str
    follow_up: bool
    derived: bool

    @property
    def entry_id(self) -> EntryId:
        return EntryId(self.date, self.time, self.ordinal)


@dataclass
class CaptureReport:
    """What a run did: entries written, cards new/updated, what was unchanged, skipped or refused."""

    agent: str
    dry_run: bool
    entries: list[PlannedEntry] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    #: Files that are not (capturable) sessions, with the reason: fine, nothing lost.
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: Paths the caller named that do not exist or cannot be read.
    missing: list[tuple[str, str]] = field(default_factory=list)
    #: Sessions not captured because a file they would change is damaged: run again once it is repaired.
    refused: list[tuple[str, str]] = field(default_factory=list)
    #: Per session log: the lines or blocks skipped while reading it, by reason.
    notes: list[tuple[str, dict[str, int]]] = field(default_factory=list)
    #: Files written (relative to the memory directory).
    written: list[str] = field(default_factory=list)

    def scrub(self) -> CaptureReport:
        """Redact, in place, every string the report took from a path or a log (it is printed and returned as
        JSON, and a path or a reason can hold a token); returns the report."""
        self.entries = [replace(e, card_id=redact(e.card_id), session_id=redact(e.session_id), path=redact(e.path))
                        for e in self.entries]  # the content was redacted line by line as it was made
        self.new, self.updated = [redact(c) for c in self.new], [redact(c) for c in self.updated]
        self.skipped, self.missing, self.refused = ([(redact(p), redact(r)) for p, r in pairs]
                                                    for pairs in (self.skipped, self.missing, self.refused))
        self.notes = [(redact(p), {redact(why): n for why, n in counts.items()}) for p, counts in self.notes]
        return self

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON data (``wikimem capture --json``)."""
        return {
            "agent": self.agent, "dry_run": self.dry_run,
            "entries": [{"card": e.card_id, "session_id": e.session_id, "path": e.path, "entry": e.entry_id.render(),
                         "follow_up": e.follow_up, "derived": e.derived, "content": e.content} for e in self.entries],
            "new": self.new, "updated": self.updated, "unchanged": self.unchanged,
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "missing": [{"path": p, "reason": r} for p, r in self.missing],
            "refused": [{"path": p, "reason": r} for p, r in self.refused],
            "notes": [{"path": p, "skipped": n} for p, n in self.notes],
            "written": self.written,
        }
