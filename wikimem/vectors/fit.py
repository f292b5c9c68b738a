"""Does a vector cache fit the embedder in use? Judged once per index, said once.

Rows from another model, or another width, live in another space: ranking
with them would be noise, and re-embedding by itself would cost what the
user never agreed to. So a query that finds such a cache ranks with BM25
only and logs one WARNING per index; an explicit sync replaces the cache.
Verdicts are remembered per cache folder (reading a header parses the whole
keys file); :meth:`CacheFit.forget` drops them after a sync.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from wikimem.vectors.cache import cache_mismatch

__all__ = ["CacheFit"]


class CacheFit:
    """The verdicts of one index about its caches, and the warnings already given."""

    def __init__(self, embedder: Any, log: logging.Logger) -> None:
        self.embedder = embedder
        self.log = log
        self._model: dict[Path, str | None] = {}
        self._width: dict[tuple[Path, int], str | None] = {}
        self._warned: set[str] = set()

    def usable(self, cache: Any) -> bool:
        """False (and one WARNING per index) when ``cache`` was stamped by another model."""
        if cache.root not in self._model:
            self._model[cache.root] = message = cache_mismatch(cache.header(), self.embedder)
            if message is not None:
                self.warn_once("mismatch", message)
        return self._model[cache.root] is None

    def fits(self, cache: Any, dim: int) -> bool:
        """False (and one WARNING per index) when ``cache`` holds rows of another width than ``dim``."""
        key = (cache.root, dim)
        if key not in self._width:
            self._width[key] = message = cache_mismatch(cache.header(), self.embedder, dim=dim)
            if message is not None:
                self.warn_once("mismatch", message)
        return self._width[key] is None

    def message(self, cache: Any) -> str | None:
        """The mismatch found for ``cache`` so far (model first, then width), else ``None``."""
        if not self.usable(cache):
            return self._model[cache.root]
        return next((m for (root, _), m in self._width.items() if root == cache.root and m is not None), None)

    def forget(self, cache: Any) -> None:
        """Judge ``cache`` again (a sync just rewrote it)."""
        self._model.pop(cache.root, None)
        for key in [k for k in self._width if k[0] == cache.root]:
            del self._width[key]

    def warn_once(self, kind: str, message: str) -> None:
        """One WARNING of each ``kind`` per index; later ones are DEBUG (a flaky endpoint must not flood the log)."""
        if kind in self._warned:
            self.log.debug("%s", message)
            return
        self._warned.add(kind)
        self.log.warning("%s", message)
