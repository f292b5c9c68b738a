"""Cold loads at scale: what a build of the whole store does differently from a write.

Design constraint: a cold load creates hundreds of thousands of objects that
all survive, and must not pay for machinery tuned to short-lived ones.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["gc_paused"]


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC during a cold load.

    A load creates objects that all survive (an item per block) and no
    cycles; generational collection would keep traversing them -- and every
    other object of the process -- for nothing (10-20% of a 100k load, far
    more next to a large heap). Re-enabled afterwards only if it was on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
