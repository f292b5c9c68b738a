"""The live-refresh shape the curation panes share: note what changed, re-read only that, off the UI thread.

The Health pane (a warm ``Linter``) and the reconcile queue (a warm
``Snapshot``) both keep state that re-reads only the files a change names.
That state is not thread-safe, and Textual's exclusive thread workers
cannot be stopped, only told they were cancelled, so a run holds
``run_lock`` for its whole length and a cancelled run gives up before
starting; the changed paths live apart, behind their own short lock, so the
UI thread can add to them while a run is in progress without waiting for it.
A pane that is not on screen only remembers that it is stale and catches
up when shown: at launch it must not compete with the index build.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from wikimem_tui.core.changes import StoreChange

__all__ = ["IncrementalRefresh"]


class IncrementalRefresh:
    """The changed paths and the run lock of one curation pane; the pane holds one and says how a run starts."""

    def __init__(self, reload: Callable[[], None], on_screen: Callable[[], bool]) -> None:
        self._reload = reload
        """Starts a run in the pane's thread worker."""
        self._on_screen = on_screen
        """Whether the pane is on screen now (off screen it only remembers that it is stale)."""
        self.run_lock = threading.Lock()
        """Held by a worker for a whole run (the warm state keeps changing between runs)."""
        self._changed_lock = threading.Lock()
        self._changed: set[str] = set()
        self.stale = True
        """True when a change arrived (or nothing ran yet) and no run has started since."""

    def changed(self, change: StoreChange | None = None) -> None:
        """Re-read the changed files: now if the pane is on screen, else when it is next shown."""
        if change is not None:
            with self._changed_lock:
                self._changed.update(f"wiki/{f}.md" for f in change.wiki_files)
                self._changed.update(f"diary/{d}.md" for d in change.diary_dates)
        self.stale = True
        if self._on_screen():
            self._reload()

    def shown(self) -> None:
        """The pane came on screen: catch up if a change arrived while it was hidden."""
        if self.stale:
            self._reload()

    def take_changed(self) -> list[str]:
        """The paths changed since the last run (relative, sorted); the next run starts from none."""
        with self._changed_lock:
            changed, self._changed = self._changed, set()
        return sorted(changed)
