"""Tolerant reads of untrusted text: JSON that may be hostile, files that may not be files.

Everything under a memory directory, and every reply of an LLM or an
embedding endpoint, is untrusted: readers must never raise, hang or wander
off because of it.

* **JSON.** :func:`json.loads` raises :class:`RecursionError`, not
  ``ValueError``, on deep nesting, which escapes every ``except ValueError``
  of a tolerant reader; :func:`parse_json` raises ``ValueError`` only and
  :func:`loads_tolerant` returns a default. A lone surrogate is valid JSON
  but no Unicode, and would raise at the first UTF-8 write far from the
  read: ``repair=True`` (and :func:`repair_surrogates`) turns each into U+FFFD.
* **Files.** A memory file is read only when it is a *regular* file (a FIFO
  would block the reader forever) and a symlink is followed only when its
  target stays inside the memory directory. A file that exists but cannot be
  read raises :class:`UnreadableError`, never "missing": a writer must refuse
  it (rewriting it would destroy what it could not read), a reader skips it
  with a warning (:func:`warn_unreadable`), lint reports it.

The open uses ``O_NOFOLLOW | O_NONBLOCK`` and the ``fstat`` a read needs
anyway, so only a symlink costs an extra system call.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from wikimem.disk.store_dir import is_within

__all__ = [
    "NestingError",
    "UnreadableError",
    "is_regular",
    "loads_tolerant",
    "memory_root",
    "nesting_depth",
    "open_append",
    "open_regular",
    "parse_json",
    "read_regular",
    "repair_surrogates",
    "warn_unreadable",
]

log = logging.getLogger("wikimem")

#: Folders of the memory format whose files' memory directory is their parent's parent.
_NESTED = frozenset({"wiki", "diary", "diary-vectors"})
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)


#: A surrogate, raw (text decoded with ``surrogateescape``) or as a JSON escape (a pair is two of them).
_SURROGATE_TEXT = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")
_SURROGATE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class NestingError(ValueError):
    """JSON nested deeper than the parser goes: a ``ValueError``, so every tolerant reader takes it as "not JSON"."""


def parse_json(text: str | bytes | bytearray, *, loads: Callable[..., Any] = json.loads, repair: bool = False) -> Any:
    """``json.loads(text)``, raising ``ValueError`` (never ``RecursionError``) for anything not JSON.

    ``repair=True``: lone surrogates in the value's strings become U+FFFD
    (see the module docstring); text without a surrogate escape costs one
    regular-expression scan more.
    """
    try:
        value = loads(text)
    except RecursionError:
        raise NestingError("JSON nested too deeply") from None
    if repair and _may_hold_surrogates(text):
        value = repair_surrogates(value)[0]
    return value


def loads_tolerant(text: str | bytes | bytearray, default: Any = None, *, repair: bool = False) -> Any:
    """The JSON value of ``text``, or ``default`` when it is not JSON (deep nesting included)."""
    try:
        return parse_json(text, repair=repair)
    except ValueError:
        return default


def _may_hold_surrogates(text: str | bytes | bytearray) -> bool:
    pattern = _SURROGATE_TEXT if isinstance(text, str) else _SURROGATE_BYTES
    return pattern.search(text) is not None  # type: ignore[arg-type]


def nesting_depth(value: Any, limit: int) -> int:
    """How deep lists and dicts nest in ``value`` (a scalar: 0), counted no further than ``limit + 1``.

    For a reader whose format has a fixed shape: a value the parser took
    but that nests past any shape the format has is damage, and writing it
    back (``json.dumps`` recurses) may raise ``RecursionError`` far from
    the read. No recursion here.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (list, dict)):
            depth += 1
            if depth > limit:
                return depth
            deepest = max(deepest, depth)
            stack.extend((item, depth) for item in (node.values() if isinstance(node, dict) else node))
    return deepest


def repair_surrogates(value: Any) -> tuple[Any, int]:
    """``value`` with every lone surrogate in its strings (keys too) made U+FFFD, and how many there were.

    Lists and dicts are repaired in place (a parsed value is the caller's
    own); a string is returned repaired. No recursion: a value nested as
    deep as the parser allows is walked with an explicit stack.
    """
    if isinstance(value, str):
        return _SURROGATE.subn("\ufffd", value)
    count = 0
    stack = [value]
    while stack:
        node = stack.pop()
        if not isinstance(node, (list, dict)):
            continue
        slots = node.items() if isinstance(node, dict) else enumerate(node)
        renamed = False
        for slot, item in list(slots):
            if isinstance(item, str):
                fixed, found = _SURROGATE.subn("\ufffd", item)
                if found:
                    node[slot] = fixed
                    count += found
            elif isinstance(item, (list, dict)):
                stack.append(item)
            renamed = renamed or (isinstance(slot, str) and _SURROGATE.search(slot) is not None)
        if isinstance(node, dict) and renamed:
            items = list(node.items())
            node.clear()
            for key, item in items:
                fixed_key, found = _SURROGATE.subn("\ufffd", key) if isinstance(key, str) else (key, 0)
                node[fixed_key] = item
                count += found
    return value, count


class UnreadableError(OSError):
    """A file that exists but is not read: no permission, not a regular file, a symlink out of the memory.

    An ``OSError``, so a writer that lets it propagate refuses the write
    (and old ``except OSError`` handlers keep working); ``path`` and
    ``reason`` say what and why, for a message or a lint finding.
    """

    def __init__(self, path: str | os.PathLike[str], reason: str, code: int | None = None) -> None:
        super().__init__(code if code is not None else errno.EACCES, f"cannot be read ({reason})", str(path))
        self.path = Path(path)
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: cannot be read ({self.reason})"


def memory_root(path: Path) -> Path:
    """The memory directory ``path`` belongs to, by the format's layout.

    ``wiki/x.md``, ``diary/D.md`` and ``diary-vectors/*`` live one folder
    down; ``journal.jsonl``, the baseline and the wiki's vector cache at the
    top. A symlink may point anywhere inside it.
    """
    parent = path.parent
    return parent.parent if parent.name in _NESTED else parent


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    if stat.S_ISDIR(mode):
        return "a directory, not a regular file"
    return "not a regular file"


def _resolve_link(path: Path, root: Path | None) -> str:
    """Where the symlink ``path`` leads, if that is a regular file inside ``root``; else raise."""
    target = os.path.realpath(path)
    if not is_within(target, os.path.realpath(root if root is not None else memory_root(path))):
        raise UnreadableError(path, f"a symlink to {target}, outside the memory directory")
    try:
        st = os.stat(target)
    except FileNotFoundError:
        raise UnreadableError(path, f"a symlink to {target}, which does not exist") from None
    except OSError as exc:
        raise UnreadableError(path, exc.strerror or str(exc), exc.errno) from None
    if not stat.S_ISREG(st.st_mode):
        raise UnreadableError(path, f"a symlink to {_kind(st.st_mode)}")
    return target


def _open_fd(path: Path, flags: int, root: Path | None, mode: int = 0o644) -> int | None:
    """An fd of the regular file ``path`` (``None``: missing); raises :class:`UnreadableError`."""
    opened = _open_stat(path, flags, root, mode)
    return None if opened is None else opened[0]


def _open_stat(path: str | os.PathLike[str], flags: int, root: Path | None, mode: int = 0o644) -> tuple[int, os.stat_result] | None:
    """:func:`_open_fd` with the ``fstat`` it checked the file by (its size sizes a read).

    ``path`` as given (a ``Path`` is made only for a symlink or an error):
    a cold load opens every RecallFile, and each ``Path`` costs a parse.
    """
    flags |= _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY
    try:
        if not _NOFOLLOW and os.path.islink(path):  # no O_NOFOLLOW (Windows): ask first
            raise OSError(errno.ELOOP, "symlink")
        fd = os.open(path, flags, mode)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except IsADirectoryError:
        raise UnreadableError(path, "a directory, not a regular file", errno.EISDIR) from None
    except PermissionError as exc:
        raise UnreadableError(path, "permission denied", exc.errno) from None
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.EMLINK) or not os.path.islink(path):
            raise UnreadableError(path, exc.strerror or str(exc), exc.errno) from None
        target = _resolve_link(Path(path), root)
        try:
            fd = os.open(target, flags, mode)
        except OSError as again:  # swapped or removed between the check and the open
            raise UnreadableError(path, again.strerror or str(again), again.errno) from None
    try:
        st = os.fstat(fd)
        # O_NONBLOCK only let a FIFO open without a writer; on a regular
        # file it changes nothing, so it stays set.
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableError(path, _kind(st.st_mode))
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def open_regular(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None) -> BinaryIO | None:
    """A binary reader of the regular file ``path``, or ``None`` when it does not exist.

    Raises :class:`UnreadableError` for a file that exists but is not read
    (see the module docstring). ``root`` is the memory directory symlinks
    must stay in (default: :func:`memory_root` of ``path``).
    """
    path = Path(path)
    fd = _open_fd(path, os.O_RDONLY, Path(root) if root is not None else None)
    return None if fd is None else open(fd, "rb")  # noqa: SIM115 - the caller closes it


def is_regular(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None) -> bool:
    """True for a regular file :func:`open_regular` would open, False when missing; else raises.

    For readers that must hand a path on (``numpy.load`` memory-maps by
    name): ask first, so a FIFO or an outside symlink is never opened there.
    """
    path = Path(path)
    fd = _open_fd(path, os.O_RDONLY, Path(root) if root is not None else None)
    if fd is None:
        return False
    os.close(fd)
    return True


def read_regular(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None) -> bytes | None:
    """The bytes of the regular file ``path``, ``None`` when it does not exist; see :func:`open_regular`.

    Read with ``os.read`` sized by the open's own ``fstat``: a cold load reads
    every RecallFile, and a buffered reader costs several times the system
    calls themselves. Read until end of file, so a file that grew since the
    ``fstat`` is read whole.
    """
    root_path = Path(root) if root is not None else None
    opened = _open_stat(path, os.O_RDONLY, root_path)
    if opened is None:
        return None
    fd, st = opened
    try:
        data = os.read(fd, st.st_size + 1)  # one byte over: a file that grew shows it at once
        if len(data) > st.st_size:
            chunks = [data]
            while chunk := os.read(fd, max(len(data), 1 << 16)):
                chunks.append(chunk)
            data = b"".join(chunks)
        elif data:
            while chunk := os.read(fd, 1 << 16):  # short of its size: shrank, or a filesystem that reads in parts
                data += chunk
        return data
    except OSError as exc:  # EIO, EISDIR on odd filesystems...
        raise UnreadableError(path, exc.strerror or str(exc), exc.errno) from None
    finally:
        os.close(fd)


def open_append(path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None) -> int:
    """An ``O_APPEND`` descriptor of the regular file ``path``, created when missing.

    For ``journal.jsonl``: an append must never land outside the memory
    directory (a symlink) or block on a FIFO. Raises :class:`UnreadableError`
    (nothing written) for those, as a read would.
    """
    path = Path(path)
    fd = _open_fd(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, Path(root) if root is not None else None)
    if fd is None:  # the folder vanished between the mkdir and the open
        raise FileNotFoundError(errno.ENOENT, "no such directory", str(path.parent))
    return fd


_warned: set[tuple[str, str]] = set()


def warn_unreadable(error: UnreadableError) -> None:
    """Log that a read skipped ``error.path`` (one WARNING per file and reason per process)."""
    key = (str(error.path), error.reason)
    if key in _warned:
        return
    _warned.add(key)
    log.warning("%s; skipped (lint reports it as 'unreadable')", error)
