"""The served index's wiki vectors, embedded in the background and kept current.

Why not inside a recall: the first sync embeds the whole wiki (seconds with
the fast local encoder, minutes with the accurate one or an endpoint), and
an agent's call must not wait for it, nor for an endpoint that is down. So
the server's index runs with ``vector_sync="manual"``: a recall fuses cosine
once the vectors are ready and ranks with BM25 alone until then, and
whenever the encoder fails. A sync runs after the index is built and again,
from a recall, when wiki items lack a vector (written since the last one);
after a failure it is retried no sooner than :data:`RETRY_SECONDS` later,
so a dead endpoint costs one warning, not one timeout per call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["RETRY_SECONDS", "VectorSync"]

#: Least time between a failed sync and the next attempt.
RETRY_SECONDS = 60.0


class VectorSync:
    """One background vector sync at a time for ``index``; through ``warn``: the first success, a failure, a recovery."""

    def __init__(self, index: Any, warn: Callable[[str], None], clock: Callable[[], float]) -> None:
        self.index = index
        self._warn = warn
        self._clock = clock
        self._lock = threading.Lock()
        self._running = False
        self._failed_at: float | None = None
        self._done = False  # a sync has succeeded (said once)
        #: The last background sync :meth:`catch_up` started (None before the first).
        self.thread: threading.Thread | None = None

    @property
    def failing(self) -> bool:
        """Whether the last sync failed (recall is BM25 only until one works)."""
        return self._failed_at is not None

    def run(self) -> bool:
        """Embed what the vector cache lacks, in this thread; False when it failed or another sync runs."""
        with self._lock:
            if self._running:
                return False
            self._running = True
        try:
            status = self.index.sync_vectors()
        except Exception as exc:  # noqa: BLE001 - any encoder failure: BM25 only, never a crash
            with self._lock:
                if self._failed_at is None:
                    self._warn(f"embeddings ({self.index.embedder!r}) unavailable: {exc}; recall ranks with "
                               f"BM25 only (retried from a recall, at most every {RETRY_SECONDS:g} s)")
                self._failed_at = self._clock()
            return False
        finally:
            with self._lock:
                self._running = False
        with self._lock:
            first = not self._done
            if self._failed_at is not None or first:
                covered = f"{status.embedded} of {status.total}" if status is not None else "the"
                self._warn(f"embeddings ({self.index.embedder!r}) ready: {covered} wiki items embedded; "
                           "recall is fused")
            self._failed_at, self._done = None, True
        return True

    def catch_up(self) -> threading.Thread | None:
        """Start a background sync when wiki items lack a vector (none while one runs or soon after a failure)."""
        with self._lock:
            if self._running:
                return None
            if self._failed_at is not None and self._clock() - self._failed_at < RETRY_SECONDS:
                return None
        status = self.index.vector_status()
        if status is None or (status.ready and status.missing == 0):
            return None
        thread = self.thread = threading.Thread(target=self.run, name="wikimem-vector-sync", daemon=True)
        thread.start()
        return thread
