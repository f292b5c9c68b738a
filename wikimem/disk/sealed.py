"""A derived file sealed with its own digest: read whole and as written, or not at all.

Design constraint: the caches that spare a process work another process
already did (jieba's packed dictionary, a store's segmentation) are never
the truth and may be cut short by a crash, edited, or swapped for another
file. Each is one marshal payload behind a BLAKE2b digest of it, written
atomically; a read that finds anything else -- no file, a short one, a
digest that does not match, bytes marshal refuses -- answers "none", and
the caller does the work again. What the payload means is the caller's to
check.
"""

from __future__ import annotations

import hashlib
import marshal
from pathlib import Path
from typing import Any

from wikimem.disk.atomic import replace_file

__all__ = ["read_sealed", "write_sealed"]

_DIGEST = 32


def read_sealed(path: Path) -> object | None:
    """The value sealed at ``path``, or ``None`` when there is no whole, untouched one."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) <= _DIGEST:
        return None
    payload = memoryview(data)[_DIGEST:]  # not a copy: a large store's cache is hundreds of MB
    try:
        if hashlib.blake2b(payload, digest_size=_DIGEST).digest() != data[:_DIGEST]:
            return None
        loaded: object = marshal.loads(payload)
        return loaded
    except (EOFError, ValueError, TypeError):
        return None
    finally:
        payload.release()


def write_sealed(path: Path, value: Any) -> None:
    """Seal ``value`` (marshal-able) at ``path`` atomically; raises ``OSError`` when it cannot be written."""
    payload = marshal.dumps(value)
    replace_file(path, hashlib.blake2b(payload, digest_size=_DIGEST).digest() + payload)
