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
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikimem.lint.findings import Finding, make_finding
from wikimem.lint.meta import CANONICAL_TS_RE

__all__ = ["JOURNAL_FILE", "JournalFacts", "scan_journal"]

JOURNAL_FILE = "journal.jsonl"
_GUARD = 64


@dataclass
class JournalFacts:
    """What the journal says, as of ``offset`` bytes (whole lines only).

    ``last`` maps a memory path (``wiki/f.md``, ``diary/D.md``) to the ts
    and action of its latest line; ``bad`` holds findings for the lines
    before ``offset``; ``tail`` is the finding for an unterminated last
    line, re-judged on every scan.
    """

    offset: int = 0
    lines: int = 0
    guard: bytes = b""
    last: dict[str, tuple[str, str]] = field(default_factory=dict)
    bad: list[Finding] = field(default_factory=list)
    tail: list[Finding] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        """Every bad line, the torn tail included."""
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


def _record(facts: JournalFacts, entry: dict[str, Any]) -> None:
    file = entry.get("file")
    if type(file) is str:
        path = f"wiki/{file}.md"
    else:
        date = entry.get("date")
        if type(date) is not str:
            return
        path = f"diary/{date}.md"
    ts = entry["ts"]
    if not CANONICAL_TS_RE.fullmatch(ts):
        try:
            moment = dt.datetime.fromisoformat(ts)
        except ValueError:
            return
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.timezone.utc)
        ts = moment.astimezone(dt.timezone.utc).replace(microsecond=0).isoformat()
    old = facts.last.get(path)
    if old is None or ts >= old[0]:
        facts.last[path] = (ts, entry["action"])


def _bad(line_no: int, text: str, why: str) -> Finding:
    shown = text if len(text) <= 80 else text[:77] + "..."
    return make_finding("journal-bad-line", JOURNAL_FILE, f"{why}: {shown!r}", line=line_no)


def _parse_lines(facts: JournalFacts, lines: list[str], first_line: int) -> None:
    numbered = [(first_line + i, line) for i, line in enumerate(lines) if line.strip()]
    if not numbered:
        return
    try:
        parsed = json.loads("[" + ",".join(line for _, line in numbered) + "]")
    except ValueError:
        parsed = None
    if parsed is not None and len(parsed) == len(numbered):
        try:
            for entry in parsed:
                if type(entry["ts"]) is not str or type(entry["action"]) is not str:
                    raise TypeError
        except (TypeError, KeyError, IndexError):
            pass  # some line is not an entry: find which, one by one
        else:
            for entry in parsed:
                _record(facts, entry)
            return
    for line_no, line in numbered:
        try:
            entry = json.loads(line)
        except ValueError:
            facts.bad.append(_bad(line_no, line, "not JSON"))
            continue
        problem = _problem(entry)
        if problem:
            facts.bad.append(_bad(line_no, line, f"not a journal entry ({problem})"))
        else:
            _record(facts, entry)


def scan_journal(root: Path, previous: JournalFacts | None = None) -> JournalFacts:
    """Scan ``root/journal.jsonl``, continuing from ``previous`` when it only grew."""
    path = root / JOURNAL_FILE
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            facts = previous
            if facts is not None and facts.offset <= size and facts.offset:
                handle.seek(max(0, facts.offset - _GUARD))
                if handle.read(min(_GUARD, facts.offset)) != facts.guard:
                    facts = None
            if facts is None:
                facts = JournalFacts()
            handle.seek(facts.offset)
            data = handle.read()
    except FileNotFoundError:
        return JournalFacts()
    except OSError:
        return previous or JournalFacts()
    end = data.rfind(b"\n") + 1
    complete, torn = data[:end], data[end:]
    if complete:
        lines = complete.decode("utf-8", errors="replace").split("\n")[:-1]
        _parse_lines(facts, lines, facts.lines + 1)
        facts.lines += len(lines)
        facts.offset += end
        facts.guard = (facts.guard + complete[-_GUARD:])[-_GUARD:]
    facts.tail = []
    if torn.strip():
        text = torn.decode("utf-8", errors="replace")
        try:
            entry = json.loads(text)
        except ValueError:
            entry = None
        if entry is not None and _problem(entry) is None:
            _record(facts, entry)  # a hand edit that lost the final newline: a good entry
        else:
            facts.tail = [_bad(facts.lines + 1, text, "torn last line (no newline; a writer was interrupted)")]
    return facts
