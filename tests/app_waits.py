"""How a test waits: for an event, never for a time (the suite must pass on a loaded 2-core machine).

One module for the one pattern every app test shares, instead of a patch per
test: :func:`wait_for` (a condition, or the app quiet: see :func:`busy`),
:func:`settled` (quiet, no animation due, and the picture the same over
another quiet turn: what a snapshot or a check of the whole screen needs)
and :func:`wait_until` (outside an app: a process, a thread, a file); and
:func:`screen_text`, the one way a test reads the screen (as the app paints
it: a read must never change what the app shows next). Each
one's only deadline is :data:`SAFETY_NET`, and reaching it fails the test
saying what was awaited and what the app was still doing. ``conftest``
re-exports them, so tests import them from there as before.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from contextlib import suppress
from functools import partial
from typing import Any

SAFETY_NET = 120.0
"""The only deadline a wait has, in seconds: far beyond anything the app takes
even on a loaded 2-core machine, so reaching it means the awaited thing never
happens (a hang or a bug), never that the machine was slow."""

BACKGROUND = frozenset({"journal-tail", "watch", "warm"})
"""Worker groups nothing waits for: the followers of a file live as long as the app, and
the index warm-up only speeds later queries (they never wait for it)."""


def _app_timer(timer: Any) -> bool:  # noqa: ANN401
    """A one-shot timer the app set (a debounce) that has not fired yet.

    Textual's own one-shot timers (a toast's expiry, seconds away) and every
    repeating timer are not work the app still owes.
    """
    task = timer._task
    if task is None or task.done() or timer._repeat != 0:
        return False
    callback = timer._callback
    callback = callback.args[0] if isinstance(callback, partial) and callback.args else callback  # set_timer wraps it
    return str(getattr(getattr(callback, "func", callback), "__module__", "")).startswith("wikimem")


def _answers(app: Any) -> set[asyncio.Future[Any]]:  # noqa: ANN401
    """The futures a flow waits on for a dialog's answer: each screen's pending result and the
    ``asyncio.shield`` around it that Textual's ``push_screen_wait`` awaits (found in its callback)."""
    answers: set[asyncio.Future[Any]] = set()
    for screen in app.screen_stack:
        for result in screen._result_callbacks:
            future = result.future
            if future is None or future.done():
                continue
            answers.add(future)
            for callback, _context in getattr(future, "_callbacks", None) or ():
                for cell in getattr(callback, "__closure__", None) or ():
                    with suppress(ValueError):  # an empty cell
                        if isinstance(cell.cell_contents, asyncio.Future):
                            answers.add(cell.cell_contents)
    return answers


def busy(app: Any) -> list[str]:  # noqa: ANN401
    """What the app still has to do, in words; empty when it is quiet.

    Quiet: no key held or settling at the App's key gate, no message queued
    on the app or any node of its screens, no callback waiting for a
    refresh, no debounce timer pending, no animation running or scheduled,
    and no worker running but the background ones (``BACKGROUND``) and flows
    waiting for the user's answer (an async worker blocked on a dialog's result).
    """
    from textual.worker import WorkerState

    said: list[str] = []
    gate = getattr(app, "key_gate", None)  # WikimemApp's: keys held until the one before them settled
    if gate is not None and (gate.holding or gate._busy):
        said.append(f"the key gate is settling a key ({gate.holding} held)")
    answers = _answers(app)
    for worker in list(app.workers):
        if worker.state not in (WorkerState.PENDING, WorkerState.RUNNING) or worker.group in BACKGROUND:
            continue
        task = worker._task
        if not worker._thread_worker and task is not None and getattr(task, "_fut_waiter", None) in answers:
            continue  # a flow waiting for the user's answer in a dialog
        said.append(f"worker {worker.name!r} (group {worker.group!r}) {worker.state.name.lower()}")
    animator = app.animator
    if animator._animations or animator._scheduled:
        said.append("an animation is running or scheduled")
    nodes = [app]
    for screen in app.screen_stack:
        nodes.extend(screen.walk_children(with_self=True))
    for node in nodes:
        if node.message_queue_size or node._next_callbacks:
            said.append(f"{type(node).__name__} has messages queued")
        if getattr(node, "_callbacks", None):
            said.append(f"{type(node).__name__} has callbacks waiting for a refresh")
        said.extend(f"timer {t.name} on {type(node).__name__} pending" for t in list(node._timers) if _app_timer(t))
    return said


def _described(condition: Callable[[], object] | None) -> str:
    """The awaited condition in words: a lambda's own text, else the function's name."""
    if condition is None:
        return "the app to be quiet"
    name = getattr(condition, "__qualname__", repr(condition))
    try:
        source = " ".join(inspect.getsource(condition).split())
    except (OSError, TypeError):
        return name
    start = source.find("lambda")
    if getattr(condition, "__name__", "") != "<lambda>" or start < 0:
        return name
    depth = 0
    for end in range(start, len(source)):  # up to the comma or bracket that closes the lambda
        char = source[end]
        if char in "([{":
            depth += 1
        elif char in ")]}" and depth == 0 or char == "," and depth == 0:
            return source[start:end]
        elif char in ")]}":
            depth -= 1
    return source[start:]


async def wait_for(
    pilot: Any,  # noqa: ANN401
    condition: Callable[[], object] | None = None,
    what: str | None = None,
    *,
    safety_net: float = SAFETY_NET,
) -> bool:
    """Wait until ``condition()`` holds, or (without one) until the app is quiet (see :func:`busy`).

    The one way a test waits: it lets the app run (``pilot.pause()``: every
    queued message handled) between checks, so it ends as soon as the event
    happened, however loaded the machine. Its only deadline is
    ``safety_net``, and reaching it fails the test saying what was awaited
    (``what``, else the condition's source) and what the app was still
    doing, never "too slow". Returns True, so ``assert await wait_for(...)``
    reads as a check.
    """
    if what is not None and not isinstance(what, str):  # the older helpers took a per-call limit there
        raise TypeError(f"what is the awaited thing in words, not {what!r}: a wait's only deadline is the safety net")
    app = pilot.app
    deadline = time.monotonic() + safety_net
    while True:
        if condition is not None and condition():
            return True
        await pilot.pause()
        if condition is None and not busy(app):
            return True
        if time.monotonic() > deadline:
            doing = "; ".join(busy(app)) or "nothing"
            raise AssertionError(
                f"waited {safety_net:g} s for {what or _described(condition)}: it never happened "
                f"(the app was still doing: {doing})"
            )


def _strips(app: Any) -> list[Any]:  # noqa: ANN401
    """The active screen's lines as the app paints them: any screens below a dialog drawn beneath it.

    The app's own paint sets Textual's ``visible_screen_stack`` (in the
    app's task) before it renders; a test's read runs in the test's task,
    where it is unset, and a dialog's translucent background then renders
    over nothing. Worse, that render is cached: the next screenshot showed
    the dialog on a blank screen (the delete dialog snapshot, failing
    whenever the test's check happened to render first after a refresh).
    So every read sets the stack the app would, on a copy (rendering pops it).
    """
    from textual._context import visible_screen_stack

    token = visible_screen_stack.set(list(app._background_screens))
    try:
        return list(app.screen._compositor.render_strips())
    finally:
        visible_screen_stack.reset(token)


def screen_text(app: Any) -> str:  # noqa: ANN401
    """Everything on the active screen (toasts and the screens below a dialog included), as plain text lines."""
    return "\n".join(strip.text for strip in _strips(app))


def frame(app: Any) -> tuple[tuple[Any, ...], ...]:  # noqa: ANN401
    """What the terminal shows now, every cell's text and style."""
    return tuple(tuple(strip) for strip in _strips(app))


async def settled(pilot: Any, *, safety_net: float = SAFETY_NET) -> bool:  # noqa: ANN401
    """Wait until the app is quiet and its picture stays the same over a further quiet turn.

    Quiet alone (:func:`busy`) can hold between two steps of a chain the app
    does not announce: a background thread's ``call_from_thread``, a
    refresh a handler asked for that the next frame paints. A snapshot taken
    there caught the picture before or after it, by the machine's speed.
    Two equal frames with a quiet turn between them are the event "nothing
    left to draw"; the safety net is the only deadline.
    """
    deadline = time.monotonic() + safety_net
    await wait_for(pilot, safety_net=safety_net)
    before = frame(pilot.app)
    while True:
        await pilot.wait_for_scheduled_animations()
        await wait_for(pilot, safety_net=max(deadline - time.monotonic(), 0.0))
        now = frame(pilot.app)
        if now == before:
            return True
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {safety_net:g} s for the app's picture to settle: it kept changing")
        before = now


def wait_until(
    condition: Callable[[], object], what: str | None = None, *, safety_net: float = SAFETY_NET
) -> bool:
    """:func:`wait_for` for code outside an app: another process, a thread, a file being written.

    Polls ``condition()`` every 10 ms (a sleep inside a loop that waits for
    the event, never a sleep instead of it); the same safety net and message.
    """
    deadline = time.monotonic() + safety_net
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {safety_net:g} s for {what or _described(condition)}: it never happened")
        time.sleep(0.01)
    return True
