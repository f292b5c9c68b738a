"""Filesystem events → ``StoreChange`` values; no widget code lives here.

Other processes (the agent, an editor, ``git pull``) write the memory while
the app runs. The watcher turns watchfiles' raw, bursty events into one
``StoreChange`` per debounce window, naming RecallFiles and diary days, so
the app can re-index only what changed.

The app's own writes must not come back as "changed by someone else": after
every write the app records the (mtime_ns, size) of each file it touched in
``OwnWrites``; an event whose file still has exactly that signature is ours
and is dropped. A later external write changes the signature, so it is
never hidden by an earlier write of ours.

The record is made when the write is done (its journal line and fsyncs
included), but the watcher hears the file's rename at once: on a slow disk
(a slow fsync) the batch was judged before the record existed, and
the app's own save came back as "changed on disk" -- a toast about the
user's own edit and a second re-read of the file by the index (which had
already applied the write through the store's write listener). So a write is bracketed (:meth:`OwnWrites.writing`) and the
watcher judges a batch only once no write of ours is half done
(:meth:`OwnWrites.settled`, polled: the event loop never blocks).
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from wikimem import BASELINE_FILE, REVIEWED_FILE, path_stat
from wikimem_tui.core.changes import StoreChange

__all__ = ["OwnWrites", "classify", "watch_store"]

_DAY_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")  # ASCII digits only, as names.py
_FILE_RE = re.compile(r"^[a-z0-9_][a-z0-9_-]*$")

Signature = tuple[int, int] | None
#: Seconds a batch waits for a write of ours to finish before it is judged anyway (liveness only:
#: a write takes milliseconds, a slow disk's fsyncs a fraction of a second).
SETTLE_LIMIT = 10.0
_SETTLE_POLL = 0.005


class OwnWrites:
    """Signatures of files as this app left them after its own writes."""

    def __init__(self) -> None:
        self._seen: dict[str, Signature] = {}
        self._lock = threading.Condition()  # written from worker threads, read by the watcher
        self._writing = 0
        self.waited = 0
        """Batches the watcher held back until a write of ours was done (tests wait on it)."""

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Around one write of the app, from its first byte to its :meth:`record`: batches wait for it."""
        with self._lock:
            self._writing += 1
        try:
            yield
        finally:
            with self._lock:
                self._writing -= 1
                self._lock.notify_all()

    @property
    def busy(self) -> bool:
        """True while a write of ours is half done (its files may not look as it will leave them)."""
        with self._lock:
            return self._writing > 0

    async def settled(self, limit: float = SETTLE_LIMIT) -> None:
        """Return once no write of ours is half done (after ``limit`` s: anyway; liveness only).

        Polled, not waited on in a thread: the watcher is the App's async
        worker, and the app's threads are Textual workers only.
        """
        if not self.busy:
            return
        self.waited += 1
        deadline = time.monotonic() + limit
        while self.busy and time.monotonic() < deadline:
            await asyncio.sleep(_SETTLE_POLL)

    def record(self, paths: Iterable[Path]) -> None:
        """Remember how each path looks right now (absent counts: a removed file)."""
        signatures = {os.path.abspath(path): path_stat(path) for path in paths}
        with self._lock:
            self._seen.update(signatures)

    def is_own(self, path: Path) -> bool:
        """True when ``path`` is still exactly as our last write left it."""
        key = os.path.abspath(path)
        with self._lock:
            if key not in self._seen:
                return False
            seen = self._seen[key]
        return seen == path_stat(path)


def _kind(root: Path, path: Path) -> tuple[str, str] | None:
    """``("wiki", file)``, ``("diary", date)``, ``("journal", "")``, ``("vectors", "")``, ``("curation", "")`` or None.

    ``curation``: lint's baseline and the review marks. Nothing is shown
    from them directly, but Health and the queue are computed from them: a
    ``lint --fix`` in another terminal must re-lint the pane.
    """
    try:
        rel = path.relative_to(root)
    except ValueError:
        return None
    parts = rel.parts
    if len(parts) == 1:
        name = parts[0]
        if name == "journal.jsonl":
            return ("journal", "")
        if name.startswith("vectors"):
            return ("vectors", "")
        if name in (BASELINE_FILE, REVIEWED_FILE):
            return ("curation", "")
        return None
    if len(parts) == 2 and parts[1].endswith(".md"):
        stem = parts[1][:-3]
        if parts[0] == "wiki" and _FILE_RE.match(stem):
            return ("wiki", stem)
        if parts[0] == "diary" and _DAY_RE.match(stem):
            return ("diary", stem)
        return None
    if parts[0] == "diary-vectors":
        return ("vectors", "")
    return None


def classify(root: Path, paths: Iterable[Path], own: OwnWrites | None = None) -> StoreChange | None:
    """The memory-relevant part of a batch of changed paths, or None when nothing is.

    Temp files, lock files and unknown files are ignored, as are files that
    still look exactly as the app's own last write left them.
    """
    wiki: set[str] = set()
    days: set[str] = set()
    journal = vectors = curation = False
    for path in paths:
        kind = _kind(root, Path(path))
        if kind is None or (own is not None and own.is_own(Path(path))):
            continue
        what, name = kind
        if what == "wiki":
            wiki.add(name)
        elif what == "diary":
            days.add(name)
        elif what == "journal":
            journal = True
        elif what == "curation":
            curation = True
        else:
            vectors = True
    if not (wiki or days or journal or vectors or curation):
        return None
    return StoreChange(frozenset(wiki), frozenset(days), journal, vectors, external=True, curation=curation)


async def watch_store(
    root: Path,
    on_change: Callable[[StoreChange], None],
    *,
    own: OwnWrites | None = None,
    stop_event: Any | None = None,
    debounce_ms: int = 200,
    force_polling: bool | None = None,
    on_ready: Callable[[], None] | None = None,
    on_own: Callable[[], None] | None = None,
) -> None:
    """Watch ``root`` until cancelled (or ``stop_event`` is set), calling ``on_change`` per batch.

    ``debounce_ms`` groups a burst (an atomic replace is several events) into
    one change; it is well under the 1 s "external write visible" goal.
    ``on_ready`` is called once the watch is armed (events from then on are
    seen); ``on_own`` for each batch that held only the app's own writes, so
    a test can wait for the watcher to have seen (and dropped) an own write.
    """
    from watchfiles import awatch

    root = Path(os.path.abspath(root))

    def keep(_change: Any, path: str) -> bool:
        return _kind(root, Path(path)) is not None

    ready = False
    # yield_on_timeout: an empty batch arrives once the Rust watcher, armed
    # when awatch starts, has waited rust_timeout: that is "ready".
    async for batch in awatch(
        root,
        watch_filter=keep,
        debounce=debounce_ms,
        step=50,
        stop_event=stop_event,
        rust_timeout=200,
        yield_on_timeout=True,
        force_polling=force_polling,
    ):
        if not ready:
            ready = True
            if on_ready is not None:
                on_ready()
        if not batch:
            continue
        if own is not None:
            await own.settled()  # a write of ours half done: judge it once it is recorded
        change = classify(root, (Path(p) for _, p in batch), own)
        if change is not None:
            on_change(change)
        elif on_own is not None and own is not None and any(own.is_own(Path(p)) for _, p in batch):
            on_own()
