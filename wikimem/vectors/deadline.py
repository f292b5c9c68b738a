"""A deadline for one whole HTTP call: httpx limits each socket read, not the call.

An endpoint that drips a byte a second never trips a per-read timeout. The
call runs in a daemon thread and the caller waits at most the deadline;
past it the caller gets ``httpx.ReadTimeout`` and the connection's socket is
shut down (``shutdown``, not ``close``: only that wakes a read blocked in
another thread), so the worker ends at once instead of lingering.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["Deadline"]


class Deadline:
    """``seconds`` for one whole call; pass :meth:`trace` as the request's ``trace`` extension."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._streams: list[Any] = []
        self._lock = threading.Lock()

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace hook: keep the network stream of a new connection."""
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self.watch(info.get("return_value"))

    def watch(self, stream: Any) -> None:
        """Remember ``stream`` (shut it down now if the deadline already passed)."""
        if stream is None:
            return
        with self._lock:
            self._streams.append(stream)
            late = self.expired
        if late:
            _shutdown(stream)

    def run(self, call: Callable[[], T], message: str) -> T:
        """``call()``'s result, or ``httpx.ReadTimeout(message)`` once ``seconds`` have passed."""
        import httpx

        box: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                box["value"] = call()
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=work, name="wikimem-embed", daemon=True).start()
        if not done.wait(self.seconds):
            with self._lock:
                self.expired = True
                streams = list(self._streams)
            for stream in streams:
                _shutdown(stream)
            raise httpx.ReadTimeout(message)
        if "error" in box:
            raise box["error"]
        value: T = box["value"]
        return value


def _shutdown(stream: Any) -> None:
    """Shut ``stream``'s socket down: a read blocked on it returns at once (close() alone does not)."""
    try:
        sock = stream.get_extra_info("socket")
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
    except (OSError, AttributeError):
        pass
