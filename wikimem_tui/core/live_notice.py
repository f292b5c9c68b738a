"""One "changed on disk" toast per burst, not one per write.

An agent that writes every 50 ms would otherwise stack a toast per write
over the item the user is reading (toolong's rule: messages that would pile
up replace each other). The first change of a quiet spell is announced at
once; changes arriving within ``every`` seconds of the last toast are
merged and announced together when that interval ends, with how many there
were.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from wikimem_tui.core.changes import StoreChange

__all__ = ["LiveNotices"]


class LiveNotices:
    """Coalesce external changes into at most one toast per ``every`` seconds."""

    def __init__(
        self,
        notify: Callable[[str], None],
        set_timer: Callable[[float, Callable[[], None]], Any],
        *,
        every: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._notify = notify
        self._set_timer = set_timer
        self._every = every
        self._clock = clock
        self._pending: list[StoreChange] = []
        self._timer: Any = None
        self._last = float("-inf")

    def add(self, change: StoreChange) -> None:
        """Note one external change; announce now, or merged with the rest of its burst."""
        self._pending.append(change)
        if self._timer is not None:
            return
        wait = self._last + self._every - self._clock()
        if wait <= 0:
            self.flush()
        else:
            self._timer = self._set_timer(wait, self.flush)

    def flush(self) -> None:
        """Announce what is pending (called by the timer)."""
        self._timer = None
        changes, self._pending = self._pending, []
        if not changes:
            return
        merged = StoreChange(
            frozenset().union(*(c.wiki_files for c in changes)),
            frozenset().union(*(c.diary_dates for c in changes)),
            journal=any(c.journal for c in changes),
            external=True,
        )
        text = f"changed on disk: {merged.describe()}"
        if len(changes) > 1:
            text += f" ({len(changes)} changes)"
        self._notify(text)
        self._last = self._clock()
