"""The rows of one cache sync: embedding in batches, rows that must not be cached, assembling the matrix.

Design constraint: a row that cannot give a cosine (all zeros from a stub
endpoint, values beyond float32) must never reach the cache, or it would be
reused forever (its hash matches) while ``embedding_used`` says cosine took
part. :func:`usable_rows` is that test, on the float32 rows as stored. Such
rows are dropped and the sync raises :class:`DegenerateVectors` after
writing the good rows, so the query that met them ranks with BM25 only and
says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wikimem.vectors.embedders import Embedder, validate_vectors
from wikimem.vectors.plan import Progress, SyncCancelled

__all__ = ["DegenerateVectors", "EmbedRun", "gather", "merge_keys", "usable_rows"]

Key = dict[str, str]


def _np() -> Any:
    import numpy  # lazy: only the embedding extra needs it

    return numpy


class DegenerateVectors(ValueError):
    """The embedder returned rows with no direction (all zero, NaN or beyond float32); none was cached.

    Raised by a sync after it wrote every good row, so the next sync embeds
    only the rejected texts again. A ``ValueError``, so retrieval's fail-open
    handling ranks that query with BM25 only.
    """

    def __init__(self, rejected: int, total: int) -> None:
        super().__init__(
            f"the embedder returned {rejected} of {total} vector(s) that are all zero, NaN or too large for "
            "float32; they were not cached and this query ranks with BM25 only")
        self.rejected = rejected
        self.total = total


def usable_rows(matrix: Any) -> Any:
    """A boolean per row of a float32 ``matrix``: finite values and a finite, non-zero norm."""
    np = _np()
    with np.errstate(over="ignore", invalid="ignore"):
        norms = np.linalg.norm(matrix, axis=1)
        return np.isfinite(matrix).all(axis=1) & np.isfinite(norms) & (norms > 0)


class EmbedRun:
    """The embedding calls of one sync: batches, progress, cooperative stop, rejected rows.

    The rows embedded so far stay available (:meth:`partial`) when a stop
    or an error ends the run, so a cancelled sync keeps its work.
    ``rejected`` holds the positions (in the texts of the last
    :meth:`embed`) whose rows :func:`usable_rows` refused.
    """

    def __init__(self, embedder: Embedder, batch_size: int, progress: Progress | None,
                 should_stop: Callable[[], bool] | None) -> None:
        self.embedder = embedder
        self.batch_size = batch_size
        self.progress = progress
        self.should_stop = should_stop
        self._rows: list[list[float]] = []
        self.rejected: set[int] = set()

    def embed(self, texts: list[str]) -> Any:
        """One float32 matrix for ``texts`` (``None`` for none); may raise :class:`SyncCancelled`."""
        self._rows, self.rejected = [], set()
        if not texts:
            return None
        total = len(texts)
        if self.progress is not None:
            self.progress(0, total)
        for start in range(0, total, self.batch_size):
            if self.should_stop is not None and self.should_stop():
                raise SyncCancelled(len(self._rows), total)
            batch = texts[start:start + self.batch_size]
            rows = validate_vectors(self.embedder.embed(batch), len(batch))
            if self._rows and len(rows[0]) != len(self._rows[0]):
                raise ValueError(
                    f"embedder returned vectors of different widths {sorted({len(rows[0]), len(self._rows[0])})}"
                )
            np = _np()
            with np.errstate(over="ignore"):
                good = usable_rows(np.asarray(rows, dtype=np.float32))
            self.rejected.update(start + i for i in np.flatnonzero(~good).tolist())
            self._rows.extend(rows)
            if self.progress is not None:
                self.progress(len(self._rows), total)
        return self.partial()

    def partial(self) -> Any:
        """The rows embedded so far as a float32 matrix (``None`` when none)."""
        if not self._rows:
            return None
        np = _np()
        with np.errstate(over="ignore"):
            return np.asarray(self._rows, dtype=np.float32)

    def placed(self, hashes: list[str], matrix: Any) -> dict[str, tuple[Any, int]]:
        """``hash -> (matrix, row)`` for the first ``len(matrix)`` of ``hashes``, rejected rows left out."""
        return {h: (matrix, i) for i, h in enumerate(hashes[:len(matrix)]) if i not in self.rejected}


def gather(keys: list[Key], where: dict[str, tuple[Any, int]]) -> Any:
    """Assemble the new matrix, one fancy-indexed read per source matrix."""
    np = _np()
    dim = next(iter(where.values()))[0].shape[1]
    out = np.empty((len(keys), dim), dtype=np.float32)
    plan: dict[int, tuple[Any, list[int], list[int]]] = {}
    for dest, key in enumerate(keys):
        source, row = where[key["hash"]]
        entry = plan.setdefault(id(source), (source, [], []))
        entry[1].append(dest)
        entry[2].append(row)
    for source, dests, rows in plan.values():
        out[np.asarray(dests)] = source[np.asarray(rows)]
    return out


def merge_keys(old: list[Key], new: list[Key]) -> list[Key]:
    """Old order kept; each ``(file, name)`` present in ``new`` takes ``new``'s rows.

    Diary headings may repeat within a day, so a key group can hold several
    rows; a group is replaced as a whole where it first appeared, and groups
    never cached before are appended. An unchanged window yields ``old``.
    """
    groups: dict[tuple[str, str], list[Key]] = {}
    for key in new:
        groups.setdefault((key["file"], key["name"]), []).append(key)
    merged: list[Key] = []
    placed: set[tuple[str, str]] = set()
    for key in old:
        ident = (key["file"], key["name"])
        if ident not in groups:
            merged.append(key)
        elif ident not in placed:
            placed.add(ident)
            merged.extend(groups[ident])
    for ident, group in groups.items():
        if ident not in placed:
            merged.extend(group)
    return merged
