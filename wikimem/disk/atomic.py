"""Durable bytes: atomic file replacement and journal appends that are whole or absent.

The constraint this module exists for: **a write that raised did not land,
and one that landed did not raise.** A file is replaced through a fsynced
temp file and ``os.replace``; an append that fails part way is truncated
back to where it started; :func:`replace_file` appends the journal line
before the rename and truncates it back if the rename fails.

A process killed between writing a temp file and the rename leaves it
behind; its name says what it is (:func:`temp_of`), lint reports it and
``lint --fix`` removes it once older than :data:`STALE_TEMP_SECONDS`. A
write never sweeps on its own: that would list a large folder on every write.

Tests stop a process at a chosen point with :func:`set_step_hook` (a real
SIGKILL between two steps), which is how the recovery of multi-file writes
(``wikimem.disk.intent``) is proven.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from wikimem.disk.tolerant import open_append, open_regular

__all__ = [
    "STALE_TEMP_SECONDS",
    "append_whole",
    "atomic_write",
    "atomic_writer",
    "fsync_dir",
    "plan_append",
    "replace_file",
    "set_step_hook",
    "step",
    "temp_of",
    "truncate_back",
    "write_all",
]

_step_hook: Callable[[str], None] | None = None

#: Age past which a temp file is certainly no live writer's (a write takes milliseconds to seconds).
STALE_TEMP_SECONDS = 600.0
#: ``.<target>.<mkstemp's 8 characters>.tmp``: the names :func:`_temp_file` and :func:`atomic_writer` make.
_TEMP_RE = re.compile(r"\.(.+)\.[a-z0-9_]{8}\.tmp")


def temp_of(name: str) -> str | None:
    """The file name a temp file of this module named ``name`` stands for; ``None``: not one of ours."""
    match = _TEMP_RE.fullmatch(name)
    return match.group(1) if match else None


def set_step_hook(hook: Callable[[str], None] | None) -> None:
    """Call ``hook(name)`` at each named step of a durable write (tests kill a process there)."""
    global _step_hook
    _step_hook = hook


def step(name: str) -> None:
    """Mark a point between two durable steps (a no-op unless a test set a hook)."""
    if _step_hook is not None:
        _step_hook(name)


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written; a write that makes no progress is ``ENOSPC``."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


def fsync_dir(directory: Path) -> None:
    """fsync a directory so a rename in it survives a crash (best effort)."""
    # Not every platform lets a directory be opened for fsync; best effort.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _target_mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_UMASK


def _read_umask() -> int:
    # os.umask can only be read by setting it: do it once, at import, rather
    # than flipping the process-wide umask while other threads create files.
    umask = os.umask(0)
    os.umask(umask)
    return umask


_UMASK = _read_umask()


def _temp_file(path: Path, data: bytes) -> str:
    """Write ``data`` to a fsynced temp file next to ``path``; returns its name (removed on failure)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp creates 0600; keep the file's mode, or the umask default.
        with contextlib.suppress(OSError, AttributeError):
            os.fchmod(fd, _target_mode(path))
        write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    os.close(fd)
    return tmp


def plan_append(path: Path, data: bytes) -> tuple[int, bytes]:
    """Where an append of ``data`` to ``path`` starts, and the exact bytes it writes.

    A writer killed mid-line may have left a torn tail: the append then
    starts on a fresh line so the new entry stays parseable.
    """
    handle = open_regular(path)  # never a FIFO, never a symlink out of the memory
    if handle is None:
        return 0, data
    with handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        if size:
            handle.seek(size - 1)
            if handle.read(1) != b"\n":
                return size, b"\n" + data
    return size, data


def append_whole(path: Path, data: bytes, *, planned: tuple[int, bytes] | None = None) -> tuple[int, int]:
    """Append ``data`` to ``path`` whole, or not at all; returns ``(start, end)`` offsets.

    One ``O_APPEND`` descriptor, every byte written (``write_all``); on any
    error the file is truncated back to ``start`` and the error raised.
    ``planned`` is a :func:`plan_append` result computed earlier under the
    same lock (the intent log records it before anything is written).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = open_append(path)  # UnreadableError, nothing written, for a FIFO or a symlink out of the memory
    try:
        start = os.fstat(fd).st_size
        blob = planned[1] if planned is not None else data
        if planned is None and start and os.pread(fd, 1, start - 1) != b"\n":
            blob = b"\n" + data
        try:
            write_all(fd, blob)
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
            raise
    finally:
        os.close(fd)
    return start, start + len(blob)


def truncate_back(path: Path, start: int, end: int) -> None:
    """Undo an append that ended at ``end``: cut the file back to ``start`` if nothing followed it."""
    fd = os.open(path, os.O_RDWR)
    try:
        if os.fstat(fd).st_size == end:
            os.ftruncate(fd, start)
    finally:
        os.close(fd)


def replace_file(path: Path, data: bytes | None, *, journal: Path | None = None, lines: bytes = b"") -> None:
    """Make ``path`` hold ``data`` (``None``: delete it) and append ``lines`` to ``journal``, as one step.

    Ordered so that a raise means nothing landed: the temp file is written
    and fsynced first, then the journal lines are appended (whole or
    absent), then the rename (or unlink) makes the write visible; if that
    fails the journal lines are cut back. After the rename nothing raises.
    A kill between the journal append and the rename leaves a journal line
    for a write that did not land: the journal may say more than happened,
    never less.
    """
    tmp = _temp_file(path, data) if data is not None else None
    try:
        step("temp-written")
        appended = append_whole(journal, lines) if journal is not None and lines else None
        step("journaled")
        try:
            if tmp is not None:
                os.replace(tmp, path)
                tmp = None
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
        except BaseException:
            if appended is not None and journal is not None:
                with contextlib.suppress(OSError):
                    truncate_back(journal, *appended)
            raise
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    fsync_dir(path.parent)


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) so readers see the old file or the new one."""
    replace_file(path, text.encode("utf-8"))


@contextlib.contextmanager
def atomic_writer(path: Path) -> Iterator[BinaryIO]:
    """A binary handle whose bytes replace ``path`` atomically when the block ends.

    For writers that stream (the vector cache hands the handle to numpy). If
    the block raises, the temp file is removed and ``path`` is untouched.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with contextlib.suppress(OSError, AttributeError):
            os.fchmod(fd, _target_mode(path))
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)
