"""Query expansion from the top hits (pseudo-relevance feedback, RM3-style): a query learns its topic's words.

Why: a question and the item that answers it often share only part of
their words, while the best first-pass hits -- usually about the right
topic -- share more words with that item than the question does. Adding
the top hits' most characteristic terms to the query, with a small weight,
and scoring again lets the answer's own vocabulary count (the classic
relevance-model expansion, RM3, without a trained model or an LLM).

What is added. The feedback documents are BM25's top ``docs`` wiki hits for
the query as typed. A term of theirs (one the query lacks) is weighted by
``sum over feedback docs of (doc's BM25 / best BM25) x the term's own BM25
contribution in that doc`` -- its idf and saturated tf there, so a word
that is everywhere counts for almost nothing without a stop list, and a
word shared by several top hits beats one hit's oddity. The best ``terms``
of them join the query, each at ``weight x (its weight / the best
weight)``, so the strongest added term counts ``weight`` of one typed term.

What it changes. Only the ranking: a candidate's ``feedback`` is its BM25
under the expanded query minus its BM25 under the typed one, added to its
lexical score (before fusion, like file context). The expanded query also
searches for candidates, but an item that matches *only* added terms is
not admitted -- the relevance floor still asks for a typed word (or a
cosine), so an answer never consists of what the system guessed alone.
The typed query's BM25 stays the item's ``bm25_score`` and the added
terms' part is its ``feedback_score`` (BM25 is a sum over query terms, so
the two add up to the expanded query's BM25); explain and ``why_not`` show
both, and which added terms the item matched.

Cost: one more top-k search over the expanded query and one exact score
of each feedback document per candidate term (``score_docs``), plus the
first use of the added terms' postings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from wikimem.index.corpus import WikiCorpus

__all__ = ["FEEDBACK_DOCS", "FEEDBACK_TERMS", "FEEDBACK_WEIGHT", "add_feedback", "feedback_terms"]

#: First-pass hits the added terms come from.
FEEDBACK_DOCS = 5
#: Terms added to the query at most.
FEEDBACK_TERMS = 10
#: The best added term's weight, in typed query terms.
FEEDBACK_WEIGHT = 0.3


def feedback_terms(
    corpus: WikiCorpus,
    terms: Counter[str],
    top: list[tuple[int, float]],
    docs: int = FEEDBACK_DOCS,
    count: int = FEEDBACK_TERMS,
    weight: float = FEEDBACK_WEIGHT,
) -> dict[str, float]:
    """The terms to add to ``terms``, with their query weights, from the first ``docs`` of ``top`` (best first)."""
    feedback = [(doc, score) for doc, score in top[:docs] if score > 0 and corpus.items[doc] is not None]
    if not feedback or count <= 0 or weight <= 0.0:
        return {}
    best = feedback[0][1]
    share = {doc: score / best for doc, score in feedback}
    found: set[str] = set()
    for doc, _ in feedback:
        item = corpus.items[doc]
        assert item is not None
        found.update(corpus.tokens(item))
    found.difference_update(terms)
    index = corpus.index
    scored: dict[str, float] = {}
    for term in found:
        contribution = index.score_docs({term: 1}, share)
        scored[term] = sum(share[doc] * value for doc, value in contribution.items())
    ranked = sorted(((-value, term) for term, value in scored.items() if value > 0))[:count]
    if not ranked:
        return {}
    top_value = -ranked[0][0]
    return {term: weight * -value / top_value for value, term in ranked}


def add_feedback(
    corpus: WikiCorpus,
    terms: Counter[str],
    cands: dict[tuple[Any, ...], Any],
    pool: int,
    make: Any,
    external: Mapping[tuple[Any, ...], list[str]],
) -> dict[str, float]:
    """Expand ``terms`` from ``cands``' best wiki hits, add new matching candidates, set each ``feedback``.

    ``make(doc, bm25)`` builds a wiki candidate; ``external`` maps a diary
    candidate's key to its index terms (scored with the wiki's statistics).
    Returns the added terms and their weights (empty: nothing changed).
    """
    wiki = sorted((c for c in cands.values() if c.doc is not None and c.bm25 > 0), key=lambda c: (-c.bm25, c.doc))
    added = feedback_terms(corpus, terms, [(c.doc, c.bm25) for c in wiki])
    if not added:
        return {}
    index = corpus.index
    expanded = {**terms, **added}  # float weights: BM25 is linear in each query term's weight
    extra = added
    have = {c.doc for c in wiki}
    fresh = [doc for doc, _ in index.search(expanded, pool) if doc not in have and corpus.items[doc] is not None]
    for doc, bm25 in index.score_docs(terms, fresh).items():
        if bm25 > 0:  # a match of added terms only is not a hit
            cand = make(doc, bm25)
            cands[cand.key] = cand
    # BM25 is a sum over query terms: the expanded score is the typed one plus the added terms' part.
    docs = [c.doc for c in cands.values() if c.doc is not None and c.bm25 > 0]
    part = index.score_docs(extra, docs)
    for c in cands.values():
        if c.bm25 <= 0:
            continue
        c.feedback = part[c.doc] if c.doc is not None else index.score_external(extra, external[c.key])
        c.score += c.feedback
    return added
