"""The journal's writer: the lines a mutation appends, and reading them all back.

The store appends a write's lines together with its files
(``wikimem.disk.intent``), which is why an entry can be built
(:meth:`Journal.entry`) apart from being written. Reading skips a line that
is not a JSON object; ``wikimem lint`` reports it.
"""


from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from wikimem.disk.atomic import append_whole
from wikimem.disk.entry_id import EntryId
from wikimem.disk.names import utc_now_iso
from wikimem.disk.tolerant import UnreadableError, loads_tolerant, open_regular, read_regular, warn_unreadable

__all__ = ["JOURNAL_FILE", "Journal", "logged_entry_id"]

#: The journal's name inside a memory directory.
JOURNAL_FILE = "journal.jsonl"


#: How much of the journal :meth:`Journal.recent` reads at a time, from the end.
_BLOCK = 64 * 1024


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

    def recent(self, limit: int, *, since: str | None = None) -> list[dict[str, Any]]:
        """The newest ``limit`` well-formed entries, newest first; with ``since``, only those at or after it.

        What an agent asks at the start of a session ("what changed
        lately"), on a journal that may hold millions of lines: the file is
        read backwards in blocks, so the last few lines cost a block or two.
        ``since`` is an ISO date or time (``2026-07-21``,
        ``2026-07-21T09:00:00+00:00``) compared with each line's ``ts``;
        the journal is in the order things happened, so the reading stops
        at the first older line. Unreadable journal: no entries (one WARNING).
        """
        if limit <= 0:
            return []
        try:
            handle = open_regular(self.path, root=self.path.parent)
        except UnreadableError as exc:
            warn_unreadable(exc)
            return []
        if handle is None:
            return []
        out: list[dict[str, Any]] = []
        with handle:
            end = handle.seek(0, os.SEEK_END)
            tail: list[bytes] = []  # the line cut by the last block, as blocks from its end backwards
            while end > 0 and len(out) < limit:
                start = max(0, end - _BLOCK)
                handle.seek(start)
                block = handle.read(end - start)
                end = start
                if start > 0 and b"\n" not in block:
                    tail.append(block)  # inside one long line: held, not joined again for every block
                    continue
                lines = (block + b"".join(reversed(tail))).split(b"\n")
                tail = [lines.pop(0)] if start > 0 else []  # a line cut by the block: finished by the next one
                for line in reversed(lines):
                    entry = loads_tolerant(line.decode("utf-8", "replace")) if line.strip() else None
                    if not isinstance(entry, dict):
                        continue
                    if since is not None and str(entry.get("ts", "")) < since:
                        return out
                    out.append(entry)
                    if len(out) == limit:
                        break
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
