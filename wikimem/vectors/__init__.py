"""Semantic recall: embedders, the content-hash vector cache and vector search.

This package is the embedding extra. Nothing in ``wikimem`` imports it
unless an embedder is actually passed, and it is not re-exported from
``wikimem``: the core stays dependency-free. :meth:`VectorCache.plan` says
what a sync will cost before it starts; a cancelled sync raises
:class:`SyncCancelled` after keeping what it embedded, so the next one
reuses every row.
"""

from wikimem.vectors.cache import (
    DIARY_VECTORS_DIR,
    KEYS_FILE,
    VectorCache,
    cache_mismatch,
)
from wikimem.vectors.embedders import (
    LOCAL_BACKENDS,
    LOCAL_RUNTIMES,
    Embedder,
    HttpEmbedder,
    LocalEmbedder,
    make_embedder,
    model_id,
    onnx_runtime_available,
    validate_vectors,
)
from wikimem.vectors.search import RERANK_FACTOR, MemmapVectorIndex, VectorIndex
from wikimem.vectors.fit import CacheFit
from wikimem.vectors.rows import DegenerateVectors, usable_rows
from wikimem.vectors.plan import (
    SyncCancelled,
    SyncPlan,
    content_hash,
    embed_text,
    entries_for,
    format_duration,
)

__all__ = [
    "DIARY_VECTORS_DIR",
    "CacheFit",
    "DegenerateVectors",
    "Embedder",
    "HttpEmbedder",
    "KEYS_FILE",
    "LOCAL_BACKENDS",
    "LOCAL_RUNTIMES",
    "LocalEmbedder",
    "MemmapVectorIndex",
    "RERANK_FACTOR",
    "SyncCancelled",
    "SyncPlan",
    "VectorCache",
    "VectorIndex",
    "cache_mismatch",
    "content_hash",
    "embed_text",
    "entries_for",
    "format_duration",
    "make_embedder",
    "model_id",
    "onnx_runtime_available",
    "usable_rows",
    "validate_vectors",
]
