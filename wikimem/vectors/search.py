"""Nearest-neighbour search over a (memory-mapped) embedding matrix.

Design constraint: the matrix stays on disk, mapped, and is never copied.
Below ``binary_threshold`` rows a search is one exact matrix-vector product.
Above it, each row is also held as a 1-bit sign signature: a Hamming scan
over those picks a few candidates per result, and only those rows are read
from the map and reranked by exact cosine. A narrow model's signatures have
fewer bits, so the rerank reads as many *bytes* as ``RERANK_FACTOR·top_k``
rows of ``RERANK_DIM`` floats would (more rows when narrower). Zero rows
score 0, never NaN.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["HAMMING_POOL", "MemmapVectorIndex", "RERANK_DIM", "RERANK_FACTOR", "VectorIndex"]

#: Candidates reranked exactly in the binary tier, per requested result, at
#: ``RERANK_DIM`` dimensions or more (narrower rows: more of them, same bytes).
RERANK_FACTOR = 4
RERANK_DIM = 2048
#: Signatures kept by the Hamming scan per reranked candidate (see ``_coarse``).
HAMMING_POOL = 4
_CHUNK = 65_536  # rows per pass when scanning the map at construction
#: Norm of the mean unit row above which signs are taken around the mean.
_CENTRE_ABOVE = 0.6

if hasattr(np, "bitwise_count"):  # numpy >= 2.0

    def _popcount(words: np.ndarray) -> np.ndarray:
        counts: np.ndarray = np.bitwise_count(words)
        return counts

else:  # pragma: no cover - exercised only on numpy 1.x
    _POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)

    def _popcount(words: np.ndarray) -> np.ndarray:
        counts: np.ndarray = _POP8[words.view(np.uint8)].reshape(*words.shape, words.itemsize).sum(
            axis=-1, dtype=np.uint16
        )
        return counts


@runtime_checkable
class VectorIndex(Protocol):
    """The port retrieval talks to: rows most similar to a query, best first."""

    def search(self, query: Sequence[float], top_k: int) -> list[tuple[int, float]]: ...


class MemmapVectorIndex:
    """Cosine search over ``matrix`` (rows = documents), exact or binary-tiered."""

    def __init__(self, matrix: Any, *, binary_threshold: int = 10_000) -> None:
        if isinstance(matrix, np.ndarray):
            self._matrix = matrix.view(np.ndarray)  # a memmap stays mapped
        else:
            self._matrix = np.asarray(matrix, dtype=np.float32)
        if self._matrix.ndim != 2:
            raise ValueError("a vector index needs a 2-D matrix")
        self.binary_threshold = binary_threshold
        rows, dim = self._matrix.shape
        self._norms = np.empty(rows, dtype=np.float32)
        total = np.zeros(dim, dtype=np.float64)
        for start, block in self._blocks():
            norms = np.sqrt(np.einsum("ij,ij->i", block, block))
            self._norms[start:start + len(block)] = norms
            if rows > binary_threshold:
                total += (block / np.where(norms > 0, norms, 1.0)[:, None]).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            self._inv_norms = np.where(
                np.isfinite(self._norms) & (self._norms > 0), 1.0 / self._norms, 0.0
            ).astype(np.float32)
        #: Packed sign bits, ``np.packbits`` layout (rows x ceil(dim/8) uint8); exact tier: None.
        self._signatures: np.ndarray | None = None
        #: The same bits as zero-padded uint64 words, column-major (words x rows):
        #: a Hamming scan then runs over contiguous columns, faster than over rows.
        self._words: np.ndarray | None = None
        #: Subtracted before taking signs (see :func:`_centre`); None = raw signs.
        self._centre: np.ndarray | None = None
        if rows > binary_threshold:
            self._centre = _centre(total / rows, rows)
            self._signatures = np.empty((rows, (dim + 7) // 8), dtype=np.uint8)
            self._words = np.empty(((dim + 63) // 64, rows), dtype=np.uint64)
            for start, block in self._blocks():
                packed = self._signs(block, self._norms[start:start + len(block)])
                self._signatures[start:start + len(block)] = packed
                self._words[:, start:start + len(block)] = _as_words(packed).T

    def _blocks(self) -> Iterator[tuple[int, np.ndarray]]:
        """The matrix in float32 chunks, so a million-row map is never copied whole."""
        for start in range(0, len(self._matrix), _CHUNK):
            yield start, np.asarray(self._matrix[start:start + _CHUNK], dtype=np.float32)

    def _signs(self, block: np.ndarray, norms: np.ndarray) -> np.ndarray:
        """Packed sign bits of each row (around the centre when there is one)."""
        if self._centre is not None:
            block = block / np.where(norms > 0, norms, 1.0)[:, None] - self._centre
        return np.packbits(block > 0, axis=1)

    def __len__(self) -> int:
        return int(self._matrix.shape[0])

    @property
    def dim(self) -> int:
        """Width of the rows (and of an acceptable query)."""
        return int(self._matrix.shape[1])

    def search(self, query: Sequence[float], top_k: int) -> list[tuple[int, float]]:
        """``[(row, cosine)]`` for the ``top_k`` rows most similar to ``query``.

        A zero or non-finite query matches nothing; a query of the wrong width
        raises ``ValueError``.
        """
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise ValueError(f"query has {q.shape[0]} dimensions, the index {self.dim}")
        n = len(self)
        if top_k <= 0 or n == 0 or not np.all(np.isfinite(q)):
            return []
        q_norm = float(np.linalg.norm(q))
        if q_norm == 0.0:
            return []
        q = q / q_norm
        if self._signatures is None:
            scores = (self._matrix @ q) * self._inv_norms
            rows = np.arange(n)
        else:
            # Sorted rows turn the rerank's reads into a forward sweep of the map.
            rows = np.sort(self._coarse(q, min(n, self.rerank_count(top_k))))
            scores = (np.asarray(self._matrix[rows]) @ q) * self._inv_norms[rows]
        scores = np.where(np.isfinite(scores), scores, -np.inf)
        k = min(top_k, len(rows))
        best = np.argpartition(-scores, k - 1)[:k] if k < len(rows) else np.arange(len(rows))
        best = best[np.lexsort((rows[best], -scores[best]))]
        # float32 rounding can overshoot ±1 by an ulp; a cosine never does.
        return [
            (int(rows[i]), min(1.0, max(-1.0, float(scores[i]))))
            for i in best
            if np.isfinite(scores[i])
        ]

    def rerank_count(self, top_k: int) -> int:
        """Rows read from the map and scored exactly for ``top_k`` results (binary tier)."""
        return -(-RERANK_FACTOR * top_k * max(RERANK_DIM, self.dim) // self.dim)

    def _coarse(self, q: np.ndarray, count: int) -> np.ndarray:
        """``count`` candidate rows for ``q``, chosen from the signatures alone.

        Hamming distance keeps the ``HAMMING_POOL·count`` nearest signatures; those
        are re-scored asymmetrically (the float query against each row's ±1 signs),
        which separates Hamming ties, for the same ``count`` rows read from the map.
        """
        assert self._signatures is not None
        assert self._words is not None
        sig = _as_words(self._signs(q[None, :], np.ones(1, dtype=np.float32)))[0]
        dist = _popcount(self._words[0] ^ sig[0]).astype(np.uint16)
        for column, word in zip(self._words[1:], sig[1:]):
            dist += _popcount(column ^ word)
        if count >= len(dist):
            return np.arange(len(dist))
        pool = _smallest(dist, min(len(dist), HAMMING_POOL * count))
        signs = np.unpackbits(self._signatures[pool], axis=1, count=len(q)).astype(np.float32)
        centred = q - self._centre if self._centre is not None else q
        asym = (2.0 * signs - 1.0) @ centred
        return pool[np.argpartition(-asym, count - 1)[:count]]


def _smallest(dist: np.ndarray, count: int) -> np.ndarray:
    """Indices of ``count`` smallest distances (ties cut arbitrarily), unordered.

    Hamming distances are small integers, so a histogram finds the cut-off
    in one pass; several times faster than ``argpartition`` over a million.
    """
    if count >= len(dist):
        return np.arange(len(dist))
    cut = int(np.searchsorted(np.cumsum(np.bincount(dist)), count))
    below = np.flatnonzero(dist < cut)
    ties = np.flatnonzero(dist == cut)[: count - len(below)]
    return np.concatenate([below, ties])


def _as_words(packed: np.ndarray) -> np.ndarray:
    """Packed sign bytes zero-padded to whole uint64 words (rows x words)."""
    width = -(-packed.shape[1] // 8) * 8
    padded = np.zeros((packed.shape[0], width), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    return padded.view(np.uint64)


def _centre(mean: np.ndarray, rows: int) -> np.ndarray | None:
    """The mean direction to subtract before taking signs, or None for raw signs.

    Some models put every text in a narrow cone (the mean unit row has a large
    norm), so raw sign bits barely differ between rows and Hamming ranking
    collapses; for models without such a shared direction centring costs
    recall, hence the threshold. Chance alone gives ~1/sqrt(rows).
    """
    if not np.all(np.isfinite(mean)):
        return None
    norm = float(np.linalg.norm(mean))
    return mean.astype(np.float32) if norm > max(_CENTRE_ABOVE, 3 / np.sqrt(rows)) else None
