"""The app benchmark's probes: what a user would see, timed from outside the running app.

Each probe watches the real ``WikimemApp`` without changing what it does:
``Frames`` wraps ``App._display`` (the first frame showing a condition),
``QueryTimes`` the query pane's answer messages, ``GcPauses`` the cyclic
collector's pauses (which hold the interpreter lock: a frame or a query
waiting through one shows here); keys go in as the terminal driver sends
them (``send_key``), not through ``Pilot.press`` (which waits for the whole
process to go idle). ``bench_app`` puts them together into the figures.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from collections.abc import Callable
from typing import Any

from app_bench_store import sample_queries
from textual import events
from textual.keys import _character_to_key

from wikimem import MemoryStore
from wikimem_tui.query.query_panel import DEBOUNCE_SECONDS, QueryPanel

__all__ = ["WAIT_FOR_ANSWER", "Frames", "GcPauses", "QueryTimes", "expand", "load_avg", "ms", "peak_rss_mb",
           "per_key", "query_while_building", "send_key", "until", "warm_running"]

#: How long a query typed during the build may wait before the figure says "not answered".
WAIT_FOR_ANSWER = 300.0


class GcPauses:
    """Every pause of the cyclic collector from now on (``gc.callbacks``): when, how long, which generation."""

    def __init__(self) -> None:
        self.pauses: list[tuple[float, float, int]] = []
        self._started = 0.0
        gc.callbacks.append(self._seen)

    def _seen(self, phase: str, info: dict[str, Any]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._started = now
        else:
            self.pauses.append((self._started, now - self._started, int(info.get("generation", -1))))

    def within(self, start: float, end: float) -> float:
        """Seconds the collector held the interpreter between ``start`` and ``end`` (``perf_counter``)."""
        return sum(max(0.0, min(at + took, end) - max(at, start)) for at, took, _ in self.pauses)

    def longest(self) -> float:
        """The longest single pause seen."""
        return max((took for _, took, _ in self.pauses), default=0.0)

    def close(self) -> None:
        gc.callbacks.remove(self._seen)


async def until(pilot: Any, cond: Callable[[], bool], timeout: float = 120.0) -> float:
    """Seconds until ``cond()`` holds, polling every millisecond."""
    start = time.perf_counter()
    while not cond():
        if time.perf_counter() - start > timeout:
            raise TimeoutError("condition not reached")
        await asyncio.sleep(0.001)  # not pilot.pause: that also waits for a repaint
    return time.perf_counter() - start


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def load_avg() -> str:
    """The 1-minute load average, printed beside the figures it may have inflated."""
    return f"load avg {os.getloadavg()[0]:.1f}"


class Frames:
    """The frames the compositor renders (``App._display``), and the first one showing a condition.

    A headless run renders every frame as a real one does and hands it to
    ``_display`` (which then writes nothing), so the time of the first call
    after which ``cond()`` holds is when the user would see the change.
    """

    def __init__(self, app: Any) -> None:
        self._cond: Callable[[], bool] | None = None
        self.seen_at: float | None = None
        self.first_at: float | None = None
        """When the very first frame was rendered (what a user launching the app sees first)."""
        display = app._display

        def recorded(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if renderable is not None and self.first_at is None:
                self.first_at = time.perf_counter()
            if renderable is not None and self._cond is not None and self.seen_at is None and self._cond():
                self.seen_at = time.perf_counter()

        app._display = recorded

    async def shown(self, cond: Callable[[], bool], timeout: float = 120.0) -> float:
        """The ``perf_counter`` time of the first frame rendered while ``cond()`` holds."""
        self._cond, self.seen_at = cond, None
        try:
            await until(None, lambda: self.seen_at is not None, timeout)
        finally:
            self._cond = None
        assert self.seen_at is not None
        return self.seen_at


def warm_running(app: Any) -> bool:
    """Whether the index warm-up worker (StoreSync's group ``warm``) is still running."""
    from textual.worker import WorkerState  # noqa: PLC0415

    return any(w.group == "warm" and w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers)


def send_key(app: Any, key: str, character: str | None = None) -> None:
    """One key event into the app, as the terminal driver sends it; no waiting (``Pilot.press`` waits for idle)."""
    if character is None and len(key) == 1:
        character, key = key, _character_to_key(key)
    event = events.Key(key, character)
    event.set_sender(app)
    app._driver.send_message(event)


class QueryTimes:
    """When each query's answer left the worker and when the panel took it (by sequence number)."""

    def __init__(self, panel: QueryPanel) -> None:
        self.posted: dict[int, float] = {}
        self.showing: dict[int, float] = {}
        """When the panel started putting each answer on screen (the table's rows, the summary)."""
        self.shown_seq = -1
        post, show = panel.post_message, panel._show

        def posted(message: Any) -> bool:
            if isinstance(message, QueryPanel.Results):
                self.posted[message.seq] = time.perf_counter()
            return post(message)

        def shown(result: Any) -> None:
            self.showing[panel.runner.seq] = time.perf_counter()
            show(result)
            self.shown_seq = panel.runner.seq

        panel.post_message = posted  # type: ignore[method-assign]
        panel._show = shown  # type: ignore[method-assign]


async def per_key(pilot: Any, key: str, times: int) -> float:
    """Seconds per key press, the press waiting for the screen to repaint (as Pilot does)."""
    t0 = time.perf_counter()
    await pilot.press(*[key] * times)
    return (time.perf_counter() - t0) / times


async def query_while_building(app: Any, pilot: Any, store: MemoryStore, started: float) -> dict[str, Any]:
    """Type a query right after the first paint: what does the app say until the index is ready?"""
    out: dict[str, Any] = {}
    if app.index_ready:
        out["query during build"] = "index was ready at first paint"
        return out
    status_line = app.query_one("#status")
    progress_seen: list[str] = []

    def progress_shown() -> bool:
        text = str(status_line.render())
        if "%" in text and text not in progress_seen:
            progress_seen.append(text)
        return False

    app.set_focus(None)
    await pilot.press("slash")
    panel = app.query_one(QueryPanel)
    field = app.query_one("#query-input")
    query = sample_queries(store)[0]
    t0 = time.perf_counter()
    field.value = query
    said: list[str] = []
    ready_at: list[float] = []

    def answered() -> bool:
        progress_shown()
        if app.index_ready and not ready_at:
            ready_at.append(time.perf_counter() - started)
        text = str(panel.query_one("#query-status").render())
        if text and (not said or said[-1] != text):
            said.append(text)
        return panel.last_result is not None

    try:
        await until(pilot, answered, timeout=WAIT_FOR_ANSWER)
        answered_at = time.perf_counter() - started
        out["query typed during build: answered after"] = time.perf_counter() - t0
    except TimeoutError:
        answered_at = None
        out["query typed during build: answered after"] = f"not within {WAIT_FOR_ANSWER:.0f} s"
    if ready_at:
        out["index ready"] = ready_at[0]
        if answered_at is not None:  # what the query waited for beyond the build itself
            out["  answered after index ready"] = answered_at - ready_at[0]
    out["  query pane said meanwhile"] = " | ".join(said[:3]) or "-"
    out["  status line showed progress"] = f"{len(progress_seen)} distinct % updates" if progress_seen else "no"
    field.value = ""
    await pilot.pause(DEBOUNCE_SECONDS + 0.1)
    app.set_focus(None)
    return out


async def expand(app: Any, tree: Any, frames: Frames) -> float:
    """Seconds from a space on the cursor's (folded) file to the first frame showing its children."""
    await until(None, lambda: tree.cursor_node is not None)
    node = tree.cursor_node
    t0 = time.perf_counter()
    send_key(app, "space", " ")
    return await frames.shown(lambda: node.is_expanded and len(node.children) > 0) - t0


def peak_rss_mb() -> float:
    """Peak RSS of this process (the app runs in it) from getrusage, in MB."""
    import resource  # noqa: PLC0415

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6
