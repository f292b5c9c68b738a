"""Which diary entry: a day, a minute, and the entry's place among that minute's entries.

Two events may share a minute, so an entry is named by ``(date, HH:MM,
ordinal)``, the ordinal its 1-based place among the day's entries with that
heading. It is stable because the diary is append-only and sorts stably:
appending never renumbers an entry. Written form::

    2026-07-21 14:30      the minute's first entry (most minutes hold only one)
    2026-07-21 14:30#2    its second entry

The first entry carries no suffix (``#1`` means the same), so a reference
written while an entry was alone in its minute stays right when others join
it, and a reference naming only the minute reads as its *first* entry, not
all of them: a minute-wide reading would let one citation hide every later
entry of the minute from the reconcile queue.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Union

from wikimem.disk.names import validate_date, validate_time

__all__ = ["EntryId", "EntryRef", "entry_ref", "ordinals", "parse_entry_id", "split_ordinal"]

_ORDINAL_RE = re.compile(r"(.*?)#([0-9]+)")


@dataclass(frozen=True, order=True)
class EntryId:
    """One diary entry: ``date`` (YYYY-MM-DD), ``time`` (its ``HH:MM`` heading) and ``ordinal`` (1-based).

    Hashable and ordered (day, minute, ordinal), so it keys sets and sorts
    chronologically. ``time`` is the heading as read: a hand-written odd
    heading keeps its text (such entries cannot be cited, see
    :func:`parse_entry_id`, but the app can still tell them apart).
    """

    date: str
    time: str
    ordinal: int = 1

    @property
    def key(self) -> str:
        """The heading with the ordinal: ``14:30`` for the first entry, ``14:30#2`` for the second."""
        return self.time if self.ordinal == 1 else f"{self.time}#{self.ordinal}"

    def render(self) -> str:
        """``2026-07-21 14:30`` or ``2026-07-21 14:30#2``; :func:`parse_entry_id` reads it back."""
        return f"{self.date} {self.key}"

    def __str__(self) -> str:
        return self.render()


def split_ordinal(text: str) -> tuple[str, int]:
    """``"14:30#2"`` -> ``("14:30", 2)``; ``"14:30"`` -> ``("14:30", 1)``.

    The time is validated (``HH:MM``); the ordinal must be a positive
    integer. ``ValueError`` naming the problem otherwise.
    """
    match = _ORDINAL_RE.fullmatch(text)
    time, ordinal = (match.group(1), int(match.group(2))) if match else (text, 1)
    if ordinal < 1:
        raise ValueError(f"invalid diary entry {text!r}: the ordinal after '#' counts from 1")
    return validate_time(time), ordinal


def parse_entry_id(text: str) -> EntryId:
    """``"2026-07-21 14:30#2"`` (or without ``#n``) as an :class:`EntryId`; ``ValueError`` otherwise."""
    parts = text.split()
    if len(parts) != 2:
        raise ValueError(f"invalid diary entry {text!r}: expected 'YYYY-MM-DD HH:MM' or 'YYYY-MM-DD HH:MM#n'")
    time, ordinal = split_ordinal(parts[1])
    return EntryId(validate_date(parts[0]), time, ordinal)


#: A diary entry as a caller names it: an ``EntryId``, or ``(date, HH:MM[#n])`` / ``(date, HH:MM, ordinal)``.
EntryRef = Union[EntryId, tuple[str, str], tuple[str, str, int]]


def entry_ref(entry: EntryRef) -> EntryId:
    """``entry`` as an :class:`EntryId`.

    A ``(date, HH:MM)`` pair is the minute's first entry; its time may carry
    the ordinal as written (``(date, "14:30#2")``, an ``EntryId.key``).
    """
    if isinstance(entry, EntryId):
        return entry
    if len(entry) == 2:
        time, ordinal = split_ordinal(entry[1]) if "#" in entry[1] else (entry[1], 1)
        return EntryId(entry[0], time, ordinal)
    return EntryId(entry[0], entry[1], entry[2])


def ordinals(headings: Iterable[str]) -> list[int]:
    """Each heading's 1-based place among the equal headings before it: a day's ordinals, in file order."""
    seen: dict[str, int] = {}
    out: list[int] = []
    for heading in headings:
        seen[heading] = seen.get(heading, 0) + 1
        out.append(seen[heading])
    return out
