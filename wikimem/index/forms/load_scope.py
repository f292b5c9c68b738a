"""The numpy switch of one cold load's scan forms: counted per load, not per process.

Why a module: the forms (:mod:`wikimem.index.forms.scan`) take numpy's path only
once a load has made enough of them to pay for its import, and what
"a load" is comes from outside the forms -- :func:`wikimem.disk.loader.gc_paused`,
which every cold load runs inside, opens the scope (:func:`load_scope`, kept
in the disk layer with its count so that the loader needs nothing above it).
"""

from __future__ import annotations

from wikimem.disk.loader import load_scope
from wikimem.disk.loader import made_forms as _made
from wikimem.index import vectorized

__all__ = ["count_made", "load_scope", "numpy_for"]


def numpy_for(size: int) -> bool:
    """Whether a form of about ``size`` characters takes the numpy path (imports numpy the first time)."""
    made = _made.size
    return vectorized.active(size if made is None else made + size, vectorized.SCAN_MIN)


def count_made(size: int) -> None:
    """``size`` more characters of forms made (by this thread's load, if one is open)."""
    if _made.size is not None:
        _made.size += size
