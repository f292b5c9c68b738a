"""Following journal.jsonl as it grows: whole lines from where the last read stopped.

Whoever follows the journal (lint, the app's journal pane) reads with
:class:`JournalFollower`: from where it stopped, whole lines only, handing
back an unterminated last line on every read until its newline arrives, and
starting over when the file was replaced, truncated or rewritten. Only a
regular file inside the memory directory is read: a FIFO would hang the
reader, a symlink out of the memory would show some other file's lines.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.disk.tolerant import open_regular

__all__ = ["JournalFollower", "JournalRead"]

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
