"""``reviewed.json``: diary entries looked at and deliberately not promoted.

A queue that shows never-worth-promoting events again every day is a queue
nobody reads, so the user can dismiss an entry as "reviewed, not promoted".
That is curation state, not memory: it lives in one small file, never in
the day file (the diary is append-only evidence)::

    {"version": 1, "entries": [
      {"date": "2026-07-21", "time": "14:30", "ordinal": 2, "hash": "9f8a…",
       "by": "tui:xnne", "ts": "2026-07-22T08:00:00+00:00", "note": "small talk"}
    ]}

A record names one entry by its identity (``wikimem.disk.entry_id``) and the
hash of its content, so an entry edited by hand after it was dismissed comes
back to the queue. A record without ``ordinal`` matches every entry of its
minute with the same content. Each record says who dismissed it and when,
so the file is its own audit trail and is not journaled (nothing in the
memory changed). A file that is not valid JSON is never overwritten:
reading it yields nothing and writing raises ``ValueError``. Deleting the
file only brings the dismissed entries back to the queue.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

from wikimem.disk.blocks import atomic_write, read_text, store_lock
from wikimem.disk.names import utc_now_iso
from wikimem.disk.tolerant import UnreadableError, parse_json, warn_unreadable

__all__ = ["REVIEWED_FILE", "Dismissal", "damage", "dismiss", "entry_hash", "is_dismissed", "load_dismissed",
           "undismiss"]

REVIEWED_FILE = "reviewed.json"


class DiaryEntry(Protocol):
    """What a dismissal needs of a diary entry (a :class:`wikimem.models.DiaryItem` is one).

    Structural, so this file format knows nothing of the models above it.
    """

    @property
    def date(self) -> str: ...
    @property
    def time(self) -> str: ...
    @property
    def ordinal(self) -> int: ...
    @property
    def content(self) -> str: ...


@dataclass(frozen=True)
class Dismissal:
    """One diary entry marked "reviewed, not promoted".

    ``ordinal`` is the entry's place in its minute; ``None`` for a record
    written before ordinals existed (it matches by content within the minute).
    """

    date: str
    time: str
    hash: str
    by: str | None = None
    ts: str | None = None
    note: str | None = None
    ordinal: int | None = None

    def matches(self, entry: DiaryEntry) -> bool:
        """Whether this record dismisses ``entry`` (same entry, same content as when dismissed)."""
        return (self.date, self.time, self.hash) == (entry.date, entry.time, entry_hash(entry.content)) \
            and self.ordinal in (None, entry.ordinal)


def entry_hash(content: str) -> str:
    """The short content hash that identifies an entry within its minute."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]


def _parse(text: str) -> list[Dismissal]:
    data = parse_json(text)  # ValueError, never RecursionError, for a hostile file
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise ValueError("expected an object with an 'entries' list")
    out: list[Dismissal] = []
    for record in data["entries"]:
        if not isinstance(record, dict) or not all(isinstance(record.get(k), str) for k in ("date", "time", "hash")):
            raise ValueError("every entry needs string date, time and hash")
        optional = {k: record.get(k) if isinstance(record.get(k), str) else None for k in ("by", "ts", "note")}
        ordinal = record.get("ordinal")
        if ordinal is not None and (isinstance(ordinal, bool) or not isinstance(ordinal, int) or ordinal < 1):
            raise ValueError("an entry's ordinal must be a positive integer")
        out.append(Dismissal(record["date"], record["time"], record["hash"], **optional, ordinal=ordinal))
    return out


def is_dismissed(entry: DiaryEntry, dismissals: Iterable[Dismissal]) -> bool:
    """Whether some record of ``dismissals`` dismisses ``entry``."""
    return any(record.matches(entry) for record in dismissals)


def _read(root: str | os.PathLike[str], *, warn: bool = False) -> tuple[list[Dismissal], str | None]:
    """The dismissals in ``root/reviewed.json`` and why the file cannot be used (``None``: fine or absent)."""
    try:
        text = read_text(Path(root) / REVIEWED_FILE)
    except UnreadableError as exc:
        if warn:
            warn_unreadable(exc)
        return [], exc.strerror
    if text is None or not text.strip():
        return [], None
    try:
        return _parse(text), None
    except ValueError as exc:
        return [], str(exc)


def load_dismissed(root: str | os.PathLike[str]) -> list[Dismissal]:
    """Every dismissal in ``root/reviewed.json`` ([] when absent or unreadable)."""
    return _read(root, warn=True)[0]


def damage(root: str | os.PathLike[str]) -> str | None:
    """Why ``root/reviewed.json`` cannot be used, or ``None`` when it is fine or absent.

    Reading a damaged file yields no dismissals (the queue shows those
    entries again) and every write refuses it, so lint reports it.
    """
    return _read(root)[1]


def _load_for_write(path: Path) -> list[Dismissal]:
    text = read_text(path)
    if text is None or not text.strip():
        return []
    try:
        return _parse(text)
    except ValueError as exc:
        raise ValueError(f"{path.name} is damaged ({exc}); repair or delete it, nothing was written") from None


_ORDER = ("date", "time", "ordinal", "hash", "by", "ts", "note")


def _write(path: Path, records: list[Dismissal]) -> None:
    rows = [asdict(r) for r in records]
    payload = {"version": 1, "entries": [{k: row[k] for k in _ORDER if row[k] is not None} for row in rows]}
    atomic_write(path, json.dumps(payload, ensure_ascii=False, indent=1) + "\n")


def dismiss(
    root: str | os.PathLike[str],
    entries: Iterable[DiaryEntry],
    *,
    by: str | None = None,
    note: str | None = None,
    ts: str | None = None,
) -> list[Dismissal]:
    """Mark ``entries`` "reviewed, not promoted"; returns the records added.

    Already dismissed entries are left as they were (first decision kept).
    Each entry is named by its identity (``entry.ordinal`` read from the
    diary), so dismissing one entry of a minute leaves the others queued.
    """
    path = Path(root) / REVIEWED_FILE
    stamp = ts or utc_now_iso()
    with store_lock(Path(root)):
        records = _load_for_write(path)
        added: list[Dismissal] = []
        for entry in entries:
            if is_dismissed(entry, records) or is_dismissed(entry, added):
                continue
            added.append(Dismissal(entry.date, entry.time, entry_hash(entry.content), by=by, ts=stamp,
                                   note=note, ordinal=entry.ordinal))
        if added:
            _write(path, records + added)
    return added


def undismiss(root: str | os.PathLike[str], entries: Iterable[DiaryEntry]) -> int:
    """Put ``entries`` back in the queue; returns how many records were removed.

    Removes every record that dismisses one of ``entries`` (a record from
    before ordinals existed also comes off when it covered such an entry).
    """
    path = Path(root) / REVIEWED_FILE
    entries = list(entries)
    with store_lock(Path(root)):
        records = _load_for_write(path)
        kept = [r for r in records if not any(r.matches(e) for e in entries)]
        if len(kept) != len(records):
            _write(path, kept)
    return len(records) - len(kept)
