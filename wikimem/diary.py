"""Diary: the event layer, one file per day under ``diary/``.

Append-only by design: the API only ever adds an entry, never edits or
deletes one, because an event log that can be rewritten is no evidence. Two
events may share a minute, so repeated ``## HH:MM`` headings are all kept.
The filename is the time index: a date range maps to a set of files in
O(days), with no index structure to keep in sync.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path
from zoneinfo import ZoneInfo

from wikimem.blocks import (
    Block,
    atomic_write,
    is_block_heading,
    read_blocks,
    read_text,
    render_file,
    store_lock,
)
from wikimem.journal import Journal, utc_now_iso
from wikimem.models import DiaryItem
from wikimem.tolerant import UnreadableError, warn_unreadable
from wikimem.names import (
    is_time,
    parse_ts,
    validate_content,
    validate_date,
    validate_meta_value,
    validate_time,
)

__all__ = ["Diary", "sort_by_time"]


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


class Diary:
    """The day files under ``root/diary``; journals to ``journal`` (or root's own)."""

    def __init__(self, root: str | os.PathLike[str], *, journal: Journal | None = None) -> None:
        self.root = Path(root)
        self.dir = self.root / "diary"
        self.journal = journal if journal is not None else Journal(self.root / "journal.jsonl")

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

        ``ts`` (default now) is normalized to UTC seconds; a missing
        ``date``/``time`` is that instant on the wall clock of ``tz``
        (default: the system's local zone). Entries stay sorted by ``HH:MM``,
        stable for equal minutes. ``ValueError`` on bad input, nothing written.
        """
        text = validate_content(content)
        stamp = parse_ts(ts) if ts is not None else utc_now_iso()
        try:
            local = dt.datetime.fromisoformat(stamp).astimezone(_resolve_tz(tz))
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
            parsed = read_blocks(path)  # an unreadable day refuses the append (UnreadableError)
            self.journal.check()  # so does a journal that would refuse its line
            blocks = sort_by_time([*parsed.blocks, block])
            atomic_write(path, render_file(parsed.preamble or f"# {date}", blocks))
            self.journal.append_diary(
                date=date, time=time, owner=block.owner, source_conv=block.source_conv
            )
        return DiaryItem(date, time, text, block.owner, block.source_conv, stamp)

    def day(self, date: str) -> list[DiaryItem]:
        """The entries of one day in file order ([] when there is none).

        A day file that cannot be read -- a FIFO named like a day would block
        every windowed query, no permission, a symlink out of the memory --
        is [] with one WARNING (see :mod:`wikimem.tolerant`).
        """
        try:
            parsed = read_blocks(self.path(date))
        except UnreadableError as exc:
            warn_unreadable(exc)
            return []
        return [
            DiaryItem(date, b.heading, b.content, b.owner, b.source_conv, b.ts)
            for b in parsed.blocks
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
            names = os.listdir(self.dir)
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
