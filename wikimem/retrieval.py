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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.bm25 import WikiCorpus
from wikimem.fusion import DEFAULT_FUSION, FUSIONS, fuse
from wikimem.models import DiaryItem, RecallItem, RetrievalResult, RetrievedItem, TimeRange
from wikimem.names import normalize_item_name
from wikimem.timeparse import parse_time_range
from wikimem.tokenize import est_tokens, resolve_jieba, tokenize

__all__ = ["MemoryIndex", "as_recall_item"]

log = logging.getLogger(__name__)

#: How many candidates each signal contributes before fusion (x limit, at least 50).
_FUSION_POOL = 5


def as_recall_item(entry: DiaryItem) -> RecallItem:
    """A diary entry as a retrievable item: file = the day, name = ``HH:MM``."""
    return RecallItem(entry.date, entry.time, entry.content, entry.owner, entry.source_conv, entry.ts)


@dataclass
class _Cand:
    """One ranked candidate before expansion: a wiki doc (``doc >= 0``) or diary entry."""

    key: tuple[Any, ...]
    item: RecallItem
    doc: int | None
    score: float = 0.0
    bm25: float = 0.0
    cos: float | None = None


class MemoryIndex:
    """In-memory BM25 over a :class:`~wikimem.store.MemoryStore`, kept fresh.

    ``fusion`` names the fusion method used when an embedder works (see
    :mod:`wikimem.fusion`; ``"minmax"`` is the SPEC's reference formula).
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
    ) -> None:
        if fusion not in FUSIONS:
            raise ValueError(f"unknown fusion {fusion!r} (choose from {', '.join(sorted(FUSIONS))})")
        if not 0.0 <= float(fusion_weight) <= 1.0:
            raise ValueError(f"fusion_weight must be within [0, 1], got {fusion_weight}")
        self.store = store
        self.use_jieba = resolve_jieba(use_jieba)
        self.embedder = embedder
        self.fusion_weight = float(fusion_weight)
        self.fusion = fusion
        #: Pins "today" for parsed time windows (tests); None = the real today.
        self._today: dt.date | str | None = None
        self._lock = threading.RLock()
        self._build_lock = threading.Lock()
        self._pending_lock = threading.Lock()
        self._corpus: WikiCorpus | None = None
        self._rev = getattr(store, "revision", None)
        self._heard = 0
        self._pending: set[str] = set()
        self._semantic: _Semantic | None = None
        if embedder is not None:
            try:
                self._semantic = _Semantic(embedder, vectors_dir or store.root, store.root, binary_threshold)
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
        corpus = WikiCorpus(self._tokenize)
        files = self.store.files()
        if progress is not None:
            progress(0, len(files))
        for done, file in enumerate(files, 1):
            stat = self.store.file_stat(file)
            corpus.load_file(file, self.store.file_items(file), stat)
            if progress is not None:
                progress(done, len(files))
        with self._lock:
            self._corpus = corpus
            self._rev = rev

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
        assert self._corpus is not None
        return self._corpus

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
                ranked = [_Cand(("d", i), as_recall_item(e), None) for i, e in reversed(list(enumerate(diary)))]
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
            window = parse_time_range(query, tz=tz, today=self._today)
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
    ) -> list[_Cand]:
        if limit <= 0:
            return []
        index = corpus.index
        pool = max(limit * _FUSION_POOL, 50) if self._semantic is not None else limit
        cands: dict[tuple[Any, ...], _Cand] = {}
        for doc, score in index.search(terms, pool):
            item = corpus.items[doc]
            assert item is not None
            cands[("w", item.file, item.name)] = _Cand(("w", item.file, item.name), item, doc, score, score)
        for i, entry in enumerate(diary):
            item = as_recall_item(entry)
            score = index.score_external(terms, self._tokenize(corpus.text(item)))
            cands[("d", i)] = _Cand(("d", i), item, None, score, score)
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
        ranked: list[_Cand],
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

    def _row(self, corpus: WikiCorpus, cand: _Cand, terms: Counter[str]) -> RetrievedItem:
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


class _Semantic:
    """The embedding half of fusion; numpy is imported here, only with an embedder.

    Fail-open by construction: every failure (endpoint down, bad vectors,
    torn cache) makes :meth:`fuse` return ``False`` with the candidates left
    as BM25 ranked them. A cache stamped by another model is never synced
    (that would re-embed everything, which costs money): one WARNING per
    index, then BM25 only.
    """

    def __init__(self, embedder: Any, vectors_dir: Any, root: Any, binary_threshold: int) -> None:
        import numpy  # noqa: PLC0415 - the embedding extra, lazily

        from wikimem import vectors  # noqa: PLC0415

        self._np = numpy
        self._v = vectors
        self.embedder = embedder
        self.binary_threshold = binary_threshold
        self.wiki_cache = vectors.VectorCache(vectors_dir)
        self.diary_cache = vectors.VectorCache(Path(root) / vectors.DIARY_VECTORS_DIR)
        self._version: int | None = None
        self._row_doc: list[int] = []
        self._doc_row: dict[int, int] = {}
        self._index: Any = None
        self._matrix: Any = None
        self._warned = False
        self._verdicts: dict[Path, bool] = {}

    def _usable(self, cache: Any) -> bool:
        """False (and one WARNING per index) when ``cache`` was stamped by another model.

        The verdict is remembered: reading a header parses the whole keys
        file, too slow for every query, and the index never re-embeds by
        itself anyway.
        """
        verdict = self._verdicts.get(cache.root)
        if verdict is None:
            message = self._v.cache_mismatch(cache.header(), self.embedder)
            verdict = self._verdicts[cache.root] = message is None
            if message is not None and not self._warned:
                self._warned = True
                log.warning("%s", message)
        return verdict

    def _sync_wiki(self, corpus: WikiCorpus) -> None:
        if self._version == corpus.version and self._index is not None:
            return
        docs, entries = [], []
        for doc, item in corpus.live():
            docs.append(doc)
            entries.append(((item.file, item.name), corpus.text(item)))
        _, matrix = self.wiki_cache.sync(entries, self.embedder)
        self._index = self._v.MemmapVectorIndex(matrix, binary_threshold=self.binary_threshold) if docs else None
        self._matrix = matrix
        self._row_doc = docs
        self._doc_row = {d: r for r, d in enumerate(docs)}
        self._version = corpus.version

    def _embed_query(self, query: str) -> Any:
        np = self._np
        embed = getattr(self.embedder, "embed_query", None) or self.embedder.embed
        q = np.asarray(self._v.validate_vectors(embed([query]), 1)[0], dtype=np.float32)
        norm = float(np.linalg.norm(q))
        return q / norm if norm > 0 else q

    def _cosines(self, matrix: Any, rows: list[int], q: Any) -> list[float]:
        if not rows:
            return []
        np = self._np
        block = np.asarray(matrix[rows], dtype=np.float32)
        norms = np.linalg.norm(block, axis=1)
        dots = block @ q
        return [float(d / n) if n > 0 and np.isfinite(d / n) else 0.0 for d, n in zip(dots, norms)]

    def fuse(
        self,
        corpus: WikiCorpus,
        query: str,
        terms: Counter[str],
        cands: dict[tuple[Any, ...], _Cand],
        diary: list[DiaryItem],
        pool: int,
        method: str,
        weight: float,
    ) -> bool:
        """Fuse cosine into ``cands`` in place; False (untouched) on any failure."""
        try:
            if not self._usable(self.wiki_cache) or (diary and not self._usable(self.diary_cache)):
                return False
            self._sync_wiki(corpus)
            q = self._embed_query(query)
            cos: dict[tuple[Any, ...], float] = {}
            extra: list[_Cand] = []
            if self._index is not None:
                for row, value in self._index.search(q, pool):
                    doc = self._row_doc[row]
                    item = corpus.items[doc]
                    key = ("w", item.file, item.name)
                    cos[key] = value
                    if key not in cands:
                        extra.append(_Cand(key, item, doc))
                missing = [c for c in cands.values() if c.doc is not None and c.key not in cos]
                rows = [self._doc_row[c.doc] for c in missing]
                cos.update(zip((c.key for c in missing), self._cosines(self._matrix, rows, q)))
            if diary:
                cos.update(self._diary_cosines(corpus, diary, q))
            bm25_extra = corpus.index.score_docs(terms, [c.doc for c in extra])
            for c in extra:
                c.bm25 = bm25_extra[c.doc]
            everything = list(cands.values()) + extra
            ids = {c.key: i for i, c in enumerate(everything)}
            fused = fuse(
                method,
                {ids[c.key]: c.bm25 for c in everything if c.bm25 > 0},
                {ids[k]: v for k, v in cos.items() if k in ids},
                weight,
            )
        except Exception as exc:  # noqa: BLE001 - fail open: BM25 carries on
            log.debug("embedding failed, BM25 only: %r", exc)
            return False
        for c in extra:
            cands[c.key] = c
        for c in everything:
            c.cos = cos.get(c.key)
            c.score = fused.get(ids[c.key], 0.0)
        return True

    def _diary_cosines(self, corpus: WikiCorpus, diary: list[DiaryItem], q: Any) -> dict[tuple[Any, ...], float]:
        entries = []
        for entry in diary:
            item = as_recall_item(entry)
            entries.append(((item.file, item.name), corpus.text(item)))
        keys, matrix = self.diary_cache.sync(entries, self.embedder, merge=True)
        row_of = {(k["file"], k["name"], k["hash"]): r for r, k in enumerate(keys)}
        rows = [row_of[(f, n, self._v.content_hash(text))] for (f, n), text in entries]
        return {("d", i): v for i, v in enumerate(self._cosines(matrix, rows, q))}
