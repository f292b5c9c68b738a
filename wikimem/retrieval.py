"""Retrieval: BM25 (optionally fused with cosine), one-hop links, a token budget.

Design constraints: retrieval is synchronous, makes zero LLM calls, imports
no network code and never writes the markdown. The BM25 index is derived
state held in memory only (:mod:`wikimem.bm25`); it is built lazily on the
first :meth:`MemoryIndex.retrieve` (or explicitly, with progress, by
:meth:`MemoryIndex.build`, which is what an app calls from a worker), so
constructing a ``MemoryIndex`` touches no files.

Freshness: the index listens to its store's writes and re-indexes exactly the
written RecallFile on the next query (a diff: only changed items are
re-tokenized). Edits by other processes are picked up by :meth:`refresh`
(re-reads only files whose ``(mtime_ns, size)`` changed, appeared or
vanished; an app's file watcher calls it) or :meth:`rebuild`. If the store's
``revision`` moved without a listener call, ``refresh()`` runs by itself.

Pipeline decisions the contract leaves open:

* A time window's diary entries are candidates next to the wiki hits, scored
  by BM25 with the *wiki's* statistics (see ``InvertedIndex.score_external``);
  entries matching no query term still fill the remaining slots, newest first
  (the window itself is the user's filter).
* Link expansion places an item once, at its first position: a link target
  that is also a later hit appears right after the hit linking to it, as a
  ``"link"`` row, and not again as a hit (the budget then keeps linked
  context together). Link rows are not ranked: score 0, no matched terms.
  Links are followed from hits only (one hop).
* ``tokens_est`` is ``est_tokens(content)``; the budget is a prefix cut.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import weakref
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from wikimem.corpus import WikiCorpus
from wikimem.fusion import DEFAULT_FUSION, check_weight, get_fusion
from wikimem.loader import gc_paused
from wikimem.models import DiaryItem, RetrievalResult, RetrievedItem, TimeRange, as_recall_item
from wikimem.retrieval_vectors import Candidate, Semantic
from wikimem.names import normalize_item_name
from wikimem.timeparse import parse_time_range
from wikimem.scan import scan_texts
from wikimem.tokenize import est_tokens, resolve_jieba, tokenize
from wikimem.warmup import warm_up

__all__ = ["MemoryIndex", "as_recall_item"]

log = logging.getLogger(__name__)

#: How many candidates each signal contributes before fusion (x limit, at least 50).
_FUSION_POOL = 5


class MemoryIndex:
    """In-memory BM25 over a :class:`~wikimem.store.MemoryStore`, kept fresh.

    ``fusion`` names the fusion method used when an embedder works (see
    :mod:`wikimem.fusion`; ``"minmax"`` is the SPEC's reference formula).
    ``today`` (a zero-argument callable returning a ``datetime.date``) is the
    day that time words in a query ("昨天", "last week") are resolved
    against; ``None`` means the real date in the query's ``tz``.
    """

    def __init__(
        self,
        store: Any,
        *,
        use_jieba: bool | None = None,
        embedder: Any = None,
        vectors_dir: Any = None,
        fusion_weight: float = 0.5,
        binary_threshold: int = 10_000,
        fusion: str = DEFAULT_FUSION,
        today: Callable[[], dt.date] | None = None,
    ) -> None:
        get_fusion(fusion)  # ValueError if unknown
        self.fusion_weight = check_weight(fusion_weight)
        self.store = store
        self.use_jieba = resolve_jieba(use_jieba)
        self.embedder = embedder
        self.fusion = fusion
        #: Where an app's notion of today comes from (called per query), for
        #: query time words; None = the real today.
        self.today: Callable[[], dt.date] | None = today
        self._lock = threading.RLock()
        self._build_lock = threading.Lock()
        self._pending_lock = threading.Lock()
        self._warm_lock = threading.Lock()
        self._corpus: WikiCorpus | None = None
        self._rev = getattr(store, "revision", None)
        self._heard = 0
        self._pending: set[str] = set()
        self._semantic: Semantic | None = None
        if embedder is not None:
            try:
                self._semantic = Semantic(embedder, vectors_dir or store.root, store.root, binary_threshold)
            except ImportError as exc:  # the embedding extra is not installed
                log.warning("embeddings need numpy (pip install wikimem[embed]): %s; BM25 only", exc)
        self._listener = _weak_listener(self, store)

    # -- freshness -----------------------------------------------------------

    def _tokenize(self, text: str) -> list[str]:
        return tokenize(text, use_jieba=self.use_jieba)

    def _on_write(self, file: str) -> None:
        # Runs inside the store's write (maybe another thread): only note the
        # file; it is re-indexed by the next query.
        with self._pending_lock:
            self._pending.add(file)
            self._heard += 1

    def _take_pending(self) -> tuple[set[str], int]:
        with self._pending_lock:
            pending, self._pending = self._pending, set()
            heard, self._heard = self._heard, 0
        return pending, heard

    def close(self) -> None:
        """Stop listening to the store's writes (the index still answers queries)."""
        remove = getattr(self.store, "remove_listener", None)
        if self._listener is not None and remove is not None:
            remove(self._listener)
        self._listener = None

    @property
    def ready(self) -> bool:
        """Whether the index has been built (a retrieve will not build first)."""
        return self._corpus is not None

    def __len__(self) -> int:
        return len(self._corpus) if self._corpus is not None else 0

    def build(self, progress: Callable[[int, int], None] | None = None) -> None:
        """(Re)build the index from the files, calling ``progress(done, total)`` per file.

        Safe to run in a worker thread: the new index is built aside and
        swapped in at the end, so concurrent queries use the previous one
        (or wait for this one when there is none yet, instead of building a
        second one).
        """
        with self._build_lock:
            self._build(progress)

    def _build(self, progress: Callable[[int, int], None] | None) -> None:
        # Writes from here on are either read by this build or re-applied
        # (harmlessly: a diff) by the next query.
        self._take_pending()
        rev = getattr(self.store, "revision", None)
        corpus = WikiCorpus(self._tokenize, None if self.use_jieba else scan_texts)
        with gc_paused():
            corpus.load(self.store, progress)
        with self._lock:
            self._corpus = corpus
            self._rev = rev

    def warm(
        self,
        progress: Callable[[int, int], None] | None = None,
        *,
        should_stop: Callable[[], bool] | None = None,
    ) -> None:
        """Materialize postings ahead of first queries (optional; for a worker thread).

        Builds first if needed. Works in chunks, holding the index lock per
        chunk only, so concurrent :meth:`retrieve` calls interleave; writes
        and refreshes in between stay consistent, and a corpus replaced
        meanwhile (rebuild, compaction) is warmed instead. Calls
        ``progress(done, total)`` per chunk; returns early once
        ``should_stop()`` is true. The library never calls this by itself.
        """
        self._ensure_built()
        stop = should_stop or (lambda: False)
        with self._warm_lock:
            while not stop() and not warm_up(self._ensure, self._lock, progress or (lambda done, total: None), stop):
                pass

    def rebuild(self) -> None:
        """Rescan every file (after out-of-band edits); see :meth:`build`."""
        self.build()

    def refresh(self) -> list[str]:
        """Re-read only files whose stat changed, appeared or vanished.

        Returns the RecallFiles whose indexed content changed, sorted. Cheap
        (one ``stat`` per file) when nothing changed.
        """
        self._ensure_built()
        with self._lock:
            corpus = self._ensure()
            names = set(self.store.files()) | set(corpus.stats)
            stale = [f for f in names if self.store.file_stat(f) != corpus.stats.get(f)]
            return self._reindex(corpus, stale)

    def refresh_files(self, files: Iterable[str]) -> list[str]:
        """Re-read the given RecallFiles (e.g. from a file watcher) unconditionally.

        Returns those whose indexed content changed, sorted.
        """
        self._ensure_built()
        with self._lock:
            return self._reindex(self._ensure(), list(files))

    def _reindex(self, corpus: WikiCorpus, files: Iterable[str]) -> list[str]:
        changed = []
        for file in set(files):
            stat = self.store.file_stat(file)
            if corpus.update_file(file, self.store.file_items(file), stat):
                changed.append(file)
        if corpus.index.needs_compaction():
            self._corpus = corpus.compacted()
        return sorted(changed)

    def _ensure_built(self) -> None:
        # Never called with self._lock held: a worker's build() takes the
        # build lock first and self._lock last, to swap its result in.
        if self._corpus is None:
            with self._build_lock:
                if self._corpus is None:
                    self._build(None)

    def _ensure(self) -> WikiCorpus:
        assert self._corpus is not None, "call _ensure_built() first"
        return self._corpus

    def _fresh(self) -> WikiCorpus:
        """The corpus with every write heard of (or guessed) applied."""
        corpus = self._ensure()
        rev = getattr(self.store, "revision", None)
        pending, heard = self._take_pending()
        if pending:
            self._reindex(corpus, pending)
        if rev != self._rev:
            if not isinstance(rev, int) or not isinstance(self._rev, int) or heard < rev - self._rev:
                self.refresh()  # moved without telling us: trust the files' stats
            self._rev = rev
        return self._ensure()  # compaction may have swapped the corpus

    # -- retrieval -----------------------------------------------------------

    def retrieve(
        self,
        query: str,
        *,
        limit: int = 10,
        budget_tokens: int | None = None,
        expand_links: bool = True,
        explain: bool = False,
        time_range: TimeRange | None = None,
        tz: Any = None,
    ) -> RetrievalResult:
        """Rank, expand one hop of links and cut to the budget (see the module doc)."""
        result = RetrievalResult(budget_tokens=budget_tokens)
        self._ensure_built()
        with self._lock:
            corpus = self._fresh()
            terms = Counter(self._tokenize(query))
            diary = self._time_gate(query, time_range, tz, result)
            if terms:
                ranked = self._rank(corpus, query, terms, diary, limit, result)
            else:
                ranked = [Candidate(("d", i), as_recall_item(e), None) for i, e in reversed(list(enumerate(diary)))]
                ranked = ranked[: max(limit, 0)]
            rows = self._expand(corpus, ranked, terms, expand_links, result)
        _cut(rows, budget_tokens, explain, result)
        return result

    def _time_gate(
        self, query: str, time_range: TimeRange | None, tz: Any, result: RetrievalResult
    ) -> list[DiaryItem]:
        """The window's diary entries (widened once if empty); records the gate in ``result``."""
        if time_range is not None:
            window, result.time_range_source = time_range, "explicit"
        else:
            today = self.today() if self.today is not None else None
            window = parse_time_range(query, tz=tz, today=today)
            if window is None:
                return []
            result.time_range_source = "parsed"
        start, end = sorted(window)
        entries = self.store.diary.window(start, end)
        if not entries:
            start, end = _shift(start, -1), _shift(end, 1)
            entries = self.store.diary.window(start, end)
            result.time_range_widened = True
        result.time_range = (start, end)
        return entries

    def _rank(
        self,
        corpus: WikiCorpus,
        query: str,
        terms: Counter[str],
        diary: list[DiaryItem],
        limit: int,
        result: RetrievalResult,
    ) -> list[Candidate]:
        if limit <= 0:
            return []
        index = corpus.index
        pool = max(limit * _FUSION_POOL, 50) if self._semantic is not None else limit
        cands: dict[tuple[Any, ...], Candidate] = {}
        for doc, score in index.search(terms, pool):
            item = corpus.items[doc]
            assert item is not None
            cands[("w", item.file, item.name)] = Candidate(("w", item.file, item.name), item, doc, score, score)
        for i, entry in enumerate(diary):
            item = as_recall_item(entry)
            score = index.score_external(terms, self._tokenize(corpus.text(item)))
            cands[("d", i)] = Candidate(("d", i), item, None, score, score)
        if self._semantic is not None:
            result.embedding_used = self._semantic.fuse(
                corpus, query, terms, cands, diary, pool, self.fusion, self.fusion_weight
            )
        # Ties: wiki before diary, wiki in index order, diary newest first.
        order = sorted(
            cands.values(),
            key=lambda c: (-c.score, 0, c.doc) if c.doc is not None else (-c.score, 1, -c.key[1]),
        )
        return order[:limit]

    def _expand(
        self,
        corpus: WikiCorpus,
        ranked: list[Candidate],
        terms: Counter[str],
        expand_links: bool,
        result: RetrievalResult,
    ) -> list[RetrievedItem]:
        seen: set[tuple[Any, ...]] = set()
        rows: list[RetrievedItem] = []
        for cand in ranked:
            if cand.key in seen:
                continue  # already placed as an earlier hit's link target
            seen.add(cand.key)
            rows.append(self._row(corpus, cand, terms))
            if not expand_links:
                continue
            for link in cand.item.links:
                name = normalize_item_name(link.name)
                doc = corpus.doc(link.file, name)
                if doc is None:
                    rendered = link.render()
                    if rendered not in result.unresolved_links:
                        result.unresolved_links.append(rendered)
                    continue
                key = ("w", link.file, name)
                if key in seen:
                    continue
                seen.add(key)
                item = corpus.items[doc]
                assert item is not None
                rows.append(RetrievedItem(item, "link", 0.0, via=cand.item.name, tokens_est=est_tokens(item.content)))
        return rows

    def _row(self, corpus: WikiCorpus, cand: Candidate, terms: Counter[str]) -> RetrievedItem:
        if cand.doc is not None:
            matched = corpus.index.matched(terms, cand.doc)
        else:
            matched = sorted(set(terms) & set(self._tokenize(corpus.text(cand.item))))
        return RetrievedItem(
            item=cand.item,
            source="hit",
            score=cand.score,
            bm25_score=cand.bm25,
            cos_score=cand.cos,
            matched_terms=matched,
            tokens_est=est_tokens(cand.item.content),
        )


def _weak_listener(index: MemoryIndex, store: Any) -> Callable[[str], None] | None:
    """Register a store listener that does not keep ``index`` alive.

    An app may replace its index (other tokenizer, other weights) many times
    over one store; a strong reference would keep every old one in memory
    and feed it writes forever. A dead index's listener removes itself.
    """
    add = getattr(store, "add_listener", None)
    if add is None:
        return None
    method = weakref.WeakMethod(index._on_write)

    def listener(file: str) -> None:
        bound = method()
        if bound is not None:
            bound(file)
        else:
            remove = getattr(store, "remove_listener", None)
            if remove is not None:
                remove(listener)

    add(listener)
    return listener


def _cut(rows: list[RetrievedItem], budget: int | None, explain: bool, result: RetrievalResult) -> None:
    """Prefix cut by ``tokens_est``; the first row always survives."""
    used = 0
    for i, row in enumerate(rows):
        if budget is not None and i > 0 and used + row.tokens_est > budget:
            if explain:
                result.dropped = rows[i:]
            break
        used += row.tokens_est
        result.items.append(row)
    result.budget_used = used


def _shift(day: str, days: int) -> str:
    return (dt.date.fromisoformat(day) + dt.timedelta(days=days)).isoformat()
