"""A capture run: session logs in, Evidence Cards and diary entries out, in one recoverable write.

The order of a run, and why:

1. read the logs *outside* the store lock (hundreds of logs must not block
   the agent's own writes); a log whose size and hash match its card is not
   even parsed;
2. under the lock, plan every change against what is on disk *now*: a new
   session gets a card and an entry, a session that grew a follow-up entry
   for the part that grew, an unchanged one nothing (a second run changes
   no byte);
3. write every snapshot, day file and journal line as one multi-file write
   (``wikimem.disk.intent``), so a killed process never leaves an entry
   without its card nor a card whose entries were lost.

An entry goes at the session's (or grown part's) first time in ``tz``. A
session that read the memory anywhere makes all its entries derived
(anti-echo). Nothing is refused silently: what cannot be written without
loss refuses the sessions that would change it, and the report says why.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from wikimem.capture.card import Summary, build_card, card_id, summarize
from wikimem.capture.claude_code import read_claude_code
from wikimem.capture.codex import read_codex
from wikimem.capture.discover import session_files
from wikimem.capture.entry import entry_content, render_card_ref
from wikimem.capture.jsonl import prefix_sha256
from wikimem.capture.redact import redact
from wikimem.capture.report import CaptureReport, PlannedEntry
from wikimem.capture.session import Session
from wikimem.capture.snapshot import DaySnapshot, SnapshotError, list_snapshots, read_snapshot, render_snapshot
from wikimem.diary import insert_entry
from wikimem.disk.blocks import Block
from wikimem.disk.intent import FileChange, commit
from wikimem.disk.lock import store_lock
from wikimem.disk.names import validate_date
from wikimem.disk.splice import RawFile, check, split_raw
from wikimem.disk.tolerant import read_regular
from wikimem.errors import LossyWriteError
from wikimem.journal import JOURNAL_FILE, Journal

__all__ = ["CaptureReport", "PlannedEntry", "capture", "capture_sessions", "owner_of", "source_of"]

Reader = Callable[[Path], Session]
_READERS: dict[str, Reader] = {"claude-code": read_claude_code, "codex": read_codex}


def owner_of(agent: str) -> str:
    """The owner of a captured entry: ``agent:claude-code``, ``agent:codex``."""
    return f"agent:{agent}"


def source_of(agent: str, session_id: str) -> str:
    """The ``source_conv`` of a captured entry: the agent and the session id."""
    return f"{agent}:{session_id}"


def _local(ts: str, tz: dt.tzinfo | None) -> tuple[str, str]:
    moment = dt.datetime.fromisoformat(ts).astimezone(tz)
    return moment.strftime("%Y-%m-%d"), moment.strftime("%H:%M")


def _mtime_ts(path: Path) -> str | None:
    try:
        return dt.datetime.fromtimestamp(os.stat(path).st_mtime, dt.timezone.utc).replace(microsecond=0).isoformat()
    except (OSError, OverflowError, ValueError):
        return None


def _redact_identity(session: Session) -> None:
    """Redact, once as it is read, what names and places a session: its id, cwd, branch and path go into cards,
    diary entries, the journal and the report (a token in a folder or a branch name is still a token)."""
    session.session_id = redact(session.session_id)
    session.parent_id = redact(session.parent_id) if session.parent_id else session.parent_id
    session.cwd = redact(session.cwd) if session.cwd else session.cwd
    session.branch = redact(session.branch) if session.branch else session.branch
    session.shown = redact(session.shown)


def _talks(session: Session) -> bool:
    return any(e.role in ("user", "assistant", "interrupt") for e in session.events)


def _known_by_path(root: Path) -> dict[str, dict[str, Any]]:
    """Every readable card by its session path (for the fast "unchanged" test before any parsing)."""
    out: dict[str, dict[str, Any]] = {}
    for date in list_snapshots(root):
        try:
            snapshot = read_snapshot(root, date)
        except SnapshotError:
            continue
        for card in snapshot.cards.values():
            if isinstance(card.get("path"), str):
                out[card["path"]] = card
    return out


def _unchanged(path: Path, card: dict[str, Any] | None) -> bool:
    read = card.get("read") if card else None
    if not isinstance(read, dict) or not isinstance(read.get("bytes"), int):
        return False
    try:
        size = os.stat(path).st_size
    except OSError:
        return False
    return size == read["bytes"] and prefix_sha256(path, size) == read.get("sha256")


Progress = Callable[[int, int], None]


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _read_sessions(agent: str, paths: Sequence[str | os.PathLike[str]] | None, since: str | None,
                   tz: dt.tzinfo | None, report: CaptureReport, root: Path, progress: Progress | None) -> list[Session]:
    files, report.missing = session_files(agent, paths, passed=report.skipped)
    known = _known_by_path(root)
    reader = _READERS[agent]
    sessions: list[Session] = []
    for done, path in enumerate(files):
        if progress is not None:
            progress(done, len(files))
        shown = str(path)
        if not _utf8(shown):  # a card names its log by path, in UTF-8: this one it could not name
            report.skipped.append((shown.encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
                                   "its path is not valid UTF-8 (a card could not name it): rename it to capture it"))
            continue
        stamp = _mtime_ts(path)
        if since and stamp and _local(stamp, tz)[0] < since:
            report.skipped.append((shown, f"last written before --since {since}"))
            continue
        if _unchanged(path, known.get(str(path.absolute()))):
            report.unchanged += 1
            continue
        try:
            session = reader(path.absolute())
        except OSError as exc:
            report.skipped.append((shown, f"cannot be read: {exc.strerror or exc}"))
            continue
        session.shown = shown
        _redact_identity(session)
        if session.skipped:
            report.notes.append((shown, dict(sorted(session.skipped.items()))))
        sessions.append(session)
    mains: dict[str, Session] = {}
    for session in sessions:
        if session.parent_id is None:
            other = mains.setdefault(session.session_id, session)
            if other is not session:  # one session in two files (a copy): the longer one is the session
                keep, drop = (other, session) if other.size >= session.size else (session, other)
                mains[session.session_id] = keep
                report.skipped.append((drop.shown, f"the same session as {keep.shown}"))
    out: list[Session] = []
    for session in sessions:
        if session.parent_id is None and mains.get(session.session_id) is not session:
            continue
        if session.parent_id is not None:
            parent = mains.get(session.parent_id)
            if parent is not None:
                parent.subagents += 1
                if session.derived:  # what the sub-agent read, the parent was handed
                    parent.derived_at.append(parent.size)
            report.skipped.append((session.shown, f"sub-agent transcript of session {session.parent_id}: "
                                   "counted with its parent, not captured on its own"))
        elif not _talks(session):
            report.skipped.append((session.shown, "no conversation in it (no request, no reply)"))
        elif since and session.last_ts and _local(session.last_ts, tz)[0] < since:
            report.skipped.append((session.shown, f"last active before --since {since}"))
        else:
            out.append(session)
    if progress is not None:
        progress(len(files), len(files))
    return out


class _Plan:
    """The changes of one run, staged: snapshots and day files by date, journal lines, what is refused."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.snapshots: dict[str, DaySnapshot] = {}
        self.damaged: dict[str, str] = {}
        self.index: dict[str, str] = {}  # card id -> date of its snapshot
        for date in list_snapshots(root):
            try:
                self.snapshots[date] = read_snapshot(root, date)
            except SnapshotError as exc:
                self.damaged[f"captures/{date}"] = str(exc)
                continue
            for cid in self.snapshots[date].cards:
                self.index.setdefault(cid, date)
        self.days: dict[str, RawFile] = {}
        self.lines: list[bytes] = []
        self.dirty_snapshots: set[str] = set()
        self.dirty_days: set[str] = set()

    def card(self, cid: str) -> tuple[str, dict[str, Any]] | None:
        date = self.index.get(cid)
        return (date, self.snapshots[date].cards[cid]) if date else None

    def snapshot_problem(self, date: str) -> str | None:
        return self.damaged.get(f"captures/{date}")

    def day(self, date: str) -> RawFile | str:
        """The day file staged (or read now); a string says why it cannot be written."""
        if date in self.days:
            return self.days[date]
        if f"diary/{date}" in self.damaged:
            return self.damaged[f"diary/{date}"]
        try:
            raw = split_raw(read_regular(self.root / "diary" / f"{date}.md", root=self.root))
            check(raw, f"diary/{date}.md", [], f"capturing into the diary of {date}", unique=False)
        except (OSError, LossyWriteError) as exc:
            self.damaged[f"diary/{date}"] = str(exc)
            return str(exc)
        self.days[date] = raw
        return raw

    def changes(self) -> list[FileChange]:
        """Snapshots first, then day files: a reader between the two sees cards without entries, never the reverse."""
        out = [FileChange(self.root / s.relative, s.origin, render_snapshot(s))
               for d, s in sorted(self.snapshots.items()) if d in self.dirty_snapshots]
        out += [FileChange(self.root / "diary" / f"{d}.md", self.days[d].origin, self.days[d].data())
                for d in sorted(self.dirty_days)]
        return out


def _stage(plan: _Plan, session: Session, report: CaptureReport, tz: dt.tzinfo | None) -> None:
    """Plan one session's card and entry (or nothing, when it is unchanged)."""
    cid = card_id(session.agent, session.session_id)
    known = plan.card(cid)
    part, follow_up, rewritten = session, False, False
    if known is not None:
        read = known[1].get("read") or {}
        old: int = read["bytes"] if isinstance(read.get("bytes"), int) else -1
        if old == session.size and read.get("sha256") == session.sha256:
            report.unchanged += 1
            return
        still = 0 <= old and prefix_sha256(session.path, old) == read.get("sha256")
        if still and session.size <= old:
            # Read before another capture took the file further: nothing here that the card lacks.
            report.unchanged += 1
            return
        follow_up = True
        if still:
            part = session.since(old)
        else:
            rewritten = True
    whole = summarize(session)
    stamp = part.first_ts or session.first_ts or _mtime_ts(session.path)
    if stamp is None:
        report.skipped.append((session.shown, "no time in it, and its file time cannot be read"))
        return
    date, time = _local(stamp, tz)
    card_date = known[0] if known else date
    problem = plan.snapshot_problem(card_date)
    raw = plan.day(date) if _talks(part) else None
    if problem is None and isinstance(raw, str):
        problem = raw
    if problem is not None:
        report.refused.append((session.shown, problem))
        return
    entries = list(known[1].get("entries") or []) if known else []
    if raw is not None and not isinstance(raw, str):
        ref = render_card_ref(card_date, cid)
        summary = summarize(part)
        summary = Summary(summary.goal, summary.outcome, summary.unresolved, summary.update, summary.first,
                          summary.last, session.derived, summary.requests, summary.replies)
        content = entry_content(session.agent, session.session_id, summary, cwd=session.cwd, branch=session.branch,
                                card_ref=ref, follow_up=follow_up, rewritten=rewritten)
        block = Block(time, content, owner_of(session.agent), source_of(session.agent, session.session_id), stamp)
        ordinal, journaled = insert_entry(raw, date, block,
                                          detail=f"captured from {session.agent} session {session.session_id}")
        plan.dirty_days.add(date)
        plan.lines.append(Journal.encode(journaled))
        entry = PlannedEntry(cid, session.session_id, session.shown, date, time, ordinal, content, follow_up,
                             session.derived)
        entries.append(entry.entry_id.render())
        report.entries.append(entry)
    first = known[1].get("first") if known else None
    card = build_card(session, whole, entries=entries, first=first if isinstance(first, str) else None)
    snapshot = plan.snapshots.setdefault(card_date, DaySnapshot(card_date))
    snapshot.cards[cid] = card
    plan.index[cid] = card_date
    plan.dirty_snapshots.add(card_date)
    (report.updated if known else report.new).append(cid)


def _sweep_temps(root: Path) -> None:
    """Drop snapshot temp files a killed capture left (under the lock no writer has one open)."""
    try:
        names = os.listdir(root / "captures")
    except OSError:
        return
    for name in names:
        if name.startswith(".") and name.endswith(".tmp") and ".capture.json." in name:
            with contextlib.suppress(OSError):
                os.unlink(root / "captures" / name)


def capture(
    root: str | os.PathLike[str],
    agent: str,
    paths: Sequence[str | os.PathLike[str]] | None = None,
    *,
    since: str | None = None,
    tz: dt.tzinfo | str | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> CaptureReport:
    """Capture ``agent``'s sessions (under ``paths``, default its own folder) into the memory at ``root``.

    ``since`` (``YYYY-MM-DD``) leaves out sessions last active before that
    day; ``tz`` (a tzinfo or an IANA name) is the wall clock of the diary
    days; ``dry_run`` plans everything and writes nothing; ``progress(done,
    total)`` is called as the logs are read (an app's progress bar; the
    write that follows is one short step). Returns what was
    (or would be) written; ``ValueError`` for an unknown ``agent``, a bad
    ``since`` or ``tz``.
    """
    if agent not in _READERS:
        raise ValueError(f"unknown agent {agent!r}: expected one of {', '.join(_READERS)}")
    if since is not None:
        validate_date(since)
    try:
        zone = ZoneInfo(tz) if isinstance(tz, str) else tz
    except (KeyError, ValueError):
        raise ValueError(f"invalid tz {tz!r}: unknown time zone") from None
    memory = Path(root)
    report = CaptureReport(agent, dry_run)
    sessions = _read_sessions(agent, paths, since, zone, report, memory, progress)
    sessions.sort(key=lambda s: (s.first_ts or "", card_id(s.agent, s.session_id)))
    if not sessions:
        return report.scrub()
    if dry_run:
        plan = _Plan(memory)
        for session in sessions:
            _stage(plan, session, report, zone)
        report.written = [c.path.relative_to(memory).as_posix() for c in plan.changes()]
        return report.scrub()
    with store_lock(memory):
        _sweep_temps(memory)
        plan = _Plan(memory)
        for session in sessions:
            _stage(plan, session, report, zone)
        changes = plan.changes()
        commit(memory, changes, memory / JOURNAL_FILE, b"".join(plan.lines))
    report.written = [c.path.relative_to(memory).as_posix() for c in changes if c.before != c.after]
    return report.scrub()


#: ``capture`` under the name the package face exports it by (``wikimem.capture`` is the subpackage).
capture_sessions = capture
