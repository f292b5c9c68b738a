"""Intent records: a write that spans several files is completed whole or rolled back.

No filesystem replaces several files in one step, so before a move (or a
link-rewriting rename, a retraction, an undo) touches its first file, the
whole write is recorded in ``.wikimem-intent/``: each original hard-linked
there (rolling back is then a rename, which needs no free space) and
``record.json`` holding every file's bytes before and after and the
journal lines with their offset. A write that raises rolls itself back; a
killed process leaves the folder, and the next writer (under the store
lock) rolls it back. A file that holds neither its "before" nor its "after"
bytes was edited by hand since: nothing is touched, the record is kept aside
as ``.wikimem-intent-<time>.unresolved.json`` with a warning, because rolling
back the others could leave an item at no address at all.

A record is untrusted (a memory arrives by ``git pull`` or a shared folder),
so it could be written to make the next write "roll back" ``../../.profile``.
It must have the shape a write makes (:func:`_check`) or it is
**quarantined**: renamed ``.wikimem-intent-<time>.quarantined``, never
applied nor deleted, and reported by lint (``intent-quarantined``).

Rolling back, never forward, keeps one rule: a write that did not return did
not happen. Reads never recover (they take no lock), so ``MemoryStore``
orders a move's files so that a half-applied move shows the item at both
addresses, never at none.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import datetime as dt
import json
import logging
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.disk.atomic import append_whole, fsync_dir, plan_append, replace_file, step, truncate_back
from wikimem.disk.limits import check_file_size
from wikimem.disk.store_dir import is_within, written_by_a_write

__all__ = ["INTENT_DIR", "QUARANTINE_SUFFIX", "FileChange", "commit", "quarantined", "recover"]

INTENT_DIR = ".wikimem-intent"
#: How a refused record's folder ends once moved aside at the top of the memory directory.
QUARANTINE_SUFFIX = ".quarantined"
_RECORD = "record.json"
_JOURNAL = "journal.jsonl"
# What a live or killed write leaves in the folder: the record, its temp file, the backups.
_FOLDER_RE = re.compile(r"record\.json|\.record\.json\.[^/]*\.tmp|before-[0-9]+")
_log = logging.getLogger("wikimem")


@dataclass(frozen=True)
class FileChange:
    """One file of a write: its bytes before and after (``None``: the file does not exist)."""

    path: Path
    before: bytes | None
    after: bytes | None


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def commit(root: Path, changes: Sequence[FileChange], journal: Path, lines: bytes) -> None:
    """Apply ``changes`` and append ``lines`` to ``journal``: all of it, or (raising) none of it.

    Call with the store lock held. One changed file needs no record: the
    ordering of :func:`wikimem.disk.atomic.replace_file` is enough. Files are
    replaced in the order given (a move passes the new address first and
    the old one last, so a reader never finds the item at neither). A file
    the write would make larger than :data:`~wikimem.disk.limits.MAX_FILE_BYTES`
    raises ``ValueError`` before anything is written.
    """
    changes = [c for c in changes if c.before != c.after]
    for change in changes:
        check_file_size(os.path.relpath(change.path, root), len(change.before or b""), len(change.after or b""))
    if len(changes) <= 1:
        if changes:
            replace_file(changes[0].path, changes[0].after, journal=journal, lines=lines)
        elif lines:
            append_whole(journal, lines)
        return
    folder = root / INTENT_DIR
    os.mkdir(folder)  # the lock holder recovered any leftover first: it cannot exist
    try:
        backups = [_link(change.path, folder / f"before-{n}") for n, change in enumerate(changes)]
        offset, blob = plan_append(journal, lines)
        record: dict[str, Any] = {
            "version": 1,
            "files": [{"path": c.path.relative_to(root).as_posix(), "before": _b64(c.before),
                       "after": _b64(c.after), "backup": backup} for c, backup in zip(changes, backups)],
            "journal": {"path": journal.relative_to(root).as_posix(), "offset": offset, "lines": _b64(blob)},
        }
        replace_file(folder / _RECORD, json.dumps(record).encode("ascii"))
    except BaseException:
        _remove(folder)
        raise
    step("intent-written")
    try:
        for number, change in enumerate(changes, 1):
            replace_file(change.path, change.after)
            step(f"file-{number}-written")
        if blob:
            append_whole(journal, blob, planned=(offset, blob))
        step("journaled")
        os.unlink(folder / _RECORD)  # the write is done: from here on nothing rolls it back
    except BaseException:
        with contextlib.suppress(BaseException):  # if this fails too, the next writer rolls back
            _roll_back(root, record)
            _remove(folder)
        raise
    step("intent-dropped")
    with contextlib.suppress(OSError):
        _remove(folder)


def recover(root: Path) -> list[str]:
    """Roll back the write a killed process left half done; returns what was done, in words.

    Cheap when there is nothing to do (one ``stat``). Call with the store
    lock held, before any write of your own.
    """
    folder = root / INTENT_DIR
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return []
    if not stat.S_ISDIR(st.st_mode):  # a symlink (emptying it would delete another folder's files) or a file
        return [_quarantine(root, folder, f"{INTENT_DIR} is not a folder of the memory")]
    try:
        stray = [name for name in os.listdir(folder) if not _FOLDER_RE.fullmatch(name)
                 or not stat.S_ISREG(os.lstat(folder / name).st_mode)]
        raw = _read(folder / _RECORD) if not stray else None
    except OSError as exc:
        return [_quarantine(root, folder, f"unreadable ({exc.strerror or exc})")]
    if stray:
        return [_quarantine(root, folder, "it holds what no write leaves there: " + ", ".join(sorted(stray)))]
    if raw is None:  # killed before the record was whole, or after the write was done
        _remove(folder)
        return []
    try:
        record = _check(root, raw)
    except _Refused as exc:
        return [_quarantine(root, folder, str(exc))]
    files = [(root / f["path"], _unb64(f["before"]), _unb64(f["after"])) for f in record["files"]]
    edited = [str(path.relative_to(root)) for path, before, after in files if _read(path) not in (before, after)]
    if edited:
        return [_set_aside(root, folder, "edited since the interrupted write: " + ", ".join(edited))]
    _roll_back(root, record)
    _remove(folder)
    return [f"rolled back an interrupted write of {len(files)} files"]


def quarantined(root: str | os.PathLike[str]) -> list[str]:
    """The names of the refused records kept at the top of ``root`` (for lint)."""
    try:
        names = os.listdir(root)
    except OSError:
        return []
    return sorted(n for n in names if n.startswith(INTENT_DIR + "-") and n.endswith(QUARANTINE_SUFFIX))


class _Refused(ValueError):
    """A record that is not one a write of this store made: never applied."""


def _check(root: Path, raw: bytes) -> dict[str, Any]:
    """The record, if it has the shape :func:`commit` writes and every path stays in the memory; else raise."""
    try:
        record = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise _Refused(f"unreadable intent record ({exc})") from None
    if not isinstance(record, dict) or record.get("version") != 1 or not isinstance(record.get("files"), list):
        raise _Refused("not an intent record of this version")
    base = os.path.realpath(root)
    seen: set[str] = set()
    for index, entry in enumerate(record["files"]):
        if not isinstance(entry, dict):
            raise _Refused("a file entry that is not an object")
        path = entry.get("path")
        if not isinstance(path, str) or path in seen or not written_by_a_write(path):
            raise _Refused(f"it names {path!r}, a file no write of the store touches")
        seen.add(path)
        if not is_within(os.path.realpath(root / path), base):
            raise _Refused(f"{path} leads outside the memory directory (through a symlink)")
        backup = entry.get("backup")
        if backup is not None and backup != f"before-{index}":
            raise _Refused(f"the backup of {path} is named {backup!r}, not before-{index}")
        for side in ("before", "after"):
            _decode(entry.get(side), f"the {side} bytes of {path}")
    journal = record.get("journal")
    if not isinstance(journal, dict):
        raise _Refused("no journal entry")
    lines = _decode(journal.get("lines"), "the journal lines")
    offset = journal.get("offset")
    if lines and (journal.get("path") != _JOURNAL or not isinstance(offset, int) or isinstance(offset, bool)
                  or offset < 0 or not is_within(os.path.realpath(root / _JOURNAL), base)):
        raise _Refused(f"its journal is {journal.get('path')!r} at {offset!r}, not {_JOURNAL}")
    return record


def _decode(text: object, what: str) -> bytes | None:
    if text is None:
        return None
    if not isinstance(text, str):
        raise _Refused(f"{what} are not base64 text")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise _Refused(f"{what} are not base64") from None


def _link(path: Path, backup: Path) -> str | None:
    """Hard-link the file as it is now into the intent folder (``None``: absent, or links unsupported)."""
    try:
        os.link(path, backup)
    except FileNotFoundError:
        return None
    except OSError:  # a filesystem without hard links: roll back from the record's bytes
        return None
    return backup.name


def _roll_back(root: Path, record: dict[str, Any]) -> None:
    """Put every file back to its "before" bytes (last first) and cut the journal lines."""
    folder = root / INTENT_DIR
    for entry in reversed(record["files"]):
        path, before, after = root / entry["path"], _unb64(entry["before"]), _unb64(entry["after"])
        if before == after or _read(path) != after:
            continue
        backup = folder / entry["backup"] if entry.get("backup") else None
        if backup is not None and _regular(backup) and _read(backup) == before:
            os.replace(backup, path)  # a rename: needs no free space
            fsync_dir(path.parent)
        else:
            replace_file(path, before)
    journal = record.get("journal") or {}
    blob = _unb64(journal.get("lines")) or b""
    if blob:
        _cut_journal(root / journal["path"], int(journal["offset"]), blob)


def _regular(path: Path) -> bool:
    """True for a regular file, not through a symlink (a backup is renamed into the memory)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _remove(folder: Path) -> None:
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()
    fsync_dir(folder.parent)


def _cut_journal(path: Path, offset: int, blob: bytes) -> None:
    """Cut the lines of a rolled-back write off the journal (whole or torn), if nothing followed them."""
    data = _read(path) or b""
    tail = data[offset:]
    if len(data) >= offset and tail and blob.startswith(tail):
        truncate_back(path, offset, len(data))


def _set_aside(root: Path, folder: Path, why: str) -> str:
    kept = _move_aside(root, folder, ".unresolved")
    message = f"an interrupted write was left as it is ({why}); its record is kept in {kept}"
    _log.warning(message)
    return message


def _quarantine(root: Path, folder: Path, why: str) -> str:
    kept = _move_aside(root, folder, QUARANTINE_SUFFIX)
    message = (f"an intent record was quarantined, not applied: {why}; it is kept in {kept} "
               "(a memory from elsewhere may hold a planted record: look at it, then delete it)")
    _log.warning(message)
    return message


def _move_aside(root: Path, folder: Path, suffix: str) -> str:
    """Rename the folder (or what stands at its name) to a new name at the top of ``root``."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%f")
    kept = root / f"{INTENT_DIR}-{stamp}{suffix}"
    os.replace(folder, kept)  # renames a symlink itself, never what it points at
    fsync_dir(root)
    return kept.name
