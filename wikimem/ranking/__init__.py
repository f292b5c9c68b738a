"""Ranking: from index scores to the ordered answer, and the words that explain it.

Retrieval makes zero LLM calls and imports no network code; everything it
decides is here and deterministic. ``pipeline`` runs a query's stages
(candidates, time gate, fusion, floor, limit, links, budget) and keeps a
trace; ``fusion`` joins BM25 and cosine (the default and the reference's
``minmax``); ``floor`` is the relevance floor on cosine; ``semantic`` is
the vector half (embedder calls, vector caches, numpy loaded only when an
embedder is given); ``explain`` is the wording ``wikimem explain`` and the
app print; ``why_not`` says at which stage an item was lost for a query.
:mod:`wikimem.retrieval` (``MemoryIndex``) is the face that owns the index
and calls into this package.
"""
