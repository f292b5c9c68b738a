"""The store lock: one writer at a time per memory directory, even if someone deletes a file.

Writers of different processes are serialized by an advisory ``flock`` on
**the memory directory itself**: a stray ``rm .wikimem.lock`` or ``git
clean`` cannot split it, where a lock *file* can be deleted and re-created
while a writer still holds the old inode (two writers, lost updates). One
lock per store: writes are short. Windows cannot lock a directory handle,
so it locks a byte of ``.wikimem.lock`` (deleting an open file is refused
there anyway).

Taking the lock is also where a killed process's half-done multi-file write
is rolled back (``wikimem.disk.intent.recover``) and where a format folder
leading out of the memory refuses the write (``wikimem.disk.store_dir``):
every writer passes here before it reads what it is about to change.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from wikimem.disk.intent import recover
from wikimem.disk.store_dir import refuse_foreign_folders

__all__ = ["LOCK_NAME", "store_lock"]

#: The lock file of platforms that cannot lock a directory (Windows).
LOCK_NAME = ".wikimem.lock"

_held = threading.local()


@contextlib.contextmanager
def store_lock(root: Path) -> Iterator[None]:
    """Hold the store's advisory write lock for one read-modify-write cycle (re-entrant in a thread).

    Creates the memory directory when it does not exist yet, like any write.
    """
    root = Path(root)
    key = str(root.resolve())
    depth = getattr(_held, key, 0)
    if depth:  # re-entrant within a thread: a compound write calls add/remove
        setattr(_held, key, depth + 1)
        try:
            yield
        finally:
            setattr(_held, key, depth)
        return
    root.mkdir(parents=True, exist_ok=True)
    fd = _open(root)
    try:
        _lock(fd)
        setattr(_held, key, 1)
        try:
            refuse_foreign_folders(root)
            recover(root)
            yield
        finally:
            setattr(_held, key, 0)
            _unlock(fd)
    finally:
        os.close(fd)


try:
    import fcntl

    def _open(root: Path) -> int:
        # A directory cannot be unlinked while it holds the memory, so every
        # writer always locks the same inode. flock (not fcntl/lockf): each
        # open() is its own lock owner, so threads of one process exclude
        # each other too, and closing another fd never drops the lock.
        return os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

except ImportError:  # Windows: msvcrt locks a byte range of a lock file instead
    import msvcrt

    def _open(root: Path) -> int:
        return os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)

    def _lock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # type: ignore[attr-defined]

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
