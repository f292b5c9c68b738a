"""File context: an item next to items that match the query, in its RecallFile, ranks higher.

Why: a RecallFile keeps a topic's items in the order they were written, so
the items around a hit are the rest of its conversation or passage; an
answer often shares few words with the question while the turn beside it
shares many. Its effect is measured by ``bench/quality.py``; the window and
weight below are the setting chosen there. It still lowers one measured
figure and deepens a BM25-only query's pool, so it is opt-in
(``MemoryIndex(context=True)``), not a default.

The signal only re-ranks: a candidate's lexical score becomes its own BM25
plus ``weight`` x the best BM25 among its neighbours within ``window``
places in the same file. It never admits an item on its own. With an
encoder it is a signal of its own in the fused score (:func:`fuse_context`):
added inside BM25's share instead, a small cosine difference could put a
neighbour first.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from wikimem.index.corpus.wiki import WikiCorpus
from wikimem.ranking.fusion import mean_sd

__all__ = ["CONTEXT_SHARE", "CONTEXT_WEIGHT", "CONTEXT_WINDOW", "add_context", "fuse_context"]

#: Neighbours counted on each side of an item, in its file's order.
CONTEXT_WINDOW = 2
#: Share of the best neighbour's BM25 added to an item's own.
CONTEXT_WEIGHT = 0.5
#: With embeddings: file context's share of the fused score, in standard deviations of its own values.
CONTEXT_SHARE = 0.2


def add_context(
    corpus: WikiCorpus,
    terms: Counter[str],
    cands: dict[tuple[Any, ...], Any],
    window: int = CONTEXT_WINDOW,
    weight: float = CONTEXT_WEIGHT,
) -> None:
    """Set each matching wiki candidate's ``context`` (and ``context_via``) and add it to its ``score``."""
    if window <= 0 or weight <= 0.0:
        return
    wiki = [c for c in cands.values() if c.doc is not None and c.bm25 > 0]
    near = {c.doc: corpus.neighbours(c.doc, window) for c in wiki}
    known = {c.doc: c.bm25 for c in wiki}
    need = sorted({d for docs in near.values() for d in docs} - known.keys())
    known.update(corpus.index.score_docs(terms, need))
    for c in wiki:
        best = max(near[c.doc], key=lambda d: (known.get(d, 0.0), -d), default=None)
        if best is None or known.get(best, 0.0) <= 0.0:
            continue
        c.context = weight * known[best]
        item = corpus.items[best]
        c.context_via = None if item is None else f"{item.file}:{item.name}"
        c.score += c.context


def fuse_context(values: list[float], share: float = CONTEXT_SHARE) -> float:
    """What one unit of context is worth in a fused score: ``share`` / the sd of the candidates' context.

    Why a signal of its own: added to BM25 before fusion, a strong hit's
    context lifts its neighbours to within a fraction of its own BM25, and
    the fusion's standardisation then lets a small cosine difference put a
    neighbour first (a lower hit@1 in ``bench/quality.py``). Standardised
    on its own, like BM25 and cosine, context adds evidence without
    shrinking BM25's margins. ``values`` are the context of every candidate
    with a BM25 match (zeros included); 0.0 when they are all equal.
    """
    if len(values) < 2:
        return 0.0
    sd = mean_sd(values)[1]
    return share / sd if sd > 0 else 0.0
