"""journal.jsonl: the append-only answer to "what happened to my memory".

One JSON object per mutation, one line each, non-ASCII kept raw so the file
reads well in a pager. An append is whole or absent
(``wikimem.disk.atomic.append_whole``): written on an ``O_APPEND`` descriptor
until every byte is out, and cut back to where it started when the disk is
full, so a reader never keeps half a line the writer gave up on. The store
appends a write's lines together with its files (``wikimem.disk.intent``). Reading is tolerant: a line
that is not a JSON object (a torn tail, a hand edit) is skipped here and
reported by ``wikimem lint`` (``journal-bad-line``).

The journal is read and appended only as a regular file inside the memory
directory: a ``journal.jsonl`` that is a symlink pointing outside it, a FIFO
or any other non-regular file is refused (reads see no entries, appends
raise ``wikimem.disk.tolerant.UnreadableError``), so memory activity never leaks
to, or blocks on, something else. A symlink to a file inside the memory
directory is followed.

The journal has one reader for whoever follows it as it grows (lint, the
app's journal pane): :class:`JournalFollower` reads from where it stopped,
whole lines only, hands back an unterminated last line on every read until
its newline arrives, and starts over when the file was replaced, truncated
or rewritten. :class:`LatestLines` keeps the latest line about each memory
file, which is what drift is judged against.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import threading
from dataclasses import dataclass, field
from operator import itemgetter, methodcaller
from pathlib import Path
from typing import Any

from wikimem.disk.atomic import append_whole
from wikimem.disk.entry_id import EntryId
from wikimem.disk.names import CANONICAL_TS_RE, utc_now_iso
from wikimem.disk.tolerant import UnreadableError, loads_tolerant, open_regular, parse_json, read_regular, warn_unreadable

__all__ = ["JOURNAL_FILE", "BadLine", "Journal", "JournalFollower", "JournalRead", "LatestLines", "latest_lines",
           "logged_entry_id"]

#: The journal's name inside a memory directory.
JOURNAL_FILE = "journal.jsonl"


class Journal:
    """Append-only log of wiki and diary mutations at ``path``."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def append(
        self,
        action: str,
        *,
        file: str,
        name: str,
        owner: str | None = None,
        source_conv: str | None = None,
        detail: str | None = None,
        by: str | None = None,
    ) -> dict[str, Any]:
        """Record a wiki mutation (``add``, ``update``, ``remove``); returns the entry.

        ``by`` (written only when given) names who made the change when that
        is not the item's ``owner``: an edit keeps the memory's owner.
        """
        return self._write(self.entry(action, file=file, name=name, owner=owner, source_conv=source_conv,
                                      detail=detail, by=by))

    @staticmethod
    def entry(
        action: str,
        *,
        file: str,
        name: str,
        owner: str | None = None,
        source_conv: str | None = None,
        detail: str | None = None,
        by: str | None = None,
    ) -> dict[str, Any]:
        """The entry :meth:`append` would write, not written (a store write stages it with its file)."""
        entry: dict[str, Any] = {"ts": utc_now_iso(), "action": action, "file": file, "item": name}
        return _fill(entry, owner, source_conv, detail, by)

    @staticmethod
    def diary_entry(
        *,
        date: str,
        time: str,
        owner: str | None = None,
        source_conv: str | None = None,
        detail: str | None = None,
        ordinal: int | None = None,
    ) -> dict[str, Any]:
        """The entry :meth:`append_diary` would write, not written.

        ``ordinal`` (written only when given) is the appended entry's place
        among the entries of its minute (1 for the first; see
        :mod:`wikimem.disk.entry_id`), so two appends to one minute name two
        entries (:func:`logged_entry_id`).
        """
        entry: dict[str, Any] = {"ts": utc_now_iso(), "action": "diary", "date": date, "time": time}
        if ordinal is not None:
            entry["ordinal"] = ordinal
        return _fill(entry, owner, source_conv, detail, None)

    @staticmethod
    def encode(entry: dict[str, Any]) -> bytes:
        """One journal line, as written (``ensure_ascii=False``, ``\\n``-terminated)."""
        return (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")

    def append_diary(
        self,
        *,
        date: str,
        time: str,
        owner: str | None = None,
        source_conv: str | None = None,
        detail: str | None = None,
        ordinal: int | None = None,
    ) -> dict[str, Any]:
        """Record a diary append; returns the entry (``ordinal``: see :meth:`diary_entry`)."""
        return self._write(self.diary_entry(date=date, time=time, owner=owner, source_conv=source_conv, detail=detail,
                                            ordinal=ordinal))

    def check(self) -> None:
        """Raise :class:`~wikimem.disk.tolerant.UnreadableError` when an append would be refused.

        Writers call it before they change a file, so a journal that is a
        symlink out of the memory or a FIFO refuses the write before it
        lands rather than after (nothing is created here).
        """
        handle = open_regular(self.path, root=self.path.parent)
        if handle is not None:
            handle.close()

    def entries(self) -> list[dict[str, Any]]:
        """Every well-formed entry in file order; unreadable lines are skipped.

        A journal that is not a regular file in the memory directory (a
        symlink out of it, a FIFO) or cannot be read is no entries, with one
        WARNING (lint reports it as ``unreadable``).
        """
        try:
            data = read_regular(self.path, root=self.path.parent)
        except UnreadableError as exc:
            warn_unreadable(exc)
            return []
        if data is None:
            return []
        out: list[dict[str, Any]] = []
        # split("\n"), not splitlines(): json.dumps(ensure_ascii=False) leaves
        # U+2028, U+2029 and U+0085 raw, and splitlines() would tear such a
        # line in two and lose the entry.
        for line in data.decode("utf-8", errors="replace").split("\n"):
            if not line.strip():
                continue
            entry = loads_tolerant(line)
            if isinstance(entry, dict):
                out.append(entry)
        return out

    def _write(self, entry: dict[str, Any]) -> dict[str, Any]:
        append_whole(self.path, self.encode(entry))
        return entry


def logged_entry_id(entry: dict[str, Any]) -> EntryId | None:
    """Which diary entry a journal line of a diary append names, or ``None``.

    ``None`` for a line that is not a diary append and for one written
    before appends carried their ``ordinal`` (it names only the minute: of
    two entries in it, either may be meant), or whose fields are damaged.
    """
    date, time, ordinal = entry.get("date"), entry.get("time"), entry.get("ordinal")
    if entry.get("action") != "diary" or type(date) is not str or type(time) is not str:
        return None
    if type(ordinal) is not int or ordinal < 1:
        return None
    return EntryId(date, time, ordinal)


def _fill(
    entry: dict[str, Any], owner: str | None, source_conv: str | None, detail: str | None, by: str | None
) -> dict[str, Any]:
    for key, value in (("owner", owner), ("source_conv", source_conv), ("detail", detail), ("by", by)):
        if value is not None:
            entry[key] = value
    return entry


# -- following the journal as it grows ----------------------------------------

#: Bytes compared at the head of the file and just before the last read's end:
#: when either differs, the file was rewritten and is read again from the start.
_GUARD = 64


@dataclass(frozen=True)
class JournalRead:
    """What one :meth:`JournalFollower.read` found since the previous one.

    ``text`` holds the whole lines appended (each ending in ``\\n``; ``""``
    when none), the first of them numbered ``first_line``. ``torn`` is an
    unterminated last line (a writer mid-append, or a hand edit that lost
    its newline): it is offered again on every read until it is complete.
    ``reset`` says the follower started over from line 1 after having read
    something (the file was replaced, truncated, rewritten or removed).
    ``missing``: there is no journal; ``unreadable``: it exists but was
    not read (a :class:`~wikimem.disk.tolerant.UnreadableError` for a symlink out
    of the memory or a FIFO, else the ``OSError``).
    """

    reset: bool = False
    first_line: int = 1
    text: str = ""
    torn: str = ""
    missing: bool = False
    unreadable: OSError | None = None

    @property
    def torn_line(self) -> int:
        """The line number ``torn`` would have."""
        return self.first_line + self.text.count("\n")

    def lines(self) -> list[tuple[int, str]]:
        """``(line number, text)`` of each non-blank whole line."""
        return [(self.first_line + i, line) for i, line in enumerate(self.text.split("\n")[:-1]) if line.strip()]


class JournalFollower:
    """Incremental reader of ``journal.jsonl``: whole lines from where the last read stopped.

    Growth is noticed by size; a replacement (another inode), a truncation
    or a rewrite in place (the first bytes, or the bytes just before the
    old end, differ) by starting over. Only regular files inside the
    memory directory are read (``root``, default the file's folder): a FIFO
    would hang the reader, a symlink would show some other file's lines.
    Thread-safe: a worker may read while another thread asks.
    """

    def __init__(self, path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path)
        self.root = Path(root) if root is not None else self.path.parent
        self._lock = threading.Lock()
        self._inode: int | None = None
        self._restart()

    def _restart(self) -> None:
        self._offset, self._lines, self._head, self._tail = 0, 0, b"", b""

    @property
    def offset(self) -> int:
        """Bytes read so far (whole lines only): where the next read starts."""
        return self._offset

    def read(self) -> JournalRead:
        """Read whatever was appended since the last call."""
        with self._lock:
            try:
                handle = open_regular(self.path, root=self.root)
                if handle is None:
                    return self._lost(missing=True)
                with handle:
                    st = os.fstat(handle.fileno())
                    reset = bool(self._offset) and (st.st_ino != self._inode or st.st_size < self._offset
                                                    or not self._same(handle))
                    if reset:
                        self._restart()
                    self._inode = st.st_ino
                    handle.seek(self._offset)
                    data = handle.read()
            except OSError as exc:
                return self._lost(unreadable=exc)
            end = data.rfind(b"\n") + 1  # whole lines only: UTF-8 may be cut mid-character
            complete = data[:end]
            read = JournalRead(reset, self._lines + 1, complete.decode("utf-8", errors="replace"),
                               data[end:].decode("utf-8", errors="replace"))
            if complete:
                self._lines += complete.count(b"\n")
                self._offset += end
                self._head = (self._head + complete)[:_GUARD]
                self._tail = (self._tail + complete[-_GUARD:])[-_GUARD:]
            return read

    def _same(self, handle: Any) -> bool:
        """True when the head and the bytes before the old end are those already read."""
        if handle.read(len(self._head)) != self._head:
            return False
        handle.seek(self._offset - len(self._tail))
        return bool(handle.read(len(self._tail)) == self._tail)

    def _lost(self, *, missing: bool = False, unreadable: OSError | None = None) -> JournalRead:
        """The journal is gone or not read: start over, a reset if something was read."""
        had = self._offset > 0
        self._inode = None
        self._restart()
        return JournalRead(reset=had, missing=missing, unreadable=unreadable)


# -- the latest line about each memory file ----------------------------------

_TS, _ACTION = itemgetter("ts"), itemgetter("action")
_FILE, _DATE = methodcaller("get", "file"), methodcaller("get", "date")
_ALL_CANONICAL_RE = re.compile(f"(?:{CANONICAL_TS_RE.pattern}\n)*")


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

        The common case, every line an entry, is one C-level parse of the
        lines made a JSON array; only when that fails (a blank or bad line
        makes it invalid, or the count differ) is each line parsed alone.
        """
        if not text:
            return []
        try:
            parsed = parse_json("[" + text[:-1].replace("\n", ",") + "]")
        except ValueError:
            parsed = None
        if parsed is not None and len(parsed) == text.count("\n") and self._record_all(parsed):
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

    def _record_all(self, parsed: list[Any]) -> bool:
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
        if _ALL_CANONICAL_RE.fullmatch("\n".join(set(stamps)) + "\n") and stamps == sorted(stamps):
            for (file, date), (ts, action) in dict(zip(places, zip(stamps, actions))).items():
                self._remember(_path(file, date), ts, action)
        else:
            for (file, date), ts, action in zip(places, stamps, actions):
                self._remember(_path(file, date), _canonical(ts), action)
        return True


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
        moment = dt.datetime.fromisoformat(ts)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return moment.astimezone(dt.timezone.utc).replace(microsecond=0).isoformat()


def latest_lines(root: str | os.PathLike[str]) -> dict[str, tuple[str, str]]:
    """The latest line about each memory path in ``root``'s journal, read once (see :class:`LatestLines`)."""
    read = JournalFollower(Path(root) / JOURNAL_FILE, root=root).read()
    latest = LatestLines()
    latest.feed(read.text, read.first_line)
    if read.torn.strip():
        latest.feed_entry(loads_tolerant(read.torn))
    return latest.last
