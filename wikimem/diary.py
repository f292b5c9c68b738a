"""Diary: the event layer, one file per day under ``diary/``.

Append-only by design: the API only ever adds an entry, never edits or
deletes one, because an event log that can be rewritten is no evidence. Two
events may share a minute, so repeated ``## HH:MM`` headings are all kept.
The filename is the time index: a date range maps to a set of files in
O(days), with no index structure to keep in sync. An append splices the new
entry in at its place and leaves every other entry's bytes as they were
(``wikimem.disk.splice``): evidence is not re-rendered by the next append.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from wikimem.disk.blocks import Block, is_block_heading, read_blocks, read_text
from wikimem.disk.entry_id import ordinals
from wikimem.disk.intent import FileChange, commit
from wikimem.disk.names import utc_now_iso
from wikimem.journal import Journal
from wikimem.disk.lock import store_lock
from wikimem.disk.store_dir import own_folder
from wikimem.models import DiaryItem
from wikimem.disk.tolerant import UnreadableError, read_regular, warn_unreadable
from wikimem.disk.names import (
    is_time,
    parse_ts,
    validate_content,
    validate_date,
    validate_meta_value,
    validate_time,
)
from wikimem.disk.splice import RawFile, check, insert_block, split_raw

__all__ = ["Diary", "backfill_ts", "entry_position", "insert_entry", "place_entry", "sort_by_time"]


def _resolve_tz(tz: dt.tzinfo | str | None) -> dt.tzinfo | None:
    if isinstance(tz, str):
        try:
            return ZoneInfo(tz)
        except (KeyError, ValueError):
            raise ValueError(f"invalid tz {tz!r}: unknown time zone") from None
    return tz


def sort_by_time(blocks: list[Block]) -> list[Block]:
    """The diary's one order for a day: stable by ``HH:MM``.

    Public because lint judges and ``--fix`` repairs a day's order with it,
    and both must agree with what ``Diary.append`` writes. Same-minute
    entries keep their file order; a hand-written odd heading keeps its
    neighbour's slot (it sorts with the last valid time before it).
    """
    keyed: list[tuple[str, int, Block]] = []
    last = ""
    for position, block in enumerate(blocks):
        if is_time(block.heading):
            last = block.heading
        keyed.append((last, position, block))
    keyed.sort(key=lambda row: (row[0], row[1]))
    return [block for _, _, block in keyed]


def entry_position(blocks: list[Block], time: str) -> int:
    """Where ``Diary.append`` puts an entry at ``time``: after the last entry not later than it.

    The same place ``sort_by_time`` gives it in a sorted day (a shared
    minute keeps arrival order); in a day put out of order by hand only the
    new entry is placed, the others stay (``lint --fix`` sorts them).
    """
    at, last = 0, ""
    for position, block in enumerate(blocks):
        if is_time(block.heading):
            last = block.heading
        if last <= time:
            at = position + 1
    return at


def place_entry(raw: RawFile, date: str, block: Block) -> int:
    """Insert ``block`` into the day ``date`` (staged as ``raw``) where ``Diary.append`` puts it; its ordinal.

    The one rule for where an entry goes, shared by every writer of the
    diary (an append, a capture, an import): after the last entry not later
    than it, and numbered one past the entries of its minute before it.
    """
    blocks = raw.parsed()
    at = entry_position(blocks, block.heading)
    ordinal = 1 + sum(1 for b in blocks[:at] if b.heading == block.heading)
    insert_block(raw, date, block, f"# {date}", at)
    return ordinal


def insert_entry(raw: RawFile, date: str, block: Block, *,
                 detail: str | None = None) -> tuple[int, dict[str, Any]]:
    """:func:`place_entry`, and the journal entry of the entry with its ordinal: what an append journals.

    :meth:`Diary.append`, capture's multi-file write and an import all take
    their journal entry from here, so an entry is named in the journal the
    same way whoever wrote it (the ordinal tells two entries of one minute
    apart).
    """
    ordinal = place_entry(raw, date, block)
    return ordinal, Journal.diary_entry(date=date, time=block.heading, owner=block.owner,
                                        source_conv=block.source_conv, detail=detail, ordinal=ordinal)


def backfill_ts(date: str | None, time: str | None, tz: dt.tzinfo | None) -> str:
    """The ``ts`` of an entry written for a given day and/or minute: that moment, not the moment of writing.

    An entry backfilled for another day (``diary append --date``, an import)
    happened then; stamping it with "now" would lie about when. The missing
    half comes from now on the wall clock of ``tz`` (default: the system's
    local zone), the given half is read on that clock too.
    """
    now = dt.datetime.now(dt.timezone.utc).astimezone(tz)
    day = dt.date.fromisoformat(validate_date(date)) if date is not None else now.date()
    hour, minute = (int(part) for part in validate_time(time).split(":")) if time is not None else (now.hour, now.minute)
    wall = dt.datetime(day.year, day.month, day.day, hour, minute)
    moment = wall.replace(tzinfo=tz) if tz is not None else wall.astimezone()  # naive: the system's local zone
    return parse_ts(moment)


class Diary:
    """The day files under ``root/diary``; journals to ``journal`` (or root's own)."""

    def __init__(self, root: str | os.PathLike[str], *, journal: Journal | None = None) -> None:
        self.root = Path(root)
        self.dir = self.root / "diary"
        self.journal = journal if journal is not None else Journal(self.root / "journal.jsonl")
        #: Called with the day after each in-process append (a derived diary index re-reads that day only).
        self._listeners: list[Callable[[str], None]] = []

    def add_listener(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(date)`` after each successful append of this object, or a write of its store's
        transaction to a day (an import); not other processes' writes."""
        self._listeners.append(callback)

    def remove_listener(self, callback: Callable[[str], None]) -> None:
        """Stop calling a listener added with :meth:`add_listener`."""
        if callback in self._listeners:
            self._listeners.remove(callback)

    def notify_write(self, date: str) -> None:
        """Tell the listeners this process wrote the day ``date`` (an append, or a store transaction's import)."""
        for listener in list(self._listeners):
            listener(date)

    def path(self, date: str) -> Path:
        """The day file for ``date`` (validated)."""
        return self.dir / f"{validate_date(date)}.md"

    def append(
        self,
        content: str,
        *,
        ts: str | dt.datetime | None = None,
        date: str | None = None,
        time: str | None = None,
        owner: str | None = None,
        source_conv: str | None = None,
        tz: dt.tzinfo | str | None = None,
    ) -> DiaryItem:
        """Add one event; the only write the diary has.

        ``ts`` is normalized to UTC seconds; a missing
        ``date``/``time`` is that instant on the wall clock of ``tz``
        (default: the system's local zone). Without ``ts`` it is now, or,
        when a ``date`` or ``time`` is given, that moment on ``tz``'s clock
        (:func:`backfill_ts`): an entry written for another day is dated
        when it happened. An explicit ``ts`` always wins. Entries stay sorted by ``HH:MM``,
        stable for equal minutes. ``ValueError`` on bad input, nothing written.
        """
        text = validate_content(content)
        zone = _resolve_tz(tz)
        if ts is None and (date is not None or time is not None):
            stamp = backfill_ts(date, time, zone)
        else:
            stamp = parse_ts(ts) if ts is not None else utc_now_iso()
        try:
            local = dt.datetime.fromisoformat(stamp).astimezone(zone)
        except OverflowError:  # the instant's wall-clock day is past year 9999
            raise ValueError(f"invalid ts {stamp!r}: out of range in tz {tz!r}") from None
        date = validate_date(date if date is not None else local.strftime("%Y-%m-%d"))
        time = validate_time(time if time is not None else local.strftime("%H:%M"))
        block = Block(
            heading=time,
            content=text,
            owner=validate_meta_value("owner", owner),
            source_conv=validate_meta_value("source_conv", source_conv),
            ts=stamp,
        )
        path = self.path(date)
        with store_lock(self.root):
            before = read_regular(path, root=self.root)  # an unreadable day refuses the append (UnreadableError)
            raw = split_raw(before)
            check(raw, f"diary/{date}.md", [], f"appending to the diary of {date}", unique=False)
            ordinal, entry = insert_entry(raw, date, block)
            commit(self.root, [FileChange(path, before, raw.data())], self.journal.path, Journal.encode(entry))
        self.notify_write(date)
        return DiaryItem(date, time, text, block.owner, block.source_conv, stamp, ordinal)

    def day(self, date: str) -> list[DiaryItem]:
        """The entries of one day in file order ([] when there is none), each with its ordinal.

        A day file that cannot be read -- a FIFO named like a day would block
        every windowed query, no permission, a symlink out of the memory --
        is [] with one WARNING (see :mod:`wikimem.disk.tolerant`).
        """
        if not own_folder(self.root, "diary"):
            return []
        try:
            parsed = read_blocks(self.path(date))
        except UnreadableError as exc:
            warn_unreadable(exc)
            return []
        return [
            DiaryItem(date, b.heading, b.content, b.owner, b.source_conv, b.ts, n)
            for b, n in zip(parsed.blocks, ordinals(b.heading for b in parsed.blocks))
        ]

    def window(self, start: str, end: str) -> list[DiaryItem]:
        """Entries from ``start`` to ``end`` inclusive, chronological.

        Reversed bounds are swapped; only the day files in range are read.
        """
        start, end = sorted((validate_date(start), validate_date(end)))
        out: list[DiaryItem] = []
        for date in self.dates():
            if start <= date <= end:
                entries = self.day(date)
                # Stable: equal minutes keep file order; odd headings sort last.
                entries.sort(key=lambda e: e.time if is_time(e.time) else "99:99")
                out.extend(entries)
        return out

    def dates(self) -> list[str]:
        """Dates that have a day file, ascending (files not named as a real date skipped)."""
        try:
            names = os.listdir(self.dir) if own_folder(self.root, "diary") else []
        except (FileNotFoundError, NotADirectoryError):
            return []
        out: list[str] = []
        for name in names:
            if name.endswith(".md"):
                try:
                    out.append(validate_date(name[:-3]))
                except ValueError:
                    continue
        return sorted(out)

    def counts(self, dates: list[str] | None = None) -> dict[str, int]:
        """Entries per day, from counting ``## `` lines: cheap enough for a calendar."""
        out: dict[str, int] = {}
        for date in self.dates() if dates is None else dates:
            try:
                text = read_text(self.path(date)) or ""
            except UnreadableError as exc:
                warn_unreadable(exc)
                continue
            # Split like the block parser does: str.splitlines() would also
            # break at U+2028/U+0085 inside content and count phantom headings.
            lines = re.split(r"\r\n|\r|\n", text)
            count = sum(1 for line in lines if is_block_heading(line))
            if count:
                out[date] = count
        return out
