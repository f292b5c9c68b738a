"""Intent records: a write that spans several files is completed whole or rolled back.

A move (or a rename that rewrites links, a retraction, the undo of any of
them) changes several files, and no filesystem replaces several files in
one step. So before the first file is touched, the whole write is recorded
in the folder ``.wikimem-intent/`` of the memory directory: every original
file is hard-linked there (``before-N``: rolling back is then a rename, which
needs no free space), and ``record.json`` (written atomically, fsynced)
holds every file's bytes before and after and the journal lines with the
offset they go at. Then the files are replaced one by one, the journal
lines appended, the record dropped (the write is done) and the folder
removed. A write that raises rolls itself back before raising, even on a
disk that stays full; a process killed in the middle leaves the folder
behind, and the next writer (under the store lock, before its own write:
see ``wikimem.disk.lock``) rolls it back:

* a file that holds its "after" bytes gets its "before" bytes back (or is
  deleted, when it did not exist); a file that holds "before" is left;
* journal lines the dead write appended (whole or torn) are cut off;
* a file that holds neither was edited by hand since: nothing is touched,
  the record is kept aside as ``.wikimem-intent-<time>.unresolved.json``
  and a warning names the files, because rolling back the others could
  leave an item at no address at all.

Rolling back (never forward) keeps one rule for every case: a write that
did not return did not happen, whether it raised or its process was killed.
Reads never recover (they take no lock and write nothing), so a reader may
see a half-applied move until the next write; ``MemoryStore`` orders the
files of a move so that state is the item at both addresses, never at none.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.disk.atomic import append_whole, fsync_dir, plan_append, replace_file, step, truncate_back
from wikimem.disk.tolerant import parse_json

__all__ = ["INTENT_DIR", "FileChange", "commit", "recover"]

INTENT_DIR = ".wikimem-intent"
_RECORD = "record.json"
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
    the old one last, so a reader never finds the item at neither).
    """
    changes = [c for c in changes if c.before != c.after]
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
    if not folder.is_dir():
        return []
    try:
        raw = (folder / _RECORD).read_bytes()
    except FileNotFoundError:  # killed before the record was whole, or after the write was done
        _remove(folder)
        return []
    try:
        record = parse_json(raw, repair=True)  # ValueError, never RecursionError; no lone surrogate in a path
        files = [(root / f["path"], _unb64(f["before"]), _unb64(f["after"])) for f in record["files"]]
        edited = [str(path.relative_to(root)) for path, before, after in files if _read(path) not in (before, after)]
    except (ValueError, KeyError, TypeError, OSError) as exc:  # OSError: a path no file can have (too long...)
        return [_set_aside(root, folder, f"unreadable intent record ({str(exc)[:200]})")]
    if edited:
        return [_set_aside(root, folder, "edited since the interrupted write: " + ", ".join(edited))]
    _roll_back(root, record)
    _remove(folder)
    return [f"rolled back an interrupted write of {len(files)} files"]


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
        if backup is not None and _read(backup) == before:
            os.replace(backup, path)  # a rename: needs no free space
            fsync_dir(path.parent)
        else:
            replace_file(path, before)
    journal = record.get("journal") or {}
    blob = _unb64(journal.get("lines")) or b""
    if blob:
        _cut_journal(root / journal["path"], int(journal["offset"]), blob)


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
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%f")
    kept = root / f".wikimem-intent-{stamp}.unresolved"
    os.replace(folder, kept)
    fsync_dir(root)
    message = f"an interrupted write was left as it is ({why}); its record is kept in {kept.name}"
    _log.warning(message)
    return message
