"""Ranking: from index scores to the ordered answer, and the words that explain it.

Retrieval makes zero LLM calls and imports no network code; everything it
decides is here and deterministic. :mod:`wikimem.retrieval` (``MemoryIndex``)
is the face that owns the index and calls into this package.
"""
