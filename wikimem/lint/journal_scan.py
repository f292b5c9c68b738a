"""journal.jsonl for lint: lines that are not entries, and when each file was last logged.

The journal is append-only, so a re-lint reads only what was appended since
the last one, through the journal's one follower
(:class:`wikimem.journal.JournalFollower`, which starts over after a
rotation or a hand edit); the latest line per file is kept by
:class:`wikimem.journal.LatestLines`. What lint adds is the judgement: a
finding for each line that is not an entry, for a torn last line (re-judged
on every scan) and for a journal that is not read at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from wikimem.journal import JOURNAL_FILE, BadLine, JournalFollower, LatestLines
from wikimem.lint.findings import Finding, make_finding
from wikimem.disk.tolerant import UnreadableError, loads_tolerant

__all__ = ["JournalFacts", "scan_journal"]


@dataclass
class JournalFacts(LatestLines):
    """What the journal says, as far as its follower has read (whole lines only).

    ``last`` (see :class:`~wikimem.journal.LatestLines`) maps a memory path
    (``wiki/f.md``, ``diary/D.md``) to the ts and action of its latest line;
    ``bad`` holds findings for the whole lines read; ``tail`` is the finding
    for an unterminated last line, re-judged on every scan. ``changed``
    names the paths whose latest line the last scan changed, and ``fresh``
    is true when that scan read the journal from its start (so every path
    may have changed).
    """

    follower: JournalFollower | None = None
    bad: list[Finding] = field(default_factory=list)
    tail: list[Finding] = field(default_factory=list)
    fresh: bool = True
    #: Set when the journal exists but is not read (a symlink out of the memory, a FIFO, no permission).
    unreadable: Finding | None = None

    @property
    def offset(self) -> int:
        """Bytes of the journal read so far (whole lines only)."""
        return self.follower.offset if self.follower is not None else 0

    @property
    def findings(self) -> list[Finding]:
        """Every bad line, the torn tail included (or why the journal was not read)."""
        if self.unreadable is not None:
            return [self.unreadable]
        return self.bad + self.tail


def _bad(line: BadLine) -> Finding:
    shown = line.text if len(line.text) <= 80 else line.text[:77] + "..."
    return make_finding("journal-bad-line", JOURNAL_FILE, f"{line.why}: {shown!r}", line=line.line)


def scan_journal(root: Path, previous: JournalFacts | None = None) -> JournalFacts:
    """Scan ``root/journal.jsonl``, continuing from ``previous`` when it only grew."""
    if previous is not None and previous.unreadable is not None:
        previous = None  # nothing was read: start over (and re-judge every path)
    follower = previous.follower if previous is not None and previous.follower is not None else None
    if follower is None:
        follower = JournalFollower(root / JOURNAL_FILE, root=root)
    read = follower.read()
    if read.missing:
        gone = previous is not None and (read.reset or bool(previous.last or previous.tail))
        return JournalFacts(follower=follower, fresh=previous is None or gone)
    if read.unreadable is not None:
        exc = read.unreadable
        reason = exc.reason if isinstance(exc, UnreadableError) else (exc.strerror or str(exc))
        return JournalFacts(follower=follower, unreadable=make_finding(
            "unreadable", JOURNAL_FILE, f"cannot be read ({reason}): no entry is read and appends are "
            "refused, so drift is not judged until it is a regular file in the memory directory again"))
    if previous is None or read.reset:
        facts = JournalFacts(follower=follower)
    else:
        facts = previous
        facts.fresh = False
        facts.changed = set()
    facts.bad += map(_bad, facts.feed(read.text, read.first_line))
    facts.tail = []
    if read.torn.strip():
        # A hand edit that lost the final newline is a good entry; anything else was torn.
        if not facts.feed_entry(loads_tolerant(read.torn)):
            facts.tail = [_bad(BadLine(read.torn_line, read.torn,
                                       "torn last line (no newline; a writer was interrupted)"))]
    return facts
