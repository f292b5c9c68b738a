"""journal.jsonl for lint: lines that are not entries, and when each file was last logged.

The journal is append-only, so a re-lint reads only what was appended since
the last one (when the bytes just before the old end are still the same;
otherwise, after a rotation or a hand edit, it reads the file again). The
whole block of new lines is parsed as one JSON array first, one C-level
parse for the common all-good case; only when that fails is each line
parsed alone to find the bad ones.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass, field
from operator import itemgetter, methodcaller
from pathlib import Path
from typing import Any

from wikimem.lint.findings import Finding, make_finding
from wikimem.lint.meta import CANONICAL_TS_RE
from wikimem.tolerant import UnreadableError, open_regular, parse_json

__all__ = ["JOURNAL_FILE", "JournalFacts", "scan_journal"]

JOURNAL_FILE = "journal.jsonl"
_GUARD = 64
_TS, _ACTION = itemgetter("ts"), itemgetter("action")
_FILE, _DATE = methodcaller("get", "file"), methodcaller("get", "date")
_ALL_CANONICAL_RE = re.compile(f"(?:{CANONICAL_TS_RE.pattern}\n)*")


@dataclass
class JournalFacts:
    """What the journal says, as of ``offset`` bytes (whole lines only).

    ``last`` maps a memory path (``wiki/f.md``, ``diary/D.md``) to the ts
    and action of its latest line; ``bad`` holds findings for the lines
    before ``offset``; ``tail`` is the finding for an unterminated last
    line, re-judged on every scan. ``changed`` names the paths whose latest
    line the last scan changed, and ``fresh`` is true when that scan read
    the journal from its start (so every path may have changed).
    """

    offset: int = 0
    lines: int = 0
    guard: bytes = b""
    last: dict[str, tuple[str, str]] = field(default_factory=dict)
    bad: list[Finding] = field(default_factory=list)
    tail: list[Finding] = field(default_factory=list)
    changed: set[str] = field(default_factory=set)
    fresh: bool = True
    #: Set when the journal exists but is not read (a symlink out of the memory, a FIFO, no permission).
    unreadable: Finding | None = None

    @property
    def findings(self) -> list[Finding]:
        """Every bad line, the torn tail included (or why the journal was not read)."""
        if self.unreadable is not None:
            return [self.unreadable]
        return self.bad + self.tail

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


def _problem(entry: Any) -> str | None:
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
        moment = dt.datetime.fromisoformat(ts)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return moment.astimezone(dt.timezone.utc).replace(microsecond=0).isoformat()


def _remember(facts: JournalFacts, path: str | None, ts: str | None, action: str) -> None:
    if path is None or ts is None:
        return
    old = facts.last.get(path)
    if old is None or ts >= old[0]:
        facts.last[path] = (ts, action)
        facts.changed.add(path)


def _record(facts: JournalFacts, entry: dict[str, Any]) -> None:
    _remember(facts, _path(entry.get("file"), entry.get("date")), _canonical(entry["ts"]), entry["action"])


def _record_all(facts: JournalFacts, parsed: list[Any]) -> bool:
    """Record a block of parsed lines in C-level passes; False if some line is not an entry.

    The journal is appended in time order, so when every ts is canonical
    and they are sorted, the latest line per file is simply the last one:
    a ``dict`` built from the pairs keeps exactly that.
    """
    try:
        stamps = list(map(_TS, parsed))
        actions = list(map(_ACTION, parsed))
    except (TypeError, KeyError, IndexError):
        return False
    if set(map(type, stamps)) != {str} or set(map(type, actions)) != {str}:
        return False
    places = list(zip(map(_FILE, parsed), map(_DATE, parsed)))
    distinct = set(stamps)
    if _ALL_CANONICAL_RE.fullmatch("\n".join(distinct) + "\n") and stamps == sorted(stamps):
        for (file, date), (ts, action) in dict(zip(places, zip(stamps, actions))).items():
            _remember(facts, _path(file, date), ts, action)
    else:
        for (file, date), ts, action in zip(places, stamps, actions):
            _remember(facts, _path(file, date), _canonical(ts), action)
    return True


def _bad(line_no: int, text: str, why: str) -> Finding:
    shown = text if len(text) <= 80 else text[:77] + "..."
    return make_finding("journal-bad-line", JOURNAL_FILE, f"{why}: {shown!r}", line=line_no)


def _parse_lines(facts: JournalFacts, text: str, first_line: int) -> int:
    """Parse whole lines ``text`` (ending in a newline); returns how many lines it held."""
    count = text.count("\n")
    # The common case, every line an entry, in one C-level parse of the lines
    # made a JSON array; a blank or bad line makes it invalid (or the count differ).
    try:
        parsed = parse_json("[" + text[:-1].replace("\n", ",") + "]")
    except ValueError:
        parsed = None
    if parsed is not None and len(parsed) == count and _record_all(facts, parsed):
        return count
    lines = text.split("\n")[:-1]
    numbered = [(first_line + i, line) for i, line in enumerate(lines) if line.strip()]
    for line_no, line in numbered:
        try:
            entry = parse_json(line)
        except ValueError:
            facts.bad.append(_bad(line_no, line, "not JSON"))
            continue
        problem = _problem(entry)
        if problem:
            facts.bad.append(_bad(line_no, line, f"not a journal entry ({problem})"))
        else:
            _record(facts, entry)
    return count


def scan_journal(root: Path, previous: JournalFacts | None = None) -> JournalFacts:
    """Scan ``root/journal.jsonl``, continuing from ``previous`` when it only grew."""
    path = root / JOURNAL_FILE
    if previous is not None and previous.unreadable is not None:
        previous = None  # nothing was read: start over (and re-judge every path)
    try:
        handle = open_regular(path, root=root)
        if handle is None:
            raise FileNotFoundError(path)
        with handle:
            size = os.fstat(handle.fileno()).st_size
            facts = previous
            if facts is not None and facts.offset:
                # Only grown if the bytes before the old end are still the same.
                handle.seek(max(0, facts.offset - _GUARD))
                if facts.offset > size or handle.read(min(_GUARD, facts.offset)) != facts.guard:
                    facts = None
            if facts is None:
                facts = JournalFacts()
            else:
                facts.fresh = False
                facts.changed = set()
            handle.seek(facts.offset)
            data = handle.read()
    except FileNotFoundError:
        gone = previous is not None and (previous.offset > 0 or bool(previous.last or previous.tail))
        return JournalFacts(fresh=previous is None or gone)
    except OSError as exc:
        reason = exc.reason if isinstance(exc, UnreadableError) else (exc.strerror or str(exc))
        return JournalFacts(unreadable=make_finding(
            "unreadable", JOURNAL_FILE, f"cannot be read ({reason}): no entry is read and appends are "
            "refused, so drift is not judged until it is a regular file in the memory directory again"))
    end = data.rfind(b"\n") + 1
    complete, torn = data[:end], data[end:]
    if complete:
        facts.lines += _parse_lines(facts, complete.decode("utf-8", errors="replace"), facts.lines + 1)
        facts.offset += end
        facts.guard = (facts.guard + complete[-_GUARD:])[-_GUARD:]
    facts.tail = []
    if torn.strip():
        text = torn.decode("utf-8", errors="replace")
        try:
            entry = parse_json(text)
        except ValueError:
            entry = None
        if entry is not None and _problem(entry) is None:
            _record(facts, entry)  # a hand edit that lost the final newline: a good entry
        else:
            facts.tail = [_bad(facts.lines + 1, text, "torn last line (no newline; a writer was interrupted)")]
    return facts
