"""This process's writes to the store, heard as they commit and kept for the next query.

Why apart from the index: a store write runs in whatever thread wrote
(maybe while a query holds the index lock), so hearing one must take no
index lock and do no index work -- it only notes the file and what the
write did (:class:`wikimem.store.transaction.FileWrite`); the next query
re-reads the file (:mod:`wikimem.freshness.catch_up`). And the store must not keep
an index alive: an app may replace its index many times over one store
(:func:`weak_listener`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

from wikimem.store.transaction import FileWrite

__all__ = ["CHAIN_KEPT", "PendingWrites", "unlisten", "weak_listener"]

#: Writes to one file kept between two queries; past that (a bulk import
#: with no query in between) the file counts as written by anyone.
CHAIN_KEPT = 256


class PendingWrites:
    """Files written since the last query: each one's writes (their file identities), or None: not known who wrote it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: file -> its writes in commit order, or None when which writes is not known.
        self.files: dict[str, list[FileWrite] | None] = {}
        #: Writes heard since the last :meth:`take` (the store's revision moves by one per write).
        self.heard = 0

    def note(self, file: str, write: FileWrite | None = None) -> None:
        """A commit wrote ``file`` (``write``: what it did; None: not known)."""
        with self._lock:
            writes = self.files.get(file, [])
            if write is None or writes is None or len(writes) >= CHAIN_KEPT:
                self.files[file] = None  # not known what wrote it (or a long batch)
            else:
                writes.append(write)
                self.files[file] = writes
            self.heard += 1

    def take(self) -> tuple[dict[str, list[FileWrite] | None], int]:
        """Everything heard so far, and how many writes that was; the next take starts empty."""
        with self._lock:
            files, self.files = self.files, {}
            heard, self.heard = self.heard, 0
        return files, heard


def weak_listener(callback: Callable[[str, FileWrite | None], None], store: Any) -> Callable[..., None] | None:
    """Register ``callback`` (a bound method) as a store listener that does not keep its object alive.

    An app may replace its index (other tokenizer, other weights) many times
    over one store; a strong reference would keep every old one in memory
    and feed it writes forever. A dead object's listener removes itself. A
    store that can say what each write changed (``add_write_listener``) is
    heard that way; any other only names the file. None: the store has no
    listeners.
    """
    add = getattr(store, "add_write_listener", None) or getattr(store, "add_listener", None)
    if add is None:
        return None
    method = weakref.WeakMethod(callback)

    def listener(file: str, write: FileWrite | None = None) -> None:
        bound = method()
        if bound is not None:
            bound(file, write)
        else:
            unlisten(store, listener)

    add(listener)
    return listener


def unlisten(store: Any, listener: Callable[..., None]) -> None:
    """Remove ``listener`` from whichever of the store's listener lists holds it."""
    for name in ("remove_write_listener", "remove_listener"):
        remove = getattr(store, name, None)
        if remove is not None:
            remove(listener)
