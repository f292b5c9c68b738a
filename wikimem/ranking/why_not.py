"""Why an item was (not) recalled: one item's fate, read off a real pipeline run.

Design constraint: a diagnosis that re-implemented the ranking would drift
from it the first time either changed, and then lie. :func:`diagnose` only
*reads* the :class:`~wikimem.ranking.pipeline.Trace` of the run that
:meth:`MemoryIndex.retrieve` would have made with the same knobs (which
stage kept or removed the item; the first one that removed it is the
verdict) and adds the item's own evidence (its BM25 score and rank, its
cosine, the query tokens it has and lacks). The stages are listed in
docs/guide/retrieval.md ("Why not recalled?").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from wikimem.index.corpus.wiki import WikiCorpus
from wikimem.index.corpus.diary import DiaryCorpus, entry_name
from wikimem.disk.entry_id import EntryId, split_ordinal
from wikimem.models import DiaryItem, RecallItem, RetrievalResult, RetrievedItem, as_recall_item
from wikimem.disk.names import normalize_item_name
from wikimem.ranking.pipeline import Key, Knobs, Trace
from wikimem.ranking.semantic import Candidate, Semantic

__all__ = ["Stage", "WhyNot", "diagnose"]

Stage = Literal["missing", "time_gate", "not_candidate", "floor", "limit", "budget", "deduplicated", "recalled"]

_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass
class WhyNot:
    """The fate of one item for one query and set of knobs (see the module doc)."""

    file: str
    name: str
    stage: Stage
    #: One sentence a person can read: what removed it, or where it is.
    reason: str
    recalled: bool = False
    #: 1-based row in ``result.items`` when recalled.
    position: int | None = None
    #: 1-based place among the ranked hits (also when cut by the budget).
    rank: int | None = None
    source: Literal["hit", "link"] | None = None
    via: str | None = None
    bm25_score: float = 0.0
    #: 1-based place among all wiki items by BM25 alone (None: no match, or a diary entry without
    #: ``search_diary``; with it, a diary entry's place among the diary's entries).
    bm25_rank: int | None = None
    cos_score: float | None = None
    #: What its file neighbours added (:mod:`wikimem.ranking.context`) and the best of them.
    context_score: float = 0.0
    context_via: str | None = None
    #: The ranking score (fused with embeddings) when it was a candidate.
    score: float | None = None
    embedding_used: bool = False
    matched_terms: list[str] = field(default_factory=list)
    missing_terms: list[str] = field(default_factory=list)
    limit: int = 0
    pool: int = 0
    cos_floor: float | None = None
    #: The very retrieval the verdict is about (what ``retrieve`` returns).
    result: RetrievalResult = field(default_factory=RetrievalResult)


@dataclass
class _Target:
    item: RecallItem
    keys: list[Key]
    doc: int | None
    entry: EntryId | None = None


def _entry_id(day: str, name: str) -> EntryId:
    """The diary entry ``day`` + ``HH:MM[#n]`` names (a minute's first without ``#n``)."""
    try:
        time, ordinal = split_ordinal(name)
    except ValueError:  # a hand-written odd heading: only its first entry can be named
        time, ordinal = name, 1
    return EntryId(day, time, ordinal)


def _find(
    corpus: WikiCorpus, trace: Trace, file: str, name: str, diary_day: Callable[[str], list[DiaryItem]]
) -> _Target | None:
    if _DAY.fullmatch(file) and file not in corpus.stats:
        wanted = _entry_id(file, name)  # one entry: two of a minute share file and name
        keys: list[Key] = [("d", i) for i, e in enumerate(trace.diary) if e.entry_id == wanted]
        if keys:
            return _Target(as_recall_item(trace.diary[keys[0][1]]), keys, None, wanted)
        try:
            entries = [e for e in diary_day(file) if e.entry_id == wanted]
        except ValueError:
            return None
        return _Target(as_recall_item(entries[0]), [], None, wanted) if entries else None
    doc = corpus.doc(file, normalize_item_name(name))
    if doc is None:
        return None
    item = corpus.items[doc]
    assert item is not None
    return _Target(item, [("w", item.file, item.name)], doc)


def diagnose(
    knobs: Knobs,
    trace: Trace,
    corpus: WikiCorpus,
    semantic: Semantic | None,
    diary_day: Callable[[str], list[DiaryItem]],
    file: str,
    name: str,
) -> WhyNot:
    """Read ``file:name``'s fate off ``trace`` (run with ``knobs`` over ``corpus``)."""
    result = trace.result
    why = WhyNot(
        file, name, "missing", "", limit=knobs.limit, pool=trace.pool,
        cos_floor=result.cos_floor, embedding_used=result.embedding_used, result=result,
    )
    target = _find(corpus, trace, file, name, diary_day)
    if target is None:
        why.reason = f"there is no item {file}:{name}"
        return why
    why.file, why.name = target.item.file, target.entry.key if target.entry else target.item.name
    _evidence(why, target, trace, corpus, semantic)
    _verdict(why, target, trace)
    return why


def _evidence(
    why: WhyNot,
    target: _Target,
    trace: Trace,
    corpus: WikiCorpus,
    semantic: Semantic | None,
) -> None:
    terms = trace.terms
    present = set(corpus.tokens(target.item))  # index terms: analyzed like the query's
    why.matched_terms = sorted(set(terms) & present)
    why.missing_terms = sorted(set(terms) - present)
    cand = _candidate(target, trace)
    if cand is not None:
        why.bm25_score, why.cos_score, why.score = cand.bm25, cand.cos, cand.score
        why.context_score, why.context_via = cand.context, cand.context_via
    elif target.doc is not None and terms:
        why.bm25_score = corpus.index.score_docs(terms, [target.doc])[target.doc]
        if why.embedding_used and semantic is not None:
            why.cos_score = semantic.cosine(corpus, trace.scored_text, target.doc)
    elif target.doc is None and terms and (trace.diary_corpus is None or target.entry is None):
        why.bm25_score = corpus.index.score_external(terms, corpus.tokens(target.item))
    if target.entry is not None and trace.diary_corpus is not None and terms:
        _diary_evidence(why, target.entry, terms, trace.diary_corpus, score=cand is None)
    if target.doc is not None and why.bm25_score > 0:
        ahead = corpus.index.search(terms, len(corpus.items))
        why.bm25_rank = 1 + sum(1 for doc, score in ahead if (score, -doc) > (why.bm25_score, -target.doc))


def _diary_evidence(why: WhyNot, entry: EntryId, terms: Counter[str], dcorpus: DiaryCorpus, *, score: bool) -> None:
    """A diary entry's BM25 (``score``: not a candidate, so not known yet) and its rank among the diary's entries.

    Both with the diary's own statistics, as the whole-diary search scored it.
    """
    doc = dcorpus.doc(entry.date, entry_name(DiaryItem(entry.date, entry.time, "", ordinal=entry.ordinal)))
    if doc is None:
        return
    mine = dcorpus.index.score_docs(terms, [doc])[doc]
    if score:
        why.bm25_score = mine
    if why.bm25_score > 0:
        ahead = dcorpus.index.search(terms, len(dcorpus.items))
        why.bm25_rank = 1 + sum(1 for d, value in ahead if (value, -d) > (mine, -doc))


def _candidate(target: _Target, trace: Trace) -> Candidate | None:
    for key in target.keys:
        if key in trace.cands:
            return trace.cands[key]
    return None


def _place(rows: list[RetrievedItem], target: _Target) -> tuple[int, RetrievedItem] | None:
    item = target.item
    for position, row in enumerate(rows, 1):
        if target.entry is not None:
            if row.entry_id == target.entry:
                return position, row
        elif row.entry_id is None and (row.item.file, row.item.name, row.item.content) == \
                (item.file, item.name, item.content):
            return position, row
    return None


def _verdict(why: WhyNot, target: _Target, trace: Trace) -> None:
    result, limit = trace.result, why.limit
    placed = _place(result.items, target)
    if placed is not None:
        why.position, row = placed
        why.recalled, why.rank, why.source, why.via = True, row.rank, row.source, row.via
        if row.source == "link" and row.rank is not None:
            why.stage = "deduplicated"
            why.reason = (
                f"recalled at position {why.position}: hit #{row.rank}, placed right after "
                f"{row.via}, which links to it (an item appears once)"
            )
        elif row.source == "link":
            why.stage, why.reason = "recalled", f"recalled at position {why.position} as a link of {row.via}"
        else:
            why.stage, why.reason = "recalled", f"recalled at position {why.position} (hit #{row.rank})"
        return
    cut = _place(trace.cut, target)
    if cut is not None:
        why.rank, why.source, why.via = cut[1].rank, cut[1].source, cut[1].via
        why.stage = "budget"
        why.reason = (
            f"cut by the token budget: row {len(result.items) + trace.cut.index(cut[1]) + 1} "
            f"(~{cut[1].tokens_est} tokens) did not fit in {result.budget_tokens} "
            f"({result.budget_used} used)"
        )
        return
    if target.doc is None and not target.keys and not trace.whole_diary:
        why.stage = "time_gate"
        if result.time_range is None:
            why.reason = "the diary is searched only within a time window, and the query names none"
        else:
            start, end = result.time_range
            why.reason = f"outside the time window {start}..{end}"
        return
    keys = set(target.keys)
    if any(c.key in keys for c in trace.floored):
        why.stage = "floor"
        if why.cos_score is None or not why.embedding_used:
            why.reason = "no BM25 match (it shares no scored token with the query) and no cosine"
        elif why.cos_score <= 0 or why.cos_floor is None:
            why.reason = f"no BM25 match and its cosine {why.cos_score:.3f} is not positive"
        else:
            why.reason = f"no BM25 match and its cosine {why.cos_score:.3f} is below the floor {why.cos_floor:.3f}"
        return
    for place, cand in enumerate(trace.ordered, 1):
        if cand.key in keys:
            why.stage, why.rank = "limit", None
            why.reason = f"ranked #{place}{_by(why, trace)}, below the limit of {limit}"
            return
    _not_candidate(why, trace)


def _by(why: WhyNot, trace: Trace) -> str:
    """What the place was ranked by, when it is not plain BM25 order."""
    if why.embedding_used:
        return ""
    if why.context_score > 0:
        return f" (BM25 {why.bm25_score:.3f} + file context {why.context_score:.3f})"
    ahead = [c for c in trace.ordered if c.context > 0]
    return " (BM25 + the file context of the items above it)" if ahead else ""


def _not_candidate(why: WhyNot, trace: Trace) -> None:
    if not trace.terms:
        why.stage = "not_candidate"
        why.reason = (
            "the query has no search words left: the answer is the time window's diary"
            if trace.result.time_words else "the query has no search words"
        )
        return
    if why.bm25_score > 0 and not why.embedding_used and trace.pool <= why.limit:
        why.stage = "limit"
        why.reason = f"BM25 rank #{why.bm25_rank}, below the limit of {why.limit}"
        return
    why.stage = "not_candidate"
    if why.bm25_score > 0:
        why.reason = f"BM25 rank #{why.bm25_rank} is beyond the candidate pool of {trace.pool}"
    else:
        why.reason = "it shares no scored token with the query"
    if why.embedding_used:
        why.reason += f", and its cosine is not among the {trace.pool} nearest"
