"""Whether the user is at the keys: background work that can wait keeps off the interpreter meanwhile.

The app runs its slow work in thread workers so the event loop never
blocks, but threads share one interpreter lock: a busy worker takes it
every switch interval, so the loop, drawing a frame, gets about its share
of it, and the query worker too. On a large store, background work that
holds the lock for seconds (an index warm-up's scans) makes each frame
several times slower and pushes a keystroke's results well past the
debounce (``bench/bench_app.py`` measures the keystroke).

So work that only prepares the future (the warm-up) asks
:meth:`Activity.wait_quiet` before each step, and the UI says when the
user acts (:meth:`Activity.touch`, every key, paste and click) and when a
query is being answered (:meth:`Activity.busy`): the work pauses from the
first key and resumes once nothing happened for ``quiet`` seconds. It
pauses between steps, so a key arriving mid-step waits for one step at
most (the debounce before a query is longer than that).

Free of Textual: the App touches it, workers wait on it, tests drive it
with their own clock.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["QUIET_SECONDS", "Activity"]

#: How long nothing must happen before paused work resumes: longer than a pause between typed words.
QUIET_SECONDS = 1.0
#: How often a paused worker looks whether it was cancelled (the app quitting must not wait for quiet).
_CANCEL_POLL = 0.1


class Activity:
    """The user's last action and the answers in flight; ``wait_quiet`` for work that can wait."""

    def __init__(self, quiet: float = QUIET_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.quiet = quiet
        """Seconds without a key, a click or a query before paused work resumes."""
        self._clock = clock
        self._last = float("-inf")
        self._busy = 0
        self._changed = threading.Condition()
        self.pauses = 0
        """How many times work waited here (the tests' and the benchmark's evidence that it did)."""

    def touch(self) -> None:
        """The user did something (from the event loop): paused work stays paused ``quiet`` s more."""
        with self._changed:
            self._last = self._clock()

    @contextmanager
    def busy(self) -> Iterator[None]:
        """Around an answer the user waits for (a query in its worker): nothing that can wait runs meanwhile."""
        with self._changed:
            self._busy += 1
        try:
            yield
        finally:
            with self._changed:
                self._busy -= 1
                self._last = max(self._last, self._clock())
                self._changed.notify_all()

    def idle_for(self) -> float:
        """Seconds still to wait before work may resume: 0 when it may now, infinite while an answer is in flight."""
        with self._changed:
            if self._busy:
                return math.inf
            return max(0.0, self._last + self.quiet - self._clock())

    def wait_quiet(self, cancelled: Callable[[], bool]) -> bool:
        """Block the calling worker until the user has been quiet for ``quiet`` s; False if cancelled meanwhile."""
        waited = False
        while not cancelled():
            remaining = self.idle_for()
            if remaining <= 0:
                if waited:
                    self.pauses += 1
                return True
            waited = True
            with self._changed:
                self._changed.wait(min(remaining, _CANCEL_POLL))
        return False
