"""The journal pane's rows: ``journal.jsonl`` as it grows, read by the library's one follower.

Kept apart from the widgets (and free of Textual) so the reading rules can be
tested without an App. Following the file is ``wikimem.JournalFollower``'s
job, the same follower lint reads with: growth by size; truncation,
rotation or a rewrite in place by inode and the bytes around what was
read; a torn last line (a writer mid-append) held back until its newline
arrives, so the pane never sees half a JSON object or half a UTF-8
character; a FIFO or a symlink out of the memory not read. This module
only turns its whole lines into :class:`JournalRow` values and says why a
journal that exists is not read.
"""

from __future__ import annotations

import json
from pathlib import Path
from collections.abc import Iterator
from typing import Any, NamedTuple

from wikimem import JournalFollower, UnreadableError, loads_tolerant, logged_entry_id

__all__ = ["ACTIONS", "MALFORMED", "POLL_SECONDS", "UNDO", "UNDO_DETAIL", "JournalRow", "JournalRows", "parse_line"]

#: How often the reader thread looks at the file when nobody wakes it.
POLL_SECONDS = 0.25

#: The actions the journal records (SPEC §1), and the pseudo-action of a bad line.
ACTIONS = ("add", "update", "remove", "diary")
MALFORMED = "malformed"

#: How an undo's lines begin their ``detail`` (``Backend.undo``: ``undo of <the write>``). SPEC §1 has no
#: undo action: an undo journals the ``add``/``update``/``remove`` that puts the old block back, so the
#: reference's readers see ordinary lines; the pane recognises an undo by its detail, and says so.
UNDO_DETAIL = "undo of "
#: The filter's pseudo-action for undo lines (whatever their action).
UNDO = "undo"


class JournalRow(NamedTuple):
    """One line of the journal: parsed fields, or the raw text when not JSON.

    A tuple rather than a dataclass: a 100k-line journal creates 100k of
    these, and a tuple is built several times faster than a frozen dataclass.
    """

    lineno: int
    raw: str
    data: dict[str, Any] | None

    @property
    def malformed(self) -> bool:
        """True when the line is not a JSON object."""
        return self.data is None

    def field(self, key: str) -> str:
        """A field as text (``""`` when absent, JSON for non-strings)."""
        if self.data is None:
            return ""
        value = self.data.get(key)
        if value is None:
            return ""
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

    @property
    def action(self) -> str:
        """The journal action, or ``"malformed"``."""
        return MALFORMED if self.data is None else self.field("action")

    @property
    def undo(self) -> bool:
        """True for a line an undo wrote (its ``detail`` starts with :data:`UNDO_DETAIL`)."""
        return self.field("detail").startswith(UNDO_DETAIL)

    @property
    def target(self) -> str:
        """``file:item`` for wiki actions, ``date time[#n]`` for diary appends (``#n``: the minute's n-th entry)."""
        if self.data is None:
            return ""
        if self.action == "diary":
            key = self.entry_key
            return f"{self.field('date')} {key or self.field('time')}".strip()
        return f"{self.field('file')}:{self.field('item')}"

    @property
    def entry_key(self) -> str | None:
        """The appended entry as ``EntryId.key`` names it (``HH:MM``, ``HH:MM#2``...), when the line says which.

        Lines written before appends carried their ``ordinal`` name only the
        minute: None then (opening one shows the minute's first entry).
        """
        entry = logged_entry_id(self.data) if self.data is not None else None
        return entry.key if entry is not None else None


def parse_line(lineno: int, text: str) -> JournalRow:
    """Parse one journal line; anything that is not a JSON object is kept raw."""
    text = text.rstrip("\r")
    data = loads_tolerant(text)  # deep nesting too: the pane must not take the app down
    return JournalRow(lineno, text, data if isinstance(data, dict) else None)


class JournalRows:
    """The journal's new lines as rows, read by the library's follower; knows nothing about Textual.

    ``poll()`` returns ``(reset, rows)``: ``reset`` means the file was
    truncated, replaced or rewritten and ``rows`` start again from line 1.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._follower = JournalFollower(path, root=path.parent)
        #: Why the journal exists but is not read (a symlink out of the memory, a FIFO,
        #: no permission), for the pane's status line; None while it reads fine.
        self.problem: str | None = None

    def poll(self) -> tuple[bool, list[JournalRow]]:
        """Read whatever was appended since the last call (whole lines only)."""
        reset, rows = False, []
        for i, (chunk_reset, chunk) in enumerate(self.poll_chunks()):
            reset = reset or (i == 0 and chunk_reset)
            rows.extend(chunk)
        return reset, rows

    def poll_chunks(self, size: int = 0) -> Iterator[tuple[bool, list[JournalRow]]]:
        """:meth:`poll` as ``(reset, rows)`` chunks of at most ``size`` rows (0: one), parsed as they are asked for.

        A large journal parsed in one go would hold the reader for its
        whole length and reach the view in one batch that blocks the event
        loop: in chunks the reader can pause between them (for the user,
        ``core/activity``) and the view takes each within a frame.
        Only the first chunk can say ``reset``. Always yields at least once.
        """
        read = self._follower.read()
        if isinstance(read.unreadable, UnreadableError):
            self.problem = f"journal.jsonl cannot be read ({read.unreadable.reason})"
        elif read.unreadable is None:
            self.problem = None
        lines = read.lines()
        step = size or max(len(lines), 1)
        for start in range(0, max(len(lines), 1), step):
            yield read.reset and start == 0, [parse_line(lineno, line) for lineno, line in lines[start : start + step]]
