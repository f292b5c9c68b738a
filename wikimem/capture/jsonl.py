"""Reading an agent's JSONL log without trusting it: bounded lines, torn tails, a hash of what was read.

The last line of a live session may be half written: it is skipped (the
next capture reads it whole), never an error. A line longer than
:data:`MAX_LINE` is not parsed but still hashed and searched for the derived
marker, so a huge recall answer still makes the session derived. Invalid
UTF-8 and lone surrogates are replaced and counted; a line too deep to parse
or not a JSON object is counted and skipped. One bad line never stops the
rest of the log.

``size`` and ``sha256`` cover the bytes up to the end of the last whole line,
so the next capture knows whether the file is unchanged, grew or was rewritten.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from wikimem.disk.marks import DERIVED_TAG
from wikimem.disk.tolerant import NestingError, parse_json, repair_surrogates
from wikimem.capture.session import Session

__all__ = ["MAX_LINE", "prefix_sha256", "read_objects"]

#: Longest line parsed; longer ones are skipped (hashed and searched for the marker).
MAX_LINE = 4 << 20
_CHUNK = 1 << 20
_TAG = DERIVED_TAG.encode("ascii")
_TORN = "torn last line (still being written: read whole next time)"
_NOT_OBJECT = "lines that are not a JSON object"
_DEEP = "lines nested too deeply to parse"
_REPAIRED = "lines with lone surrogates (kept, each replaced by U+FFFD)"


def read_objects(path: Path, session: Session) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(offset, object)`` for every whole JSON-object line of ``path``; fills ``session``'s read state.

    Skips are counted in ``session.skipped``; ``session.size``/``sha256``/
    ``lines`` are set when the iteration ends. Raises ``OSError`` only when
    the file cannot be opened at all.
    """
    digest = hashlib.sha256()
    offset = 0
    with open(path, "rb") as handle:
        while True:
            line = handle.readline(MAX_LINE + 1)
            if not line:
                break
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                saved = digest.copy()
                size, ended, tagged = _skip_huge(handle, line, digest)
                if not ended:  # a torn huge tail: left for the next capture, like any torn line
                    digest = saved
                    session.skip(_TORN)
                    break
                session.lines += 1
                session.skip(f"lines over {MAX_LINE >> 20} MiB (not parsed)")
                if tagged:  # conservative on purpose: the marker anywhere in it counts
                    session.derived_at.append(offset)
                offset += size
                continue
            if not line.endswith(b"\n"):
                parsed, why = _parse(line)
                if parsed is None:
                    session.skip(_TORN)
                    break
                digest.update(line)
                session.lines += 1
                if why:
                    session.skip(why)
                yield offset, parsed
                offset += len(line)
                break
            digest.update(line)
            session.lines += 1
            parsed, why = _parse(line)
            if why and (parsed is not None or line.strip()):
                session.skip(why)
            if parsed is not None:
                yield offset, parsed
            offset += len(line)
    session.size = offset
    session.sha256 = digest.hexdigest()


def _parse(line: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """``(object, None)``; ``(object, why)`` when its lone surrogates were repaired; ``(None, why)``: not one."""
    try:
        value = parse_json(line.decode("utf-8", errors="replace"))
    except NestingError:
        return None, _DEEP
    except ValueError:
        return None, _NOT_OBJECT
    if not isinstance(value, dict):
        return None, _NOT_OBJECT
    if b"\\u" in line and repair_surrogates(value)[1]:
        return value, _REPAIRED
    return value, None


def _skip_huge(handle: Any, first: bytes, digest: Any) -> tuple[int, bool, bool]:
    """Read past one over-long line in chunks, hashing it: ``(size, ended with a newline, marker seen)``."""
    tagged = _TAG in first
    tail = first[-len(_TAG):]
    size = len(first)
    digest.update(first)
    while True:
        chunk = handle.readline(_CHUNK)
        if not chunk:
            return size, False, tagged
        tagged = tagged or _TAG in tail + chunk
        tail = chunk[-len(_TAG):]
        digest.update(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n"):
            return size, True, tagged


def prefix_sha256(path: Path, size: int) -> str | None:
    """The sha256 of the first ``size`` bytes of ``path`` (``None``: the file is shorter or unreadable)."""
    digest = hashlib.sha256()
    left = size
    try:
        with open(path, "rb") as handle:
            while left:
                chunk = handle.read(min(left, _CHUNK))
                if not chunk:
                    return None
                digest.update(chunk)
                left -= len(chunk)
    except OSError:
        return None
    return digest.hexdigest()
