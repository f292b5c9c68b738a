"""Link context: an item linked to or from a strong hit ranks higher, if it matches the query itself.

Why: a ``[[file:name]]`` link is the writer saying two items belong
together (a decision and its reason, a person and the project they run).
When one of them matches a query strongly, the other is more likely than
an unlinked item of the same BM25 to be what the query is about -- the
same reasoning as file context (:mod:`wikimem.ranking.context`), with the
writer's links instead of the file's order as the notion of "next to".

The signal only re-ranks, and only within the candidates: each wiki
candidate with a BM25 match gets ``weight`` x the best BM25 among the
candidates it links to or that link to it (both directions, one hop; a
link to itself counts for nothing). An item without a match of its own
gets nothing, so it is never admitted by its links -- bringing in linked
items unconditionally is what the one-hop link expansion of the result
already does, as ``"link"`` rows. Only the candidates' own links are read
(no backlink index to keep fresh), which is why a backlink counts only when
its source is itself a candidate; the candidate pool is as deep as with
embeddings (50 at limit 10), as for file context.

Not measured: neither quality set (``bench/quality.py``) has a single link
-- a chat's turns and an article's sentences do not link to each other --
so no figure exists for or against it, and it stays opt-in
(``MemoryIndex(link_context=True)``). The weight is file context's.
"""

from __future__ import annotations

from typing import Any

from wikimem.disk.names import normalize_item_name
from wikimem.index.corpus import WikiCorpus

__all__ = ["LINK_WEIGHT", "add_link_context"]

#: Share of the best linked candidate's BM25 added to an item's own.
LINK_WEIGHT = 0.5


def add_link_context(corpus: WikiCorpus, cands: dict[tuple[Any, ...], Any], weight: float = LINK_WEIGHT) -> None:
    """Set each matching wiki candidate's ``link`` (and ``link_via``) and add it to its ``score``."""
    if weight <= 0.0:
        return
    wiki = {c.doc: c for c in cands.values() if c.doc is not None and c.bm25 > 0}
    partners: dict[int, set[int]] = {doc: set() for doc in wiki}
    for doc, cand in wiki.items():
        for link in cand.item.links:
            other = corpus.doc(link.file, normalize_item_name(link.name))
            if other is not None and other != doc and other in wiki:
                partners[doc].add(other)
                partners[other].add(doc)
    for doc, linked in partners.items():
        if not linked:
            continue
        best = max(linked, key=lambda d: (wiki[d].bm25, -d))
        cand, via = wiki[doc], wiki[best]
        cand.link = weight * via.bm25
        cand.link_via = f"{via.item.file}:{via.item.name}"
        cand.score += cand.link
