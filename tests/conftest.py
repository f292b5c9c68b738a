"""Shared fixtures for the app tests: a small memory on disk and a pinned Backend.

The memory holds what the app must handle: several RecallFiles, a Chinese
item, a resolved and a dangling wiki-link, content that looks like Rich
markup / ANSI escapes, and a few diary days. ``today`` and the clock are
fixed, and HOME / XDG_CONFIG_HOME / WIKIMEM_STORE are isolated so no test
reads the developer's config.
"""

from __future__ import annotations

import datetime as dt
import inspect
import shutil
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

# How a test waits (one module for it); re-exported: the tests import these from here.
from app_waits import BACKGROUND, SAFETY_NET, busy, screen_text, settled, wait_for, wait_until  # noqa: F401

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


@pytest.fixture(autouse=True)
def _isolate_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Derived per-user caches (jieba's segmentations, its packed dictionary) in a folder of the test run, never the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))


@pytest.fixture(params=["pure", "numpy"])
def index_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Runs a test on the index's pure path and on its numpy path (taken for every list, however short).

    Each is held to the same answers (rankings: up to float rounding, ties by doc id).
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
            await settled(pilot)

        return snap_compare(app, *args, run_before=then_quiet, **kwargs)

    return compare
