"""Background work that can wait (the index warm-up) pauses while the user types and while a query is answered.

At 1M items the warm-up's scans took the interpreter lock from the event
loop and the query worker: results reached the screen 0.4-1.1 s after the
debounce (bench/bench_app.py). These tests check the wiring, never a time:
keys and clicks touch ``Backend.activity``, the query worker holds it busy,
and the warm-up's every step waits on it.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

from textual.widgets import Input

from conftest import SAFETY_NET, make_app, make_backend, started, wait_for, wait_until
from wikimem import MemoryIndex, MemoryStore
from wikimem_tui.core.activity import Activity
from wikimem_tui.query.query_panel import QueryPanel


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_touch_keeps_work_paused_for_the_quiet_time_then_lets_it_go() -> None:
    clock = Clock()
    activity = Activity(quiet=1.0, clock=clock)
    assert activity.idle_for() == 0.0  # nobody did anything yet
    activity.touch()
    assert activity.idle_for() == 1.0
    clock.now += 0.6
    assert abs(activity.idle_for() - 0.4) < 1e-9
    activity.touch()  # another key: the quiet time starts again
    assert activity.idle_for() == 1.0
    clock.now += 1.0
    assert activity.idle_for() == 0.0


def test_work_stays_paused_while_an_answer_is_in_flight_however_long() -> None:
    clock = Clock()
    activity = Activity(quiet=1.0, clock=clock)
    with activity.busy():
        clock.now += 50.0
        assert activity.idle_for() == math.inf
    assert activity.idle_for() == 1.0  # the quiet time counts from the answer, not from before it
    clock.now += 1.0
    assert activity.idle_for() == 0.0


def test_a_paused_worker_resumes_when_the_answer_is_done_and_stops_when_cancelled() -> None:
    activity = Activity(quiet=0.0)
    resumed: list[bool] = []
    with activity.busy():
        worker = threading.Thread(target=lambda: resumed.append(activity.wait_quiet(lambda: False)))
        worker.start()
        assert not resumed  # it waits as long as the answer is in flight
    worker.join(SAFETY_NET)
    assert resumed == [True] and activity.pauses == 1

    cancelled = threading.Event()
    stopped: list[bool] = []
    activity = Activity(quiet=SAFETY_NET * 10)
    activity.touch()
    worker = threading.Thread(target=lambda: stopped.append(activity.wait_quiet(cancelled.is_set)))
    worker.start()
    cancelled.set()  # the app quits: the worker must not wait for quiet
    worker.join(SAFETY_NET)
    assert stopped == [False]


async def test_keys_touch_the_activity_and_the_warm_up_waits_for_quiet(memory_dir: Path) -> None:
    backend = make_backend(memory_dir)
    backend.activity.quiet = SAFETY_NET * 10  # once touched, quiet never comes within the test
    steps: list[bool] = []
    waiting = threading.Event()

    def warm(*, should_stop: Any, **_: Any) -> None:  # the index's warm-up, one step
        waiting.set()
        steps.append(should_stop())

    app = make_app(backend)
    async with app.run_test(size=(120, 40)) as pilot:
        # The first reads done (the index, then the catalogue): the app's own warm-up has started, and ours replaces it.
        await wait_for(pilot, lambda: app.index_ready and app.catalogue is not None, "the index and the catalogue")
        backend.activity.touch()  # as if the user had typed before the build ended
        backend.index.warm = warm  # type: ignore[method-assign]
        app.sync.warm_index()
        assert await wait_for(pilot, waiting.is_set, "the warm-up's first step")
        await pilot.press("slash", "c")
        assert backend.activity.idle_for() > SAFETY_NET  # the keys touched it
        assert steps == []  # the step still waits for quiet
        backend.activity.quiet = 0.0
        assert await wait_for(pilot, lambda: steps == [False], "the step to go on")


async def test_the_query_worker_holds_the_activity_busy_while_it_answers(memory_dir: Path) -> None:
    backend = make_backend(memory_dir)
    seen: list[float] = []

    class Watched(MemoryIndex):
        def retrieve(self, *args: Any, **kwargs: Any) -> Any:
            seen.append(backend.activity.idle_for())
            return super().retrieve(*args, **kwargs)

    backend.index = Watched(MemoryStore(memory_dir), use_jieba=False)
    backend.activity.quiet = 0.5
    async with started(make_app(backend), size=(120, 40)) as pilot:
        app = pilot.app
        await pilot.press("slash")
        app.query_one("#query-input", Input).value = "coffee"
        panel = app.query_one(QueryPanel)
        assert await wait_for(pilot, lambda: panel.last_result is not None)
        assert seen and all(s == math.inf for s in seen)  # busy: no step of the warm-up meanwhile
        wait_until(lambda: backend.activity.idle_for() == 0.0, "quiet after the answer")
