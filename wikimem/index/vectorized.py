"""The switch for the index's optional numpy path: whether a piece of work is large enough to take it.

Why it exists: a term's search in the scan forms and a query over long
posting lists cost pure Python an interpreter step per element even
through C-level ``map``; numpy does the same passes in compiled loops
over whole arrays. It is
optional (never a dependency, never loaded by ``import wikimem``) and
only used where it pays for its own import (once): work above
:data:`MIN_ELEMENTS`, scan forms above :data:`SCAN_MIN`; a small store
never loads it. ``WIKIMEM_NUMPY=0`` switches it off (benchmarks measure
both paths; tests force either and compare their answers).
"""

from __future__ import annotations

import os
from typing import Any

from wikimem._optional import importable

__all__ = ["LOADED_MIN", "MIN_ELEMENTS", "SCAN_MIN", "active", "numpy_module", "switch"]

#: A list this long (postings) is worth numpy's import.
MIN_ELEMENTS = 20_000
#: Once numpy is imported (a large load, or a long list), a query over this many postings is
#: cheaper in it: the pure path's cost per posting (a dict entry, a float boxed per step) passes
#: numpy's fixed cost per call at a handful of postings, so every query with any takes it.
LOADED_MIN = 1
#: Scan forms this large in all (bytes and characters) are: below it a term's pure search is
#: cheap, and the import would add a large share to a small store's cold load.
SCAN_MIN = 4_000_000

_np: Any = None
_state: bool | None = None


def active(size: int, minimum: int | None = None) -> bool:
    """Whether to take the numpy path for ``size`` elements of work (imports numpy the first time).

    ``minimum``: the size that pays for it (default :data:`MIN_ELEMENTS`, or
    :data:`LOADED_MIN` once numpy is imported and on: the import is paid).
    """
    global _np, _state
    if minimum is None:
        minimum = LOADED_MIN if _state else MIN_ELEMENTS
    if size < minimum:
        return False
    if _state is None:
        _state = os.environ.get("WIKIMEM_NUMPY", "1") != "0" and importable("numpy")
        if _state:
            import numpy  # noqa: PLC0415 -- optional, and only for large work

            _np = numpy
    return _state


def numpy_module() -> Any:
    """numpy if the path is on (imported now if need be), else None: for numpy-only features."""
    return _np if active(1, 0) else None


def switch(on: bool | None) -> None:
    """Force the path on or off (``None``: decide again from the environment). For tests and benchmarks."""
    global _state, _np
    _state = None
    if on is False:
        _state = False
    elif on:
        import numpy  # noqa: PLC0415

        _np, _state = numpy, True
