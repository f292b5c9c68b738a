"""The layout of a memory directory: whether a directory is one, and what belongs in it.

A memory's layout is untrusted too (``wiki/`` may be a symlink to
``~/.ssh``): a format folder (:data:`OWN_FOLDERS`) that leads out of the
memory directory refuses every write (:func:`refuse_foreign_folders`,
under the store lock), readers skip its files with a warning, lint reports
it (``folder-outside``).

A directory of unrelated files is not an empty memory (``wikimem -s /etc
ls`` would print an empty listing that looks like one): a directory is a
store when it holds any of :data:`STORE_MARKERS`, and an empty one (dotfiles
aside) is a new store. One rule for the command line and the app.
"""

from __future__ import annotations

import datetime as dt
import errno
import logging
import os
import re
import stat
from pathlib import Path

__all__ = ["FILE_NAME_PATTERN", "OWN_FOLDERS", "STORE_MARKERS", "ForeignFolderError", "foreign_folder",
           "foreign_folders", "is_memory_dir", "is_memory_file", "is_within", "own_folder", "refuse_foreign_folders",
           "written_by_a_write"]

#: What makes a directory a memory store (any one of them).
STORE_MARKERS = ("wiki", "diary", "journal.jsonl")

#: What a RecallFile name is made of (``wikimem.disk.names.validate_file`` holds the whole rule).
FILE_NAME_PATTERN = r"[a-z0-9_][a-z0-9_-]*"
_DAY = "[0-9]{4}-[0-9]{2}-[0-9]{2}"
# The day files and capture snapshots a write of the store replaces (RecallFiles: :func:`is_memory_file`).
_WRITTEN_RE = re.compile(rf"diary/(?P<day>{_DAY})\.md|captures/(?P<cday>{_DAY})\.capture\.json")


def is_memory_dir(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` (a directory) holds a store marker, or nothing but dotfiles."""
    root = Path(path)
    return any((root / marker).exists() for marker in STORE_MARKERS) or not _holds_files(root)


def _holds_files(path: Path) -> bool:
    """True when ``path`` lists anything but dotfiles (an unlistable directory counts as holding files)."""
    try:
        with os.scandir(path) as entries:
            return any(not entry.name.startswith(".") for entry in entries)
    except OSError:
        return True


def is_memory_file(path: str) -> bool:
    """True for ``wiki/<file>.md`` or ``diary/<file>.md`` (valid name or not): one file directly in a folder of the memory."""
    folder, _, name = path.partition("/")
    return folder in ("wiki", "diary") and name.endswith(".md") and not name.startswith(".") \
        and "/" not in name and "\\" not in name


def written_by_a_write(path: str) -> bool:
    """True for a memory-relative POSIX path a write of the store may replace.

    ``wiki/<file>.md`` (any RecallFile the store lists, a hand-named
    ``Travel.md`` too: a link rewrite changes it), ``diary/<real day>.md``
    and ``captures/<real day>.capture.json``, nothing else: what a record
    read from the memory may name (``wikimem.disk.intent``).
    """
    if path.startswith("wiki/"):
        return is_memory_file(path)
    match = _WRITTEN_RE.fullmatch(path)
    if match is None:
        return False
    day = match.group("day") or match.group("cday")
    try:
        dt.date.fromisoformat(day) if day else None
    except ValueError:
        return False
    return True


#: The folders of the format. Each must be the memory's own: a symlink among
#: them that leads out of the memory directory would carry every read and
#: write of its files to another folder, past the per-file symlink check.
OWN_FOLDERS = ("wiki", "diary", "captures", "diary-vectors")


class ForeignFolderError(OSError):
    """A folder of the format that is a symlink leading out of the memory directory: writes are refused."""

    def __init__(self, folder: str, target: str) -> None:
        super().__init__(errno.EXDEV, f"{folder}/ is a symlink to {target}, outside the memory directory")
        self.folder = folder
        self.target = target

    def __str__(self) -> str:
        return (f"{self.folder}/ is a symlink to {self.target}, outside the memory directory: "
                "nothing is written through it and its files are not read (make it a folder of the memory)")


def foreign_folder(root: str | os.PathLike[str], folder: str) -> str | None:
    """Where ``root/folder`` leads when that is outside ``root`` (a symlink, or a symlinked parent); else ``None``.

    One ``lstat`` when the folder is a plain one (every write asks).
    """
    path = os.path.join(root, folder)
    try:
        if not stat.S_ISLNK(os.lstat(path).st_mode):
            return None
    except OSError:
        return None
    target = os.path.realpath(path)
    return None if is_within(target, os.path.realpath(root)) else target


def is_within(target: str, base: str) -> bool:
    """True when the resolved path ``target`` is ``base`` or under it (both already ``realpath``)."""
    try:
        return os.path.commonpath([base, target]) == base
    except ValueError:  # different drives
        return False


def foreign_folders(root: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """``(folder, where it leads)`` for each folder of :data:`OWN_FOLDERS` leading out of ``root``."""
    found = ((folder, foreign_folder(root, folder)) for folder in OWN_FOLDERS)
    return [(folder, target) for folder, target in found if target is not None]


def refuse_foreign_folders(root: str | os.PathLike[str]) -> None:
    """Raise :class:`ForeignFolderError` for the first folder of the format that leads out of ``root``."""
    for folder, target in foreign_folders(root):
        raise ForeignFolderError(folder, target)


_warned: set[tuple[str, str]] = set()


def own_folder(root: str | os.PathLike[str], folder: str) -> bool:
    """True when ``root/folder`` may be read; a folder leading out is not, with one WARNING per process."""
    target = foreign_folder(root, folder)
    if target is None:
        return True
    key = (os.path.realpath(root), folder)
    if key not in _warned:
        _warned.add(key)
        logging.getLogger("wikimem").warning("%s; skipped (lint reports it as 'folder-outside')",
                                             ForeignFolderError(folder, target))
    return False
