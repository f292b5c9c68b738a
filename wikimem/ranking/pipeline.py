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
   words is answered by the window itself, newest first. With
   ``search_diary`` the window's entries are read from the diary's own
   corpus (:mod:`wikimem.freshness.diary_index`), and without a window the
   whole diary is searched.
2. **candidates** -- BM25's top ``pool`` wiki items; the diary's: every
   window entry scored with the wiki's statistics (the reference's rule),
   or with ``search_diary`` the diary's top ``pool`` (or a window's
   entries) scored with the diary's own statistics; and (with an embedder)
   the ``pool`` nearest vectors, the diary's too with ``search_diary``, fused (:mod:`wikimem.ranking.semantic`). The opt-in
   file context (:mod:`~wikimem.ranking.context`) then adds to a
   candidate's lexical score, from BM25 and never admitting an item
   without a match of its own.
   Function words (:func:`wikimem.index.terms.analyzer.is_function_word`: English and Chinese)
   weigh :data:`FUNCTION_WEIGHT` of a word and a candidate matching only
   them has no BM25 match (:func:`gated_search`), on every path.
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

from wikimem.index.terms.analyzer import CJK_FUNCTION_CHARS, QueryTerms, is_function_word
from wikimem.index.scoring.bm25 import InvertedIndex
from wikimem.index.corpus.wiki import WikiCorpus
from wikimem.index.corpus.diary import DiaryCorpus, entry_of
from wikimem.ranking.fusion import DEFAULT_FUSION, Fusion
from wikimem.ranking.where import Where
from wikimem.models import DiaryItem, RecallItem, RetrievalResult, RetrievedItem, TimeRange, as_recall_item
from wikimem.disk.days import resolve_today
from wikimem.ranking.context import add_context
from wikimem.ranking.rows import link_targets, matcher, row_of
from wikimem.ranking.semantic import Candidate, Semantic
from wikimem.timeparse import TimeMatch, match_time_range, may_name_a_time
from wikimem.tokenize import est_tokens

__all__ = ["Knobs", "Trace", "admitted", "knobs_of", "run"]

#: A function word's weight in the scored query (a content word's is 1 per occurrence), when the query
#: has another word: function words still count (as a tie-breaker among items that match the content
#: words) but can neither make a hit alone (:func:`gated_search`) nor outvote a content word. Chosen by
#: measurement on English conversation (bench/quality.py; the weights tried are in
#: docs/adr/0023-whole-diary-recall.md); must stay above 0 (the index skips a term of weight 0).
FUNCTION_WEIGHT = 0.25

#: Words that ask what took place rather than name a subject ("what happened last week?", "what went on",
#: "anything yesterday?"): beside function words, a question of them and time words is answered by its window.
EVENT_WORDS = frozenset({"happen", "happens", "happened", "happening", "go", "goes", "going", "went", "gone",
                         "anything", "something"})
#: The Chinese counterparts, by character (发生 "happen", 事/事情/情况 "what's up", 去 "go"): a Chinese word
#: or bigram of these and function characters only asks what took place (发生了什么, 有什么事, 去哪了).
CJK_EVENT_CHARS = frozenset("发生事情况去") | CJK_FUNCTION_CHARS

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
    #: Search the whole diary (its own index and statistics), not only a time window's entries.
    search_diary: bool = False
    #: Which stored items may be handed back (:mod:`wikimem.ranking.where`); ``None``: all.
    where: Where | None = None


@lru_cache(maxsize=1024, typed=True)  # typed: 1 and 1.0 (or True) stay apart
def _shared_knobs(*values: Any) -> Knobs:
    return Knobs(*values)


def knobs_of(*values: Any) -> Knobs:
    """``Knobs(*values)`` (positional, in field order), one shared object per distinct set of values.

    Making a frozen dataclass sets each field through ``object.__setattr__``,
    a visible share of a warm query, and an app asks with the same knobs
    again and again; frozen makes sharing safe. Values that cannot be hashed (a ``time_range`` given as a list)
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
    #: The scored terms that are function words (:attr:`QueryTerms.function`): never an item's only match.
    function: frozenset[str] = frozenset()
    #: The query text that was scored (time words removed when they set the window).
    scored_text: str = ""
    diary: list[DiaryItem] = field(default_factory=list)
    #: With ``search_diary``: the diary's corpus, and each of ``diary``'s docs in it.
    diary_corpus: DiaryCorpus | None = None
    diary_docs: list[int] = field(default_factory=list)
    #: With ``search_diary``: the whole diary is searched (no window, or a window parsed from the query
    #: that held no entry even widened: it filters nothing, and its words stay search words).
    whole_diary: bool = False
    #: A question of function words and time words only: the window's entries are the answer (no wiki hit).
    window_only: bool = False
    #: ``knobs.where`` as a test of one item (``diary``: a diary entry's), or ``None`` without a filter.
    keep: Callable[[RecallItem, bool], bool] | None = None
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
    diary_corpus: Callable[[], DiaryCorpus] | None = None,
    tags_of: Callable[[str], tuple[str, ...]] | None = None,
) -> Trace:
    """Run every stage for ``knobs`` over ``corpus`` (the caller holds the index lock).

    ``analyze`` turns the scored query text into its terms (tokenizer and
    analyzer, :mod:`wikimem.index.terms.analyzer`); documents' terms come from the corpus.
    ``diary_corpus`` gives the diary's own corpus (built on first use), read
    only with ``knobs.search_diary``; ``tags_of(file)`` a RecallFile's tags,
    read only for a ``knobs.where`` that names tags (once per file a run).
    """
    result = RetrievalResult(budget_tokens=knobs.budget_tokens)
    trace = Trace(result)
    where = knobs.where
    if where:
        tags = lru_cache(maxsize=None)(tags_of or (lambda file: ()))
        trace.keep = lambda item, diary: where.keeps(item, diary, tags)
    if knobs.search_diary and diary_corpus is not None:
        trace.diary_corpus = dcorpus = diary_corpus()
        diary_window = _own_window(dcorpus, trace)
    match = _time_gate(knobs, diary_window, trace)
    trace.scored_text = knobs.query
    trace.whole_diary = trace.diary_corpus is not None and (
        result.time_range is None or (result.time_range_source == "parsed" and not trace.diary))
    if match is not None and trace.diary:
        rest = match.strip(knobs.query)
        result.time_words = match.words(knobs.query)
        trace.scored_text = rest
    query = analyze(trace.scored_text)
    result.query_tokens, result.stop_words, result.stemmed = query.terms, query.stop_words, query.stemmed
    result.typed_terms, trace.function = query.typed, query.function
    if corpus.analyzer is not None:
        result.analyzer = corpus.analyzer.describe()
    trace.terms = Counter(query.terms)
    # "what did I do two weeks ago": the time words chose the window and nothing else names a subject,
    # so the answer is the window itself -- its entries ranked by those words, the rest newest first.
    trace.window_only = bool(knobs.search_diary and match is not None and trace.diary
                             and _only_function_words(query))
    if trace.function and FUNCTION_WEIGHT != 1.0:
        for term in trace.function:
            trace.terms[term] *= FUNCTION_WEIGHT  # type: ignore[assignment]  # BM25 is linear in a term's weight
    if trace.terms:
        _rank(knobs, corpus, None if trace.window_only else semantic, trace)
    else:
        trace.ordered = [Candidate(("d", i), as_recall_item(e), None) for i, e in reversed(list(enumerate(trace.diary)))]
        if trace.keep is not None:
            trace.ordered = [cand for cand in trace.ordered if trace.keep(cand.item, True)]
    trace.ranked = trace.ordered[: max(knobs.limit, 0)]
    trace.rows = _expand(corpus, knobs.expand_links, trace)
    _cut(trace, knobs.budget_tokens, knobs.explain)
    return trace


def _only_function_words(query: QueryTerms) -> bool:
    """Whether every word the query scores is a function word or asks what took place ("what did I do", 发生了什么)."""
    return bool(query.typed) and all(is_function_word(word) or word in EVENT_WORDS or set(word) <= CJK_EVENT_CHARS
                                     for word in query.typed.values())


def _own_window(dcorpus: DiaryCorpus, trace: Trace) -> Callable[[str, str], list[DiaryItem]]:
    """A window read from the diary's corpus (no file IO), noting each entry's doc for its scores."""
    def window(start: str, end: str) -> list[DiaryItem]:
        rows = dcorpus.window(start, end)
        trace.diary_docs = [doc for doc, _ in rows]
        return [entry for _, entry in rows]

    return window


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
    deep = semantic is not None or knobs.context
    trace.pool = pool = max(limit * FUSION_POOL, 50) if deep else limit
    cands = trace.cands
    items = corpus.items
    keep = trace.keep
    wiki_keep = _doc_test(items.__getitem__, keep, False) if keep is not None else None
    for doc, score in [] if trace.window_only else gated_search(index, terms, trace.function, pool, wiki_keep):
        item = items[doc]
        assert item is not None
        key = ("w", item.file, item.name)
        cands[key] = Candidate(key, item, doc, score, score)
    _diary_candidates(corpus, trace, pool, semantic)
    if knobs.context:
        add_context(corpus, terms, cands)
    floor = None
    if semantic is not None:
        result.embedding_used = semantic.fuse(
            corpus, trace.scored_text, terms, cands, trace.diary, pool, knobs.fusion, knobs.fusion_weight,
            (lambda extra: add_context(corpus, terms, extra)) if knobs.context else None,
            trace.function,
            (trace.diary_corpus, trace.diary_docs) if trace.diary_corpus is not None else None,
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
    if trace.window_only:  # every entry of the window answers; those the words do not rank follow, newest first
        kept += trace.floored
        trace.floored = []
    result.below_floor = len(trace.floored)
    if keep is not None:  # the searches kept only what passes; vectors and a window's entries are judged here
        kept = [cand for cand in kept if keep(cand.item, cand.key[0] == "d")]
    # Ties: wiki before diary, wiki in index order, diary newest first.
    trace.ordered = sorted(
        kept,
        key=lambda c: (-c.score, 0, c.doc) if c.doc is not None else (-c.score, 1, -c.key[1]),
    )


def _doc_test(item_of: Callable[[int], RecallItem | None], keep: Callable[[RecallItem, bool], bool],
              diary: bool) -> Callable[[int], bool]:
    """A recall filter's test of an item, as a test of its doc in a corpus (a removed doc never passes)."""

    def test(doc: int) -> bool:
        item = item_of(doc)
        return item is not None and keep(item, diary)

    return test


def gated_search(
    index: InvertedIndex, terms: Counter[str], function: frozenset[str], k: int,
    keep: Callable[[int], bool] | None = None,
) -> list[tuple[int, float]]:
    """``index.search(terms, k)`` without the docs that match only function words (or that ``keep`` refuses).

    Function words still score (BM25's idf already makes them weigh
    little, and dropping them measured worse); they only cannot make a hit
    on their own. ``keep`` is a recall filter's test of a doc
    (:mod:`wikimem.ranking.where`). The search is asked for more until
    ``k`` docs pass or the matching docs run out, so the top ``k`` is exact.
    """
    found = index.search(terms, k)
    if (not function and keep is None) or not found:
        return found
    content = set(terms) - function
    want = k
    while True:
        passed = index.matched_docs(content, [doc for doc, _ in found]) if function else [True] * len(found)
        kept = [hit for hit, ok in zip(found, passed) if ok and (keep is None or keep(hit[0]))]
        if len(kept) >= k or len(found) < want:
            return kept[:k]
        want *= 4
        found = index.search(terms, want)


def _diary_candidates(corpus: WikiCorpus, trace: Trace, pool: int, semantic: Semantic | None) -> None:
    """The diary's candidates: a window's entries, or (``search_diary`` without one) the diary's top ``pool``.

    With the diary's corpus every entry is scored with the diary's own
    statistics; without it (the reference behaviour) a window entry is
    scored with the wiki's (``score_external``), so opening a window never
    builds a diary index.
    """
    terms, cands, dcorpus = trace.terms, trace.cands, trace.diary_corpus
    if dcorpus is None:
        content = set(terms) - trace.function
        for i, entry in enumerate(trace.diary):
            item = as_recall_item(entry)
            tokens = corpus.tokens(item, remember=True)  # the window's entries: asked again by the next query
            score = corpus.index.score_external(terms, tokens) if content.intersection(tokens) else 0.0
            cands[("d", i)] = Candidate(("d", i), item, None, score, score)
        return
    if trace.whole_diary:  # its best ``pool`` (and nearest, with vectors), in diary order
        keep = trace.keep
        diary_keep = _doc_test(dcorpus.items.__getitem__, keep, True) if keep is not None else None
        found = gated_search(dcorpus.index, terms, trace.function, pool, diary_keep)
        if semantic is not None:
            have = {doc for doc, _ in found}
            near = [doc for doc, _ in semantic.diary_nearest(dcorpus, trace.scored_text, pool) if doc not in have]
            if near:
                scores = dcorpus.index.score_docs(terms, near, weak=trace.function)
                found += [(doc, scores[doc]) for doc in near]
        found = sorted(found)
        trace.diary_docs = [doc for doc, _ in found]
        trace.diary = [entry_of(dcorpus.items[doc]) for doc, _ in found]  # type: ignore[arg-type]
        scores = dict(found)
    else:
        scores = dcorpus.index.score_docs(terms, trace.diary_docs, weak=trace.function)
    for i, (entry, doc) in enumerate(zip(trace.diary, trace.diary_docs)):
        score = scores[doc]
        cands[("d", i)] = Candidate(("d", i), as_recall_item(entry), None, score, score)


def _expand(corpus: WikiCorpus, expand_links: bool, trace: Trace) -> list[RetrievedItem]:
    ranked, result = trace.ranked, trace.result
    rank_of = {cand.key: (rank, cand) for rank, cand in enumerate(ranked, 1)}
    seen: set[Key] = set()
    rows: list[RetrievedItem] = []
    matched = matcher(corpus, trace.terms, ranked)
    diary = trace.diary
    for rank, cand in enumerate(ranked, 1):
        if cand.key in seen:
            continue  # already placed as an earlier hit's link target
        seen.add(cand.key)
        rows.append(row_of(cand, rank, matched, diary))
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
                row = row_of(target, target_rank, matched, diary)
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
