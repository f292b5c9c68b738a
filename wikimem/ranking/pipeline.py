"""The retrieval pipeline, one stage after another, every decision kept.

Design constraint: what :meth:`MemoryIndex.retrieve` returns and what
:meth:`MemoryIndex.why_not` says about an item must never disagree, so there
is exactly one pipeline. :func:`run` executes it and returns a
:class:`Trace` -- the candidates, what the relevance floor removed, the full
ranking before the limit, the rows before the budget -- from which
``retrieve`` takes the result and ``why_not`` reads an item's fate. The
stages, in order:

1. **time gate** -- an explicit ``time_range`` or one parsed from the query
   admits that window's diary entries as candidates (widened one day on
   each side, once, when empty). When the window came from the query and
   holds entries, the time words that named it are removed from the scored
   query: they chose the window and do not also vote (``last week sleep``
   must not rank items containing "week"). An empty window filters nothing,
   so its words stay ordinary search words. A query left with no search
   words is answered by the window itself, newest first.
2. **candidates** -- BM25's top ``pool`` wiki items, every window entry
   scored with the wiki's statistics, and (with an embedder) the ``pool``
   nearest vectors, fused (:mod:`wikimem.ranking.semantic`). Opt-in re-ranking signals then add to a
   candidate's lexical score, each from BM25 and never admitting an item
   without a match of its own: query expansion from the top hits
   (:mod:`~wikimem.ranking.feedback`, which may also bring in further
   matching items), file context (:mod:`~wikimem.ranking.context`) and
   link context (:mod:`~wikimem.ranking.link_context`).
3. **relevance floor** -- a candidate without a BM25 match stays only with
   a positive cosine at or above ``cos_floor``. Without an embedder that
   leaves exactly the candidates matching a query token: a window entry
   matching nothing is not a hit.
4. **limit** -- the best ``limit`` by score; ties go wiki first (index
   order), then diary newest first.
5. **links** -- each hit's one-hop link targets right after it; an item is
   placed once, at its first place, keeping its own rank and scores.
6. **budget** -- a prefix cut by ``est_tokens``; the first row survives.

Pure with respect to the files: the caller passes the corpus (under its
lock) and a way to read a diary window.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from wikimem.index.analyzer import QueryTerms
from wikimem.index.corpus import WikiCorpus
from wikimem.ranking.fusion import DEFAULT_FUSION, Fusion
from wikimem.models import DiaryItem, RetrievalResult, RetrievedItem, TimeRange, as_recall_item
from wikimem.disk.days import resolve_today
from wikimem.ranking.context import add_context
from wikimem.ranking.feedback import add_feedback
from wikimem.ranking.link_context import add_link_context
from wikimem.ranking.rows import link_targets, matcher, row_of
from wikimem.ranking.semantic import Candidate, Semantic
from wikimem.timeparse import TimeMatch, match_time_range, may_name_a_time
from wikimem.tokenize import est_tokens

__all__ = ["Knobs", "Trace", "admitted", "knobs_of", "run"]

#: How many candidates each signal contributes before fusion (x limit, at least 50).
FUSION_POOL = 5

Key = tuple[Any, ...]


@dataclass(frozen=True)
class Knobs:
    """One query's settings: the arguments of ``retrieve`` plus the index's fusion knobs."""

    query: str
    limit: int = 10
    budget_tokens: int | None = None
    expand_links: bool = True
    explain: bool = False
    time_range: TimeRange | None = None
    tz: Any = None
    today: dt.date | None = None
    fusion: str | Fusion = DEFAULT_FUSION
    fusion_weight: float = 0.5
    cos_floor: float | None = None
    #: File context (:mod:`wikimem.ranking.context`): neighbours' BM25 re-ranks the pool.
    context: bool = False
    #: Query expansion from the top hits (:mod:`wikimem.ranking.feedback`).
    feedback: bool = False
    #: Link context (:mod:`wikimem.ranking.link_context`): linked candidates' BM25 re-ranks the pool.
    link_context: bool = False


@lru_cache(maxsize=1024, typed=True)  # typed: 1 and 1.0 (or True) stay apart
def _shared_knobs(*values: Any) -> Knobs:
    return Knobs(*values)


def knobs_of(*values: Any) -> Knobs:
    """``Knobs(*values)`` (positional, in field order), one shared object per distinct set of values.

    A frozen dataclass of fifteen fields costs ~10 us to make (each field is
    set through ``object.__setattr__``), a few percent of a warm query, and
    an app asks with the same knobs again and again; frozen makes sharing
    safe. Values that cannot be hashed (a ``time_range`` given as a list)
    make a fresh one.
    """
    try:
        return _shared_knobs(*values)
    except TypeError:
        return Knobs(*values)


@dataclass
class Trace:
    """Everything one run decided, stage by stage (``why_not`` reads it)."""

    result: RetrievalResult
    terms: Counter[str] = field(default_factory=Counter)
    #: The query text that was scored (time words removed when they set the window).
    scored_text: str = ""
    diary: list[DiaryItem] = field(default_factory=list)
    #: Candidates per signal before fusion (BM25's top ``pool``, the ``pool`` nearest vectors).
    pool: int = 0
    cands: dict[Key, Candidate] = field(default_factory=dict)
    #: Candidates the relevance floor removed (no BM25 match, cosine too low or absent).
    floored: list[Candidate] = field(default_factory=list)
    #: Admitted candidates, best first, before the limit.
    ordered: list[Candidate] = field(default_factory=list)
    #: The top ``limit`` of ``ordered``: the ranked hits.
    ranked: list[Candidate] = field(default_factory=list)
    #: Rows after link expansion, before the budget.
    rows: list[RetrievedItem] = field(default_factory=list)
    #: Rows cut by the budget (kept even without ``explain``).
    cut: list[RetrievedItem] = field(default_factory=list)


def admitted(cand: Candidate, floor: float | None) -> bool:
    """The relevance floor: a BM25 match, or a positive cosine at or above ``floor``."""
    if cand.bm25 > 0:
        return True
    if cand.cos is None or cand.cos <= 0:
        return False
    return floor is None or cand.cos >= floor


def run(
    knobs: Knobs,
    corpus: WikiCorpus,
    analyze: Callable[[str], QueryTerms],
    diary_window: Callable[[str, str], list[DiaryItem]],
    semantic: Semantic | None,
) -> Trace:
    """Run every stage for ``knobs`` over ``corpus`` (the caller holds the index lock).

    ``analyze`` turns the scored query text into its terms (tokenizer and
    analyzer, :mod:`wikimem.index.analyzer`); documents' terms come from the corpus.
    """
    result = RetrievalResult(budget_tokens=knobs.budget_tokens)
    trace = Trace(result)
    match = _time_gate(knobs, diary_window, trace)
    trace.scored_text = knobs.query
    if match is not None and trace.diary:
        rest = match.strip(knobs.query)
        result.time_words = match.words(knobs.query)
        trace.scored_text = rest
    query = analyze(trace.scored_text)
    result.query_tokens, result.stop_words, result.stemmed = query.terms, query.stop_words, query.stemmed
    if corpus.analyzer is not None:
        result.analyzer = corpus.analyzer.describe()
    trace.terms = Counter(query.terms)
    if trace.terms:
        _rank(knobs, corpus, semantic, trace)
    else:
        trace.ordered = [Candidate(("d", i), as_recall_item(e), None) for i, e in reversed(list(enumerate(trace.diary)))]
    trace.ranked = trace.ordered[: max(knobs.limit, 0)]
    trace.rows = _expand(corpus, knobs.expand_links, trace)
    _cut(trace, knobs.budget_tokens, knobs.explain)
    return trace


def _time_gate(
    knobs: Knobs, diary_window: Callable[[str, str], list[DiaryItem]], trace: Trace
) -> TimeMatch | None:
    """Fill ``trace.diary`` with the window's entries; the parsed match, if the query named one."""
    result = trace.result
    match = None
    if knobs.time_range is not None:
        window, result.time_range_source = knobs.time_range, "explicit"
    else:
        match = None
        if knobs.query and may_name_a_time(knobs.query):  # most queries name no time: no clock read
            match = _time_match(knobs.query, resolve_today(knobs.today, knobs.tz))
        if match is None:
            return None
        window, result.time_range_source = match.time_range, "parsed"
    start, end = sorted(window)
    entries = diary_window(start, end)
    if not entries:
        start, end = _shift(start, -1), _shift(end, 1)
        entries = diary_window(start, end)
        result.time_range_widened = True
    result.time_range = (start, end)
    trace.diary = entries
    return match


@lru_cache(maxsize=1024)
def _time_match(query: str, today: dt.date) -> TimeMatch | None:
    """:func:`match_time_range` of ``query`` on ``today``, remembered.

    A pure function of the two (the zone only picks ``today``), and its
    two dozen patterns cost as much as the rest of a query's own work; an
    app asks the same text again and again (debounced keystrokes, a
    repeated search, ``why_not`` after ``retrieve``). ``TimeMatch`` is
    frozen, so sharing one is safe.
    """
    return match_time_range(query, today=today)


def _rank(knobs: Knobs, corpus: WikiCorpus, semantic: Semantic | None, trace: Trace) -> None:
    limit = knobs.limit
    if limit <= 0:
        return
    index, terms, result = corpus.index, trace.terms, trace.result
    # With a re-ranking signal, BM25's pool is as deep as with embeddings: the signal re-ranks it.
    deep = semantic is not None or knobs.context or knobs.feedback or knobs.link_context
    trace.pool = pool = max(limit * FUSION_POOL, 50) if deep else limit
    cands = trace.cands
    items = corpus.items
    for doc, score in index.search(terms, pool):
        item = items[doc]
        assert item is not None
        key = ("w", item.file, item.name)
        cands[key] = Candidate(key, item, doc, score, score)
    for i, entry in enumerate(trace.diary):
        item = as_recall_item(entry)
        score = index.score_external(terms, corpus.tokens(item))
        cands[("d", i)] = Candidate(("d", i), item, None, score, score)
    if knobs.feedback:
        def make(doc: int, bm25: float) -> Candidate:
            item = corpus.items[doc]
            assert item is not None
            return Candidate(("w", item.file, item.name), item, doc, bm25, bm25)

        diary_terms = {c.key: corpus.tokens(c.item) for c in cands.values() if c.doc is None}
        result.feedback_terms = add_feedback(corpus, terms, cands, pool, make, diary_terms)
    if knobs.context:
        add_context(corpus, terms, cands)
    if knobs.link_context:
        add_link_context(corpus, cands)
    floor = None
    if semantic is not None:
        result.embedding_used = semantic.fuse(
            corpus, trace.scored_text, terms, cands, trace.diary, pool, knobs.fusion, knobs.fusion_weight,
            (lambda extra: add_context(corpus, terms, extra)) if knobs.context else None,
        )
        if result.embedding_used:
            floor = knobs.cos_floor
    if semantic is None:  # no cosine is set without fusion: admitted() is "a BM25 match"
        kept = [cand for cand in cands.values() if cand.bm25 > 0]
        trace.floored.extend(cand for cand in cands.values() if cand.bm25 <= 0)
    else:
        kept = []
        for cand in cands.values():
            (kept if admitted(cand, floor) else trace.floored).append(cand)
    result.below_floor = len(trace.floored)
    # Ties: wiki before diary, wiki in index order, diary newest first.
    trace.ordered = sorted(
        kept,
        key=lambda c: (-c.score, 0, c.doc) if c.doc is not None else (-c.score, 1, -c.key[1]),
    )


def _expand(corpus: WikiCorpus, expand_links: bool, trace: Trace) -> list[RetrievedItem]:
    ranked, result = trace.ranked, trace.result
    rank_of = {cand.key: (rank, cand) for rank, cand in enumerate(ranked, 1)}
    seen: set[Key] = set()
    rows: list[RetrievedItem] = []
    matched = matcher(corpus, trace.terms, ranked)
    added, diary = result.feedback_terms, trace.diary
    for rank, cand in enumerate(ranked, 1):
        if cand.key in seen:
            continue  # already placed as an earlier hit's link target
        seen.add(cand.key)
        rows.append(row_of(corpus, cand, rank, matched, added, diary))
        # Every link is spelled with "[[": most items have none, and need no parse for that.
        if not expand_links or "[[" not in cand.item.content:
            continue
        for file, name, rendered in link_targets(cand.item.content, cand.item.file if cand.key[0] == "w" else None):
            doc = corpus.doc(file, name)
            if doc is None:
                if rendered not in result.unresolved_links:
                    result.unresolved_links.append(rendered)
                continue
            key = ("w", file, name)
            if key in seen:
                continue
            seen.add(key)
            if key in rank_of:  # a later hit: placed here, with its own rank and scores
                target_rank, target = rank_of[key]
                row = row_of(corpus, target, target_rank, matched, added, diary)
                row.source, row.via = "link", cand.item.name
            else:
                item = corpus.items[doc]
                assert item is not None
                row = RetrievedItem(item, "link", 0.0, via=cand.item.name, tokens_est=est_tokens(item.content))
            rows.append(row)
    return rows


def _cut(trace: Trace, budget: int | None, explain: bool) -> None:
    """Prefix cut by ``tokens_est``; the first row always survives."""
    result, rows = trace.result, trace.rows
    used = 0
    for i, row in enumerate(rows):
        if budget is not None and i > 0 and used + row.tokens_est > budget:
            trace.cut = rows[i:]
            if explain:
                result.dropped = list(trace.cut)
            break
        used += row.tokens_est
        result.items.append(row)
    result.budget_used = used


def _shift(day: str, days: int) -> str:
    return (dt.date.fromisoformat(day) + dt.timedelta(days=days)).isoformat()
