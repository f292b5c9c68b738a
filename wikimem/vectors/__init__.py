"""Semantic recall: embedders, the content-hash vector cache and vector search.

This package is the embedding extra (numpy; httpx for HTTP endpoints; a
bundled offline model for ``LocalEmbedder``). Nothing in ``wikimem`` imports
it unless an embedder is actually passed, and it is not re-exported from
``wikimem``: the core stays dependency-free.
"""

from wikimem.vectors.cache import (
    DIARY_VECTORS_DIR,
    KEYS_FILE,
    VectorCache,
    cache_mismatch,
    content_hash,
    embed_text,
)
from wikimem.vectors.embedders import (
    LOCAL_BACKENDS,
    Embedder,
    HttpEmbedder,
    LocalEmbedder,
    make_embedder,
    model_id,
    validate_vectors,
)
from wikimem.vectors.index import RERANK_FACTOR, MemmapVectorIndex, VectorIndex

__all__ = [
    "DIARY_VECTORS_DIR",
    "Embedder",
    "HttpEmbedder",
    "KEYS_FILE",
    "LOCAL_BACKENDS",
    "LocalEmbedder",
    "MemmapVectorIndex",
    "RERANK_FACTOR",
    "VectorCache",
    "VectorIndex",
    "cache_mismatch",
    "content_hash",
    "embed_text",
    "make_embedder",
    "model_id",
    "validate_vectors",
]
