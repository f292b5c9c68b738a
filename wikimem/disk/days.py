"""Days as the user types them: ISO day spans and "today" in a time zone.

Split from :mod:`wikimem.timeparse` (which re-exports both public
functions): these are the strict, unambiguous forms -- a CLI flag, a
TUI field, the reference day -- while ``timeparse`` reads free text, where
narrow beats wrong. Stdlib only.
"""

from __future__ import annotations

import re
from datetime import date, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from typing import TypeAlias

__all__ = ["TimeRange", "parse_date_span", "resolve_today", "safe_date"]

#: An inclusive ``("YYYY-MM-DD", "YYYY-MM-DD")`` pair of ISO dates (the reference's path is
#: :mod:`wikimem.models`, which re-exports it).
TimeRange: TypeAlias = tuple[str, str]


def safe_date(year: int, month: int, day: int) -> date | None:
    """The date, or None when it does not exist (Feb 30th)."""
    try:
        return date(year, month, day)
    except ValueError:
        return None


def resolve_today(today: date | str | None = None, tz: tzinfo | str | None = None) -> date:
    """``today`` as a date: given (date or ISO string) or now in ``tz``.

    ``tz`` is a ``tzinfo`` or an IANA name; ``None`` means the system's local
    zone. Raises ``ValueError`` for a malformed date or unknown zone name.
    """
    if isinstance(today, datetime):
        return today.date()
    if isinstance(today, date):
        return today
    if isinstance(today, str):
        text = today.strip()
        try:
            return date.fromisoformat(text)
        except ValueError:
            return datetime.fromisoformat(text).date()
    if isinstance(tz, str):
        try:
            tz = ZoneInfo(tz)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone: {tz!r}") from exc
    if tz is None:  # the local wall-clock date (what ``now().astimezone()`` shows, without the zone lookup)
        return date.today()
    return datetime.now(tz).date()


_ISO_DAY = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})")


def _iso_day(text: str) -> date | None:
    m = _ISO_DAY.fullmatch(text.strip())
    return safe_date(*map(int, m.groups())) if m else None


def parse_date_span(text: str) -> TimeRange | None:
    """Parse the CLI/TUI span syntax: ``YYYY-MM-DD`` or ``YYYY-MM-DD..YYYY-MM-DD``.

    A single date is a one-day window; reversed bounds are swapped; month and
    day may drop their leading zero; anything else (open ends, other
    separators, impossible dates, surrounding words) gives ``None``.
    """
    parts = text.split("..")
    if len(parts) > 2:
        return None
    days = [_iso_day(part) for part in parts]
    if any(day is None for day in days):
        return None
    first, last = days[0], days[-1]
    assert first is not None and last is not None
    if first > last:
        first, last = last, first
    return first.isoformat(), last.isoformat()
