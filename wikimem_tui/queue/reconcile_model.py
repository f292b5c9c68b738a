"""How the reconcile queue reads: entry identity, the whole entry, the day-range box; no widgets.

Split from ``reconcile.py`` so the pane holds only layout, keys and the
worker. Entry text is untrusted and goes through ``safe``; a derived entry
carries the badge (``badges``) in its row and the reason in its detail.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from wikimem import DiaryItem, is_derived_line, parse_date_span
from wikimem_tui.common.safe import safe_line, safe_text
from wikimem_tui.queue.promote_text import entry_summary
from wikimem_tui.common.badges import DERIVED_HINT
from wikimem_tui.core.words import count

__all__ = ["AGENT_LABELS", "REVIEWED_BADGE", "Key", "Query", "entry_detail", "entry_key", "first_line", "ordinal_prefix",
           "parse_days", "status_text"]

REVIEWED_BADGE = "✓ reviewed"
_MONTH_RE = re.compile(r"(\d{4})-(\d{1,2})")

Key = tuple[str, str, str]


#: The owners capture writes (``agent:<agent>``), shown by the agent's name in the rows and the filter.
AGENT_LABELS = {"agent:claude-code": "⚙ Claude Code", "agent:codex": "⚙ Codex"}


def entry_key(entry: DiaryItem) -> Key:
    """An entry's identity across refreshes: day, ``HH:MM[#n]`` (``EntryId.key``) and content.

    The ordinal tells two entries of one minute apart even when their texts
    are equal; the content makes a hand-edited entry a new one (a selection
    made before the edit does not carry over to text the user has not seen).
    """
    return (entry.date, entry.entry_id.key, entry.content)


def parse_days(text: str) -> tuple[str | None, str | None]:
    """The day-range box: ``DAY``, ``DAY..DAY``, ``DAY..``, ``..DAY``; a DAY may be a month ``YYYY-MM``.

    Empty means no bound. ``ValueError`` says what is wrong.
    """
    text = text.strip()
    if not text:
        return None, None
    parts = text.split("..")
    if len(parts) > 2:
        raise ValueError(f"{text!r}: one '..' at most")
    if len(parts) == 1:
        return day_bound(parts[0], end=False), day_bound(parts[0], end=True)
    start = day_bound(parts[0], end=False) if parts[0].strip() else None
    end = day_bound(parts[1], end=True) if parts[1].strip() else None
    if start and end and start > end:
        start, end = day_bound(parts[1], end=False), day_bound(parts[0], end=True)
    return start, end


def day_bound(text: str, *, end: bool) -> str:
    """The first (or, with ``end``, last) day of a day or a month."""
    text = text.strip()
    month = _MONTH_RE.fullmatch(text)
    if month:
        year, mon = int(month.group(1)), int(month.group(2))
        if not 1 <= mon <= 12:
            raise ValueError(f"{text!r} is not a month")
        return dt.date(year, mon, calendar.monthrange(year, mon)[1] if end else 1).isoformat()
    span = parse_date_span(text)
    if span is None:
        raise ValueError(f"{text!r} is not a day (YYYY-MM-DD) or a month (YYYY-MM)")
    return span[1] if end else span[0]


@dataclass(frozen=True)
class Query:
    """What the worker computes: the day bounds and whether reviewed entries are included."""

    start: str | None = None
    end: str | None = None
    include_reviewed: bool = False




def ordinal_prefix(entry: DiaryItem) -> str:
    """``"#2 "`` for the second entry of a minute (what evidence lines call it), ``""`` for the first."""
    return f"#{entry.ordinal} " if entry.ordinal > 1 else ""


def first_line(content: str) -> str:
    """The first line worth showing (the derived marker is a badge, not text)."""
    return next((ln.strip() for ln in content.splitlines() if ln.strip() and not is_derived_line(ln)), "")


def entry_detail(q: Any) -> Text:
    """The whole entry with its provenance and badges (the table cuts it to one line)."""
    entry = q.entry
    text = entry_summary(entry, width=0)
    if entry.source_conv:
        text.append("source ")
        text.append_text(safe_line(entry.source_conv))
    if q.dismissed:
        text.append("  ")
        text.append(REVIEWED_BADGE, style="green")
    text.append("\n")
    text.append_text(safe_text(entry.content))
    if q.derived:
        text.append(f"\n{DERIVED_HINT}", style="italic magenta")
    return text


def status_text(shown: Sequence[Any], *, loaded: bool, reviewed: bool, selected: int, read_only: bool,
                loading: bool) -> Text:
    """The line above the rows: how many entries wait (derived, reviewed shown), the selection, refusals, a read."""
    if not loaded:
        text = Text("reading the diary…")
    elif not shown:
        text = Text("nothing waiting: every diary entry here is cited by a wiki item"
                    + ("" if reviewed else " or marked reviewed"))
    else:
        text = Text(f"{count(len(shown), 'entry')} waiting")
        derived = sum(1 for q in shown if q.derived)
        if derived:
            text.append(f" · {derived} derived")
        if reviewed:
            text.append(f" · {sum(1 for q in shown if q.dismissed)} reviewed shown")
    if selected:
        text.append(f" · {selected} selected", style="bold green")
    if read_only:
        text.append(" · read-only: promoting and marking are refused", style="bold red")
    if loading:
        text.append(" · reading…", style="italic")
    return text
