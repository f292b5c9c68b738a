"""The cyclic garbage collector and a large store's long-lived heap: keep full collections off the keys.

On a large store the app holds objects in proportion to it -- the
catalogue a list per item (its link targets), the journal pane a row per
line -- all alive for the whole session. Python's collector traverses
every tracked object at each full collection, and it runs one each time
the heap grew by a quarter, so while the store is read the app stops --
holding the interpreter lock, frames and query worker included -- for
pauses that grow with the store, again and again, and a query typed
during the build waits for them (``bench/bench_app.py``, whose
``app_probes.GcPauses`` times every collection, shows them). A keystroke
arriving in one waits for it whole.

So, for a large store only (:data:`LARGE`: a small one's collections
cost milliseconds and tests keep the normal collector):

* the collector is off while the first catalogue and index are read (the
  library pauses it for its own load too, but turns it on again in the
  middle of the catalogue's), then everything alive is frozen
  (``gc.freeze``: moved where no collection looks) before it is on again;
* afterwards, a collection that took longer than :data:`SLOW` means the
  heap grew by a lot of long-lived objects (the journal's rows), or that
  the collector was off for a while (the library pauses it around a
  store-wide read, the health pane's lint included: the first young
  collection after it then traverses everything read, and a middle and a
  full one follow at once): what survived it is frozen as well, so
  the next ones look only at what is new.

The price: a frozen object that later becomes part of a reference cycle is
not freed until the app exits (objects without cycles still are, by their
reference counts; the catalogue and the index are replaced whole and hold
none). That is bounded by what was alive at a freeze, and ``close`` (the
app unmounting) unfreezes, so a process running many apps (the tests)
collects them as usual.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

__all__ = ["LARGE", "SLOW", "LongLivedHeap"]

#: Items from which a store's heap is worth freezing (the index's own caches start there too).
LARGE = 20_000
#: A collection longer than this freezes what survived it (a small app's full ones take ~1-10 ms).
SLOW = 0.05


class LongLivedHeap:
    """One App's hold on the collector: off during the first reads, freezing a large heap afterwards."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._paused = False
        """True while this object turned the collector off (and must turn it on again)."""
        self._watching = False
        self._started = 0.0
        self.freezes = 0
        """How many times what was alive got frozen (the tests' and the benchmark's evidence)."""

    def pause(self) -> None:
        """The first reads start: no collection until :meth:`settled` (only if the collector is on now)."""
        if not self._paused and gc.isenabled():
            gc.disable()
            self._paused = True

    def settled(self, items: int) -> None:
        """The first catalogue and index are in: freeze them (a large store), then collect as usual."""
        if items >= LARGE:
            self._freeze()
            if not self._watching:
                gc.callbacks.append(self._collected)
                self._watching = True
        self._resume()

    def close(self) -> None:
        """The app is going: the collector as it was, nothing frozen (a test process runs many apps)."""
        if self._watching:
            gc.callbacks.remove(self._collected)
            self._watching = False
        if self.freezes:
            gc.unfreeze()
        self._resume()

    def _resume(self) -> None:
        if self._paused:
            self._paused = False
            gc.enable()

    def _freeze(self) -> None:
        gc.freeze()
        self.freezes += 1

    def _collected(self, phase: str, info: dict[str, Any]) -> None:
        """gc's callback: a slow collection freezes its survivors (called once it is over, at "stop")."""
        if phase == "start":
            self._started = self._clock()
        elif self._clock() - self._started > SLOW:
            self._freeze()
