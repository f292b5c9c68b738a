"""A ranked hit as a result row: its matched terms, token estimate, links -- the per-hit work of a query.

Why apart from :mod:`wikimem.ranking.pipeline`: the pipeline decides what
is ranked where; this turns each decided hit into the
:class:`~wikimem.models.RetrievedItem` a caller reads, and that is where a
warm query's per-hit Python work lies (a cost paid once per row, for
every row of every query). Everything here is a pure function of the
hit, the corpus and the query; what is a pure function of an item's text
alone (its links) is remembered per text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import fields
from functools import lru_cache

from wikimem.disk.links import find_links
from wikimem.disk.names import normalize_item_name
from wikimem.index.corpus.wiki import WikiCorpus
from wikimem.models import DiaryItem, RetrievedItem
from wikimem.ranking.semantic import Candidate
from wikimem.tokenize import est_tokens

__all__ = ["link_targets", "matcher", "row_of"]


@lru_cache(maxsize=4096)
def link_targets(content: str, here: str | None = None) -> tuple[tuple[str, str, str], ...]:
    """Each item link of ``content``, in order, in either spelling: its file, normalized name and spelling.

    ``here`` is the RecallFile the content belongs to (for ``[[#name]]``).
    Links to a whole RecallFile (``[[file]]``) are not expanded: a file is
    not an item, and pulling all of one into a budget would crowd out the
    hits. A pure function of its arguments, remembered: a warm query shows
    the same hits again.
    """
    return tuple((ref.file, normalize_item_name(ref.name), ref.render())
                 for ref in find_links(content, here=here) if ref.name is not None)


def matcher(corpus: WikiCorpus, terms: Counter[str], ranked: list[Candidate]) -> Callable[[Candidate], list[str]]:
    """The scored query terms a candidate contains (its ``matched_terms``), sorted.

    Every row is a ranked hit, so the wiki hits' terms are looked up
    together, each term's postings once (:meth:`InvertedIndex.matched_docs`).
    A one-term query needs no lookup at all: a wiki hit's BM25 is positive
    exactly when it holds the term (idf and the tf part are both positive).
    """
    if len(terms) == 1:
        only = list(terms)
        found: dict[int, list[str]] = {}
    else:
        docs = [cand.doc for cand in ranked if cand.doc is not None]
        found = dict(zip(docs, corpus.index.matched_docs(terms, docs)))

    def matched(cand: Candidate) -> list[str]:
        if cand.doc is None:
            return sorted(set(terms) & set(corpus.tokens(cand.item, remember=True)))
        if len(terms) == 1:
            return list(only) if cand.bm25 > 0 else []
        return list(found[cand.doc])

    return matched


#: RetrievedItem's fields in order: rows are made positionally (a keyword call per row costs a
#: warm query more than positional arguments); checked at import, so a reordered model fails loudly.
_ROW_FIELDS = (
    "item", "source", "score", "bm25_score", "cos_score", "via", "context_score", "context_via",
    "matched_terms", "tokens_est", "rank", "entry_id",
)
if tuple(f.name for f in fields(RetrievedItem)) != _ROW_FIELDS:  # pragma: no cover - a model edit
    raise ImportError("RetrievedItem's fields moved: update wikimem.ranking.rows._ROW_FIELDS and row_of")


def row_of(cand: Candidate, rank: int, matched: Callable[[Candidate], list[str]], diary: list[DiaryItem]) -> RetrievedItem:
    """A ranked hit as its result row (``diary``: the window's entries)."""
    item = cand.item
    return RetrievedItem(
        item,
        "hit",
        cand.score,
        cand.bm25,
        cand.cos,
        None,
        cand.context,
        cand.context_via,
        matched(cand),
        est_tokens(item.content),
        rank,
        # A diary row's identity: its file and name (day, HH:MM) are shared by a minute's entries.
        diary[cand.key[1]].entry_id if cand.key[0] == "d" else None,
    )
