"""The latest journal line about each memory file: what drift is judged against.

:class:`LatestLines` keeps, per ``wiki/f.md`` or ``diary/D.md``, the ts and
action of the newest line that names it, fed block by block as a follower
reads (lint's journal scan) or all at once (:func:`latest_lines`). A file
whose bytes changed after its latest line is drift (``wikimem.lint.drift``).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikimem.disk.names import CANONICAL_TS_RE, parse_ts
from wikimem.disk.tolerant import loads_tolerant, parse_json
from wikimem.journal.follow import JournalFollower, JournalRead
from wikimem.journal.log import JOURNAL_FILE

__all__ = ["BadLine", "LatestLines", "entry_problem", "latest_lines"]



@dataclass(frozen=True)
class BadLine:
    """A journal line that is not an entry, and why."""

    line: int
    text: str
    why: str


@dataclass
class LatestLines:
    """The ts and action of the latest journal line about each memory path.

    ``last`` maps ``wiki/f.md`` or ``diary/D.md`` to ``(ts, action)``, the ts
    in the canonical UTC form so that comparing strings compares instants;
    ``changed`` collects the paths whose latest line changed (the caller
    clears it). Drift is judged against these (:mod:`wikimem.lint.drift`).
    """

    last: dict[str, tuple[str, str]] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)

    def logged(self, path: str) -> tuple[float, str] | None:
        """``(epoch seconds, action)`` of the latest line about ``path``, if any."""
        found = self.last.get(path)
        if found is None:
            return None
        try:
            moment = dt.datetime.fromisoformat(found[0])
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.timezone.utc)
        return moment.timestamp(), found[1]

    def feed(self, text: str, first_line: int) -> list[BadLine]:
        """Record whole lines ``text`` (each ending in ``\\n``); returns the lines that are not entries.

        The common case, every line an entry, is one parse of the lines made
        a JSON array; only when that fails (a blank or bad line makes it
        invalid, or the count differ) is each line parsed alone.
        """
        if not text:
            return []
        try:
            parsed = parse_json("[" + text[:-1].replace("\n", ",") + "]")
        except ValueError:
            parsed = None
        # A bad entry stops this pass; the per-line pass then records the
        # same lines again, which leaves the same latest line per path.
        if parsed is not None and len(parsed) == text.count("\n") and all(map(self.feed_entry, parsed)):
            return []
        bad: list[BadLine] = []
        for line_no, line in JournalRead(text=text, first_line=first_line).lines():
            try:
                entry = parse_json(line)
            except ValueError:
                bad.append(BadLine(line_no, line, "not JSON"))
                continue
            if not self.feed_entry(entry):
                bad.append(BadLine(line_no, line, f"not a journal entry ({entry_problem(entry)})"))
        return bad

    def feed_entry(self, entry: Any) -> bool:
        """Record one parsed line; False (nothing recorded) when it is not an entry."""
        if entry_problem(entry) is not None:
            return False
        self._remember(_path(entry.get("file"), entry.get("date")), _canonical(entry["ts"]), entry["action"])
        return True

    def _remember(self, path: str | None, ts: str | None, action: str) -> None:
        if path is None or ts is None:
            return
        old = self.last.get(path)
        if old is None or ts >= old[0]:
            self.last[path] = (ts, action)
            self.changed.add(path)


def entry_problem(entry: Any) -> str | None:
    """Why a parsed journal line is not an entry (an object with ``ts`` and ``action`` strings), or None."""
    if not isinstance(entry, dict):
        return f"a JSON {type(entry).__name__}, not an object"
    for key in ("ts", "action"):
        if not isinstance(entry.get(key), str):
            return f"no {key!r} string"
    return None


def _path(file: object, date: object) -> str | None:
    """The memory path a journal line is about (``file`` wins, as the library writes one)."""
    if type(file) is str:
        return f"wiki/{file}.md"
    return f"diary/{date}.md" if type(date) is str else None


def _canonical(ts: str) -> str | None:
    """``ts`` in the canonical UTC form, so that comparing strings compares instants."""
    if CANONICAL_TS_RE.fullmatch(ts):
        return ts
    try:
        return parse_ts(ts)
    except ValueError:  # not a time, or none in UTC (past year 9999 there)
        return None


def latest_lines(root: str | os.PathLike[str]) -> dict[str, tuple[str, str]]:
    """The latest line about each memory path in ``root``'s journal, read once (see :class:`LatestLines`)."""
    read = JournalFollower(Path(root) / JOURNAL_FILE, root=root).read()
    latest = LatestLines()
    latest.feed(read.text, read.first_line)
    if read.torn.strip():
        latest.feed_entry(loads_tolerant(read.torn))
    return latest.last
