"""Who hears of a store's writes: the in-process listeners a ``MemoryStore`` calls after each commit.

Why a module of its own: listening is how everything derived from the
markdown (a ``MemoryIndex``'s postings, the app's caches) stays in step
with this process's writes without re-reading the store, and it is a
concept apart from reading and writing blocks. The commit
(:mod:`wikimem.store.transaction`) calls :meth:`WriteListeners.notify_write`
once per file it wrote, after the bytes are on disk.
"""

from __future__ import annotations

from collections.abc import Callable

from wikimem.store.transaction import FileWrite

__all__ = ["DetailedListener", "WriteListener", "WriteListeners"]

#: Called with a RecallFile name after every successful in-process write to it.
WriteListener = Callable[[str], None]
#: Called with the name and the file's identities around the commit (``None``: not known).
DetailedListener = Callable[[str, FileWrite | None], None]


class WriteListeners:
    """The listeners of one store, and the revision counter they are told with."""

    def __init__(self) -> None:
        #: Bumped by every successful in-process wiki write (not diary, not hand edits).
        self.revision = 0
        self._listeners: list[WriteListener] = []
        self._detailed: list[DetailedListener] = []

    def add_listener(self, callback: WriteListener) -> None:
        """Call ``callback(file)`` after each successful in-process write to ``file``.

        This is how a ``MemoryIndex`` updates just that file's postings
        instead of rebuilding after every write.
        """
        self._listeners.append(callback)

    def remove_listener(self, callback: WriteListener) -> None:
        """Stop calling a listener added with :meth:`add_listener`."""
        if callback in self._listeners:
            self._listeners.remove(callback)

    def add_write_listener(self, callback: DetailedListener) -> None:
        """Call ``callback(file, write)`` after each successful in-process write to ``file``.

        ``write`` (a :class:`~wikimem.store.transaction.FileWrite`) gives the
        file's identity before and after, taken under the store lock, so a
        ``MemoryIndex`` can tell its own process's writes from anyone
        else's; ``None`` when the commit cannot say.
        """
        self._detailed.append(callback)

    def remove_write_listener(self, callback: DetailedListener) -> None:
        """Stop calling a listener added with :meth:`add_write_listener`."""
        if callback in self._detailed:
            self._detailed.remove(callback)

    def notify_write(self, file: str, write: FileWrite | None = None) -> None:
        """Tell every listener this process wrote ``file`` (``write``: what the commit did; None: not known)."""
        self.revision += 1
        for callback in list(self._listeners):
            callback(file)
        for detailed in list(self._detailed):
            detailed(file, write)
