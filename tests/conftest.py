"""Shared fixtures for the app tests: a small memory on disk and a pinned Backend.

The memory holds what the app must handle: several RecallFiles, a Chinese
item, a resolved and a dangling wiki-link, content that looks like Rich
markup / ANSI escapes, and a few diary days. ``today`` and the clock are
fixed, and HOME / XDG_CONFIG_HOME / WIKIMEM_STORE are isolated so no test
reads the developer's config.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import inspect
import shutil
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, suppress
from functools import partial
from pathlib import Path
from typing import Any

import pytest

TODAY = dt.date(2026, 7, 21)
NOW = dt.datetime(2026, 7, 21, 10, 0, tzinfo=dt.timezone.utc)
TS = "2026-07-20T09:00:00+00:00"

MARKUP_NAME = "[bold]loud[/bold]"
MARKUP_CONTENT = "[link=https://evil.example]click me[/link] and \x1b[31mred\x1b[0m text"


@pytest.fixture(autouse=True)
def _isolate_env(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not request.node.module.__name__.rpartition(".")[2].startswith("test_tui"):
        return  # only the app's tests: the core's tests manage their own environment
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for var in ("WIKIMEM_STORE", "WIKIMEM_TUI_CONFIG", "WIKIMEM_EMBED_URL", "VISUAL", "EDITOR"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(params=["pure", "numpy"])
def index_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Runs a test on the index's pure path and on its numpy path (taken for every list, however short).

    The two must give the same answers to the bit (wikimem.index.vectorized).
    """
    from wikimem.index import vectorized  # noqa: PLC0415

    if request.param == "numpy":
        pytest.importorskip("numpy")
        monkeypatch.setattr(vectorized, "MIN_ELEMENTS", 0)
        monkeypatch.setattr(vectorized, "LOADED_MIN", 0)
        monkeypatch.setattr(vectorized, "SCAN_MIN", 0)
    vectorized.switch(request.param == "numpy")
    yield request.param
    vectorized.switch(None)


def fill_memory(root: Path) -> None:
    """Write the sample memory through the public API (deterministic ts)."""
    from wikimem import MemoryStore

    store = MemoryStore(root)
    add = store.add
    add("preferences", "coffee", "Oat milk flat white, no sugar. Ask [[people:Alice]] for the place.",
        owner="agent", source_conv="conv-1", ts=TS)
    add("preferences", "tea", "Jasmine tea in the afternoon.", owner="agent", ts=TS)
    add("people", "Alice", "Colleague. Likes [[preferences:coffee]]; project in [[work:apollo]].",
        owner="agent", ts=TS)
    add("people", "张伟", "大学同学，喜欢喝[[preferences:tea]]。", owner="agent", ts=TS)
    add("notes", MARKUP_NAME, MARKUP_CONTENT, owner="agent", ts=TS)
    diary = store.diary
    diary.append("Met Alice for coffee.", date="2026-07-20", time="08:30", owner="agent", ts=TS)
    diary.append("今天去了海边。", date="2026-07-20", time="18:00", owner="agent", ts=TS)
    diary.append("Planned the week.", date="2026-07-21", time="09:15", owner="agent", ts=TS)


@pytest.fixture(scope="session")
def sample_memory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample memory, written once per session: never hand it to a test that writes (copy it)."""
    root = tmp_path_factory.mktemp("sample") / "memory"
    root.mkdir()
    fill_memory(root)
    return root


@pytest.fixture
def memory_dir(tmp_path: Path, sample_memory: Path) -> Path:
    """A filled memory directory named ``memory``, the test's own.

    A copy of the session's sample (bytes and mtimes kept): writing it through
    the store costs a dozen fsyncs per test, a copy none.
    """
    root = tmp_path / "memory"
    shutil.copytree(sample_memory, root)
    return root


def make_backend(root: Path, *, read_only: bool = False):  # type: ignore[no-untyped-def]
    """A Backend over ``root`` with the pinned clock and today."""
    from wikimem import MemoryIndex, MemoryStore
    from wikimem_tui.core.backend import Backend

    store = MemoryStore(root)
    return Backend(
        root=root,
        store=store,
        index=MemoryIndex(store, use_jieba=False),
        owner="tui:test",
        read_only=read_only,
        clock=lambda: NOW,
        today=lambda: TODAY,
    )


@pytest.fixture
def backend(memory_dir: Path):  # type: ignore[no-untyped-def]
    """The Backend tests hand to the App."""
    return make_backend(memory_dir)


def make_app(backend, *, watch: bool = False, config: Path | None = None):  # type: ignore[no-untyped-def]
    """The App as tests run it: no blinking, no user config, watcher only on request."""
    from wikimem_tui.app import WikimemApp

    app = WikimemApp(backend, config=config or Path("/nonexistent/keymap.toml"), watch=watch, cursor_blink=False)
    # A toast lives 5 s: on a loaded machine a test can reach its check later than that
    # (seen: the start-up keymap warning gone before the index was built). Tests see it
    # until the safety net instead; an explicit timeout= still applies.
    app.NOTIFICATION_TIMEOUT = SAFETY_NET  # type: ignore[misc]
    return app


def screen_text(app) -> str:  # type: ignore[no-untyped-def]
    """Everything on the active screen (toasts included), as plain text lines."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


SAFETY_NET = 120.0
"""The only deadline a wait has, in seconds: far beyond anything the app takes
even on a loaded 2-core machine, so reaching it means the awaited thing never
happens (a hang or a bug), never that the machine was slow."""

BACKGROUND = frozenset({"journal-tail", "watch", "warm"})
"""Worker groups nothing waits for: the followers of a file live as long as the app, and
the index warm-up only speeds later queries (they never wait for it)."""


def _app_timer(timer: Any) -> bool:
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
    refresh, no debounce timer pending, and no worker running but the
    background ones (``BACKGROUND``) and flows waiting for the user's answer
    (an async worker blocked on a dialog's result).
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


async def ready(pilot) -> None:  # type: ignore[no-untyped-def]
    """Wait until the catalogue and the index are built and the app has settled."""
    app = pilot.app
    await wait_for(pilot, lambda: app.catalogue is not None and app.index_ready, "the catalogue and the index")
    await wait_for(pilot)


@asynccontextmanager
async def started(app, size: tuple[int, int] = (100, 30), *, notifications: bool = False) -> AsyncIterator[Any]:  # type: ignore[no-untyped-def]
    """Run ``app`` headless and yield its pilot once the catalogue and the index are built.

    ``notifications``: draw toasts on screen (Textual leaves them out of headless runs by default).
    """
    async with app.run_test(size=size, notifications=notifications) as pilot:
        await ready(pilot)
        yield pilot


async def open_item(pilot, file: str, name: str) -> None:  # type: ignore[no-untyped-def]
    """Open an item as the tree, a link or the finder would (they all post OpenItem)."""
    from wikimem_tui.common.messages import OpenItem

    pilot.app.post_message(OpenItem(file, name))
    await wait_for(pilot)


def record_toasts(app) -> list[str]:  # type: ignore[no-untyped-def]
    """From now on, every notification message in order (toasts expire; this list does not)."""
    from wikimem_tui.common.safe import clean

    said: list[str] = []
    notify = app.notify

    def recording(message: str, **kwargs: Any) -> None:
        notify(message, **kwargs)
        said.append(clean(message))  # as the app shows it

    app.notify = recording
    return said


def notices(app) -> list[str]:  # type: ignore[no-untyped-def]
    """Messages of the toasts currently shown."""
    return [n.message for n in app._notifications]


def retrieved(file: str, name: str, source: str = "hit", **kw: Any):  # type: ignore[no-untyped-def]
    """One retrieval row over a placeholder item (``score`` defaults to 1.0)."""
    from wikimem import RecallItem, RetrievedItem

    return RetrievedItem(RecallItem(file, name, "x"), source, kw.pop("score", 1.0), **kw)  # type: ignore[arg-type]


@pytest.fixture
def snap_compare(snap_compare):  # type: ignore[no-untyped-def]  # the plugin's fixture, overridden by name
    """The plugin's ``snap_compare``, taking every screenshot of a quiet app.

    Textual's screenshot helper runs ``run_before`` and then one
    ``pilot.pause()``. A condition met by an intermediate state (a
    debounced query whose earlier keystroke already drew the awaited row)
    left a re-render still due, and on a loaded machine the screenshot
    caught one or the other (seen: the 80x24 query snapshot's row colours).
    Here every snapshot first waits for :func:`wait_for`'s quiet app: no
    key at the gate, no message queued, no debounce timer, no worker.
    """
    def compare(app, *args, run_before=None, **kwargs):  # type: ignore[no-untyped-def]
        async def then_quiet(pilot) -> None:  # type: ignore[no-untyped-def]
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
            await wait_for(pilot)

        return snap_compare(app, *args, run_before=then_quiet, **kwargs)

    return compare
