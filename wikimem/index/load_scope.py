"""The numpy switch of one cold load's scan forms: counted per load, not per process.

Why a module: the forms (:mod:`wikimem.index.scan`) take numpy's path only
once a load has made enough of them to pay for its import, and what
"a load" is comes from outside the forms -- :func:`wikimem.disk.loader.gc_paused`,
which every cold load runs inside, opens the scope.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from wikimem.index import vectorized

__all__ = ["count_made", "load_scope", "numpy_for"]


class _Made(threading.local):
    """Characters of scan forms made by this thread's cold load so far; None: not in one (see :func:`load_scope`)."""

    size: int | None = None


_made = _Made()


@contextlib.contextmanager
def load_scope() -> Iterator[None]:
    """One cold load, for the numpy switch: the forms made inside count toward :data:`wikimem.index.vectorized.SCAN_MIN` by themselves.

    Why a scope: numpy pays for its import (0.1-0.5 s) only on a large
    load, so the forms take its path once *this* load has made enough of
    them -- not once the process has made that much over many builds (a
    process rebuilding a small store again and again would otherwise
    import numpy on some later build). Outside a scope each call counts
    alone. Per thread: two loads in two threads count apart.
    (:func:`wikimem.disk.loader.gc_paused` opens one around every cold load.)
    """
    outer = _made.size
    _made.size = 0
    try:
        yield
    finally:
        _made.size = outer


def numpy_for(size: int) -> bool:
    """Whether a form of about ``size`` characters takes the numpy path (imports numpy the first time)."""
    made = _made.size
    return vectorized.active(size if made is None else made + size, vectorized.SCAN_MIN)


def count_made(size: int) -> None:
    """``size`` more characters of forms made (by this thread's load, if one is open)."""
    if _made.size is not None:
        _made.size += size
