"""While the query pane's index builds: what a waiting query says, and what the first build cost.

A query typed during a build waits (the pane is told when the index is
ready, never polls) and says how far the build is. The first build's
duration is reported once, for the jieba case (a user who chose it should
know what it cost). No Textual here: the pane shows what this says.
"""

from __future__ import annotations

import time

__all__ = ["WAITING", "IndexWait"]

WAITING = "waiting for the index…"


class IndexWait:
    """Whether the index is (re)building, the note a waiting query shows, the first build's start."""

    def __init__(self) -> None:
        self.building = False
        """While True, queries wait and the status says :attr:`note`."""
        self.note = WAITING
        self._first_started: float | None = None
        self._first_told = False

    def start(self, note: str = "") -> str:
        """A build starts (``note``: what it is for); the note to show."""
        if self._first_started is None:
            self._first_started = time.perf_counter()
        self.building = True
        self.note = note or WAITING
        return self.note

    def finish(self) -> float | None:
        """The build is done; the first build's seconds, the first time it ends (None otherwise)."""
        seconds = None
        if self.building and self._first_started is not None and not self._first_told:
            self._first_told = True
            seconds = time.perf_counter() - self._first_started
        self.building = False
        return seconds

    def progress(self, done: int, total: int) -> str:
        """How far the build is, as the waiting query says it."""
        pct = 100 * done // total if total else 100
        self.note = f"waiting for the index ({pct}%): the query runs when it is ready"
        return self.note
