"""Reading ``journal.jsonl`` as it grows: rows and an incremental follower.

Kept apart from the widgets (and free of Textual) so the reading rules can be
tested and reused without an App: the health pane reads the same rows. The
follower notices growth by size, and truncation, rotation or a same-inode
rewrite by inode and a fingerprint of the first bytes; a trailing line
without its newline is held back until it is complete, so a reader never
sees half a JSON object or half a UTF-8 character.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, NamedTuple

from wikimem import UnreadableError, loads_tolerant, open_regular

__all__ = ["ACTIONS", "MALFORMED", "POLL_SECONDS", "JournalFollower", "JournalRow", "parse_line"]

#: How often the reader thread looks at the file when nobody wakes it.
POLL_SECONDS = 0.25
#: Bytes compared at the head of the file to notice a same-inode rewrite.
_FINGERPRINT = 64

#: The actions the journal records (SPEC §1), and the pseudo-action of a bad line.
ACTIONS = ("add", "update", "remove", "diary")
MALFORMED = "malformed"


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
    def target(self) -> str:
        """``file:item`` for wiki actions, ``date time`` for diary appends."""
        if self.data is None:
            return ""
        if self.action == "diary":
            return f"{self.field('date')} {self.field('time')}".strip()
        return f"{self.field('file')}:{self.field('item')}"


def parse_line(lineno: int, text: str) -> JournalRow:
    """Parse one journal line; anything that is not a JSON object is kept raw."""
    text = text.rstrip("\r")
    data = loads_tolerant(text)  # deep nesting too: the pane must not take the app down
    return JournalRow(lineno, text, data if isinstance(data, dict) else None)


class JournalFollower:
    """Incremental reader of one append-only file; knows nothing about Textual.

    ``poll()`` returns ``(reset, rows)``: ``reset`` means the file was
    truncated, replaced or rewritten and ``rows`` start again from line 1. A
    trailing line without its newline is held back until it is complete.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._inode: int | None = None
        self._offset = 0
        self._head = b""
        self._partial = b""
        self._lineno = 0
        self._lock = threading.Lock()
        #: Why the journal exists but is not read (a symlink out of the memory, a FIFO,
        #: no permission), for the pane's status line; None while it reads fine.
        self.problem: str | None = None

    def _restart(self) -> None:
        self._offset, self._head, self._partial, self._lineno = 0, b"", b"", 0

    def poll(self) -> tuple[bool, list[JournalRow]]:
        """Read whatever was appended since the last call."""
        with self._lock:
            try:
                # Regular files inside the memory only: a FIFO would hang this
                # thread, a symlink would show some other file's lines.
                fh = open_regular(self.path, root=self.path.parent)
                self.problem = None
            except UnreadableError as exc:
                fh, self.problem = None, f"journal.jsonl cannot be read ({exc.reason})"
            except OSError:
                fh = None
            if fh is None:  # missing (not yet written, or mid-rotation), or not read
                reset = self._inode is not None and self._offset > 0
                self._inode = None
                self._restart()
                return reset, []
            with fh:
                st = os.fstat(fh.fileno())
                reset = False
                if self._inode is not None and (
                    st.st_ino != self._inode
                    or st.st_size < self._offset
                    or (self._head and fh.read(len(self._head)) != self._head)
                ):
                    reset = True
                    self._restart()
                self._inode = st.st_ino
                if st.st_size == self._offset:
                    return reset, []
                fh.seek(self._offset)
                data = fh.read()
            if len(self._head) < _FINGERPRINT:
                self._head = (self._head + data)[:_FINGERPRINT]
            self._offset += len(data)
            data = self._partial + data
            end = data.rfind(b"\n") + 1  # decode whole lines only: UTF-8 may be cut mid-character
            self._partial = data[end:]
            rows: list[JournalRow] = []
            for line in data[:end].decode("utf-8", errors="replace").split("\n")[:-1]:
                self._lineno += 1
                if line.strip():
                    rows.append(parse_line(self._lineno, line))
            return reset, rows
