"""Retrieval: BM25 (optionally fused with cosine), one-hop links, a token budget.

Design constraints: retrieval is synchronous, makes zero LLM calls, imports
no network code and never writes the markdown. The BM25 index is derived
state held in memory only (:mod:`wikimem.index.scoring.bm25`); it is built lazily on the
first :meth:`MemoryIndex.retrieve` (or explicitly, with progress, by
:meth:`MemoryIndex.build`, which is what an app calls from a worker), so
constructing a ``MemoryIndex`` touches no files.

Freshness: the index listens to its store's writes and, on the next query,
re-reads each written RecallFile (a diff: only changed items are
re-tokenized). Edits by other processes are picked up by :meth:`refresh`
(re-reads only files whose ``(mtime_ns, size)`` changed, appeared or
vanished; an app's file watcher calls :meth:`refresh_files`) or :meth:`rebuild`. If
the store's ``revision`` moved without a listener call, ``refresh()`` runs by
itself. All of this is the index's freshness keeper
(:class:`wikimem.freshness.keeper.FreshnessKeeper`, an object it holds); the
vector calls are its vector ranker's (:mod:`wikimem.ranking.vector_ranker`).

The ranking itself -- time gate, candidates, relevance floor, limit, links,
budget -- is one pipeline in :mod:`wikimem.ranking.pipeline`, which documents each
stage and the decisions the contract leaves open (a window entry matching no
query word is not a hit; the time words that chose a window do not also
vote; a hit that an earlier hit links to is placed as that link but keeps
its own rank and scores). :meth:`MemoryIndex.why_not` runs that same
pipeline and reads one item's fate off it, so the diagnosis cannot drift
from the ranking. ``tokens_est`` is ``est_tokens(content)``.
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from wikimem.index.terms.analyzer import Analyzer, QueryTerms
from wikimem.index.corpus.wiki import WikiCorpus
from wikimem.index.corpus.indexed import Indexed
from wikimem.ranking.fusion import DEFAULT_FUSION, Fusion, check_weight, get_fusion
from wikimem.disk.loader import gc_paused
from wikimem.models import RetrievalResult, RetrievedItem, TimeRange, as_recall_item
from wikimem.ranking.where import Where
from wikimem.ranking.pipeline import Knobs, Trace, knobs_of, run
from wikimem.ranking.floor import AUTO, resolve_floor
from wikimem.ranking.vector_ranker import VectorRanker
from wikimem.ranking.semantic import CACHE_MODES, SYNC_MODES, VectorStatus
from wikimem.index.forms.scan import LatinTerms, ScannedTexts, scan_texts
from wikimem.index.forms.words import WordForms
from wikimem.freshness import FreshnessKeeper
from wikimem.index.corpus.diary import DiaryCorpus
from wikimem.tokenize import resolve_jieba, tokenize, words_state
from wikimem.index.corpus.warmup import warm_up
from wikimem.ranking.why_not import WhyNot, diagnose

# RetrievalResult and RetrievedItem are the reference's documented names here (they are defined in models).
__all__ = ["MemoryIndex", "RetrievalResult", "RetrievedItem", "as_recall_item"]

T = TypeVar("T")

#: Query analyses remembered (emptied when full): a few hundred distinct texts.
_ANALYSES_KEPT = 1024


class MemoryIndex:
    """In-memory BM25 over a :class:`~wikimem.store.MemoryStore`, kept fresh.

    The constructor's first six parameters are the reference library's,
    unchanged; this project's own come after them, keyword-only, in three
    groups:

    ==================  ===================  ==========================================================
    group               keyword              what it sets
    ==================  ===================  ==========================================================
    reference           ``use_jieba``,       as in the reference library (``fusion_weight``: BM25's
                        ``embedder``,        share of the fused score, 0..1; ``binary_threshold``:
                        ``vectors_dir``,     rows above which vectors are searched in their binary
                        ``fusion_weight``,   form first)
                        ``binary_threshold``
    ranking             ``fusion``           how BM25 and cosine are joined: a name (``"zscore"``, the
                                             default; ``"minmax"``, the SPEC's reference formula) or a
                                             fusion function (:mod:`wikimem.ranking.fusion`)
    ranking             ``cos_floor``        the relevance floor for candidates without a BM25 match: a
                                             cosine, ``None`` for none, or ``"auto"`` (the default: the
                                             embedder's own ``cos_floor`` or the one calibrated for
                                             its model)
    ranking             ``analyzer``         tokens -> index terms for items and queries alike:
                                             ``"en"`` (Snowball stemming + stop words dropped from
                                             queries), ``"stem"``, ``"stop"`` or ``"none"``; ``None``
                                             is :data:`wikimem.index.terms.analyzer.DEFAULT_ANALYZER`
                                             (without ``wikimem[en]`` stemming falls back as that
                                             module documents; :attr:`analyzer` tells what runs)
    ranking             ``today``            a zero-argument callable returning the ``datetime.date``
                                             that query time words ("昨天", "last week") resolve
                                             against; ``None``: the real date in the query's ``tz``
    ranking             ``context``          ``True``: a hit's neighbours in its file (2 on each side)
                                             add half their best BM25 to its lexical score (with
                                             embeddings: a fused signal of its own), re-ranking
                                             a pool as deep as with embeddings
                                             (:mod:`wikimem.ranking.context`); ``False``
                                             (default): BM25 alone
    derived state       ``vector_sync``      who embeds the wiki's items: ``"query"`` (the first query
                                             that needs them) or ``"manual"`` (only
                                             :meth:`sync_vectors`; BM25 only until the vectors are
                                             ready); see :mod:`wikimem.ranking.semantic`
    derived state       ``vector_cache``     ``"readwrite"``, or ``"read"``: never writes a vector
                                             cache (new vectors stay in memory)
    ==================  ===================  ==========================================================
    """

    def __init__(
        self,
        store: Any,
        *,
        # The reference library's parameters, unchanged.
        use_jieba: bool | None = None,
        embedder: Any = None,
        vectors_dir: Any = None,
        fusion_weight: float = 0.5,
        binary_threshold: int = 10_000,
        # Ranking: how the signals are joined and cut, how text becomes terms, what "today" is.
        fusion: str | Fusion = DEFAULT_FUSION,
        cos_floor: float | str | None = AUTO,
        analyzer: str | None = None,
        today: Callable[[], dt.date] | None = None,
        context: bool = False,
        # Derived state: who embeds, and whether vectors reach the disk.
        vector_sync: str = "query",
        vector_cache: str = "readwrite",
    ) -> None:
        get_fusion(fusion)  # ValueError if unknown
        #: Tokens -> index terms (stemmer loaded on first use, not here).
        self.analyzer = Analyzer(analyzer)
        if vector_sync not in SYNC_MODES or vector_cache not in CACHE_MODES:
            raise ValueError(f"vector_sync must be one of {SYNC_MODES} and vector_cache one of {CACHE_MODES}")
        #: Who embeds the wiki's items ("query" or "manual"), and whether vectors reach the disk.
        self.vector_sync, self.vector_cache = vector_sync, vector_cache
        root = getattr(store, "root", None)
        self.fusion_weight = check_weight(fusion_weight)
        self.store = store
        self.use_jieba = resolve_jieba(use_jieba)
        #: With jieba: its words coded into the scan forms, kept across builds (wikimem.index.forms.words).
        self._words = WordForms(Path(root) if root is not None else None, "wiki") if self.use_jieba else None
        self._diary_words = WordForms(Path(root) if root is not None else None, "diary") if self.use_jieba else None
        self.embedder = embedder
        self.fusion = fusion
        #: File context: a hit's file neighbours' BM25 re-ranks the pool (wikimem.ranking.context).
        self.context = context
        #: Where an app's notion of today comes from (called per query), for
        #: query time words; None = the real today.
        self.today: Callable[[], dt.date] | None = today
        #: The relevance floor (see :mod:`wikimem.ranking.semantic`) and
        #: where it came from ("explicit", "off", "embedder", "calibrated", or
        #: None when no floor is known for the model).
        self.cos_floor, self.cos_floor_source = resolve_floor(cos_floor, embedder)
        self._lock = threading.RLock()
        self._build_lock = threading.Lock()
        self._warm_lock = threading.Lock()
        #: Query text -> its analysis (see :meth:`_analyzed`).
        self._analyses: dict[tuple[str, Any], QueryTerms] = {}
        #: The corpus in use, kept level with the files (this process's writes, refreshes, the diary's index).
        self._keeper = FreshnessKeeper(store, self._lock)
        #: The embedding half and its calls (BM25 only without an embedder).
        self._vectors = VectorRanker(embedder, vectors_dir, getattr(store, "root", None), binary_threshold,
                                     sync=vector_sync, persist=vector_cache == "readwrite",
                                     lock=self._lock, fresh=self._keeper.fresh)

    # -- query analysis ------------------------------------------------------

    def _tokenize(self, text: str) -> list[str]:
        return tokenize(text, use_jieba=self.use_jieba)

    def analyze_query(self, query: str) -> QueryTerms:
        """The terms ``query`` is scored with (before time words are removed), and what the analyzer did."""
        return self.analyzer.query(self._tokenize(query))

    def _analyzed(self, text: str) -> QueryTerms:
        """:meth:`analyze_query`, remembered per text (a copy each time: the result's lists are the caller's).

        Tokenizing and analyzing a query is a visible share of a warm
        retrieve(); an app asks the same text often. Kept per jieba
        dictionary state too (:func:`~wikimem.tokenize.words_state`): a
        program may change jieba's words at run time (``jieba.add_word``).
        """
        key = (text, words_state())
        found = self._analyses.get(key)
        if found is None:
            found = self.analyze_query(text)
            if len(self._analyses) >= _ANALYSES_KEPT:
                self._analyses.clear()
            self._analyses[key] = found
        return QueryTerms(list(found.terms), list(found.stop_words), dict(found.stemmed), found.function,
                          dict(found.typed))

    @property
    def ready(self) -> bool:
        """Whether the index has been built (a retrieve will not build first)."""
        return self._keeper.corpus is not None

    def __len__(self) -> int:
        corpus = self._keeper.corpus
        return len(corpus) if corpus is not None else 0

    def indexed(self) -> Indexed:
        """A read-only view of what the next query searches: files, item names, stats, an item's terms.

        Builds the index first if needed and applies every write heard of,
        as a query would (see :class:`wikimem.index.corpus.indexed.Indexed`).
        """
        self._ensure_built()
        with self._lock:
            return Indexed(self._keeper.fresh(), self._lock)

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
        rev = self._keeper.start_build()
        corpus = WikiCorpus(self._tokenize, self._scan(self._words), self.analyzer, words=self._words)
        with gc_paused():
            corpus.load(self.store, progress)
        self._keeper.adopt(corpus, rev)

    def warm(
        self,
        progress: Callable[[int, int], None] | None = None,
        *,
        should_stop: Callable[[], bool] | None = None,
    ) -> None:
        """Pack the common terms' postings in memory ahead of first queries (optional; for a worker thread).

        Builds first if needed. Works in chunks, holding the index lock per
        chunk only, so concurrent :meth:`retrieve` calls interleave; writes
        and refreshes in between stay consistent, and a corpus replaced
        meanwhile (rebuild, compaction) is warmed instead. Calls
        ``progress(done, total)`` per term; returns early once
        ``should_stop()`` is true. The library never calls this by itself,
        and it writes nothing to disk.
        """
        self._ensure_built()
        stop = should_stop or (lambda: False)
        with self._warm_lock:
            while not stop() and not warm_up(self._keeper.current, self._lock, progress or (lambda done, total: None), stop):
                pass

    def rebuild(self) -> None:
        """Rescan every file (after out-of-band edits); see :meth:`build`."""
        self.build()

    def _ensure_built(self) -> None:
        # Never called with self._lock held: a worker's build() takes the
        # build lock first and self._lock last, to swap its result in.
        if self._keeper.corpus is None:
            with self._build_lock:
                if self._keeper.corpus is None:
                    self._build(None)

    def build_diary(self) -> None:
        """Load the whole diary's index now (for a worker thread); the first ``search_diary=True`` query does otherwise.

        A long-lived server calls it after :meth:`build`, so that the first
        diary-wide recall does not pay the load (every day file is read).
        """
        self._ensure_built()
        with self._lock:
            self._diary_corpus()

    def _diary_corpus(self) -> DiaryCorpus:
        """The whole diary's corpus, loaded by the first diary-wide query (under the index lock)."""
        return self._keeper.diary_corpus(self._new_diary_corpus)

    def _new_diary_corpus(self) -> DiaryCorpus:
        return DiaryCorpus(self._tokenize, self._scan(self._diary_words), self.analyzer, words=self._diary_words)

    @staticmethod
    def _scan(words: WordForms | None) -> Callable[[list[str], LatinTerms | None], ScannedTexts | None]:
        """A corpus's bulk scanner: with jieba, its words coded into the scan forms."""
        return words.scan_texts if words is not None else scan_texts


    # -- retrieval -----------------------------------------------------------

    def _knobs(
        self, query: str, limit: int = 10, budget_tokens: int | None = None, expand_links: bool = True,
        explain: bool = False, time_range: TimeRange | None = None, tz: Any = None, search_diary: bool = False,
        where: Where | None = None,
    ) -> Knobs:
        today = self.today() if self.today is not None else None
        return knobs_of(
            query, limit, budget_tokens, expand_links, explain, time_range, tz, today,
            self.fusion, self.fusion_weight, self.cos_floor, self.context,
            bool(search_diary), where if where else None,
        )

    def _run(self, knobs: Knobs, inspect: Callable[[Trace, WikiCorpus], T] | None = None) -> tuple[Trace, T | None]:
        """The one pipeline run behind both :meth:`retrieve` and :meth:`why_not`.

        ``inspect`` runs under the index lock with the very corpus the run
        used, so a diagnosis never reads a newer index than the ranking did.
        """
        self._ensure_built()
        with self._lock:
            corpus = self._keeper.fresh()
            trace = run(knobs, corpus, self._analyzed, self.store.diary.window, self._vectors.semantic, self._diary_corpus,
                        self._file_tags)
            result = trace.result
            if result.embedding_used:
                result.cos_floor, result.cos_floor_source = self.cos_floor, self.cos_floor_source
            return trace, inspect(trace, corpus) if inspect is not None else None

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
        search_diary: bool = False,
        where: Where | None = None,
    ) -> RetrievalResult:
        """Rank, expand one hop of links and cut to the budget (see :mod:`wikimem.ranking.pipeline`).

        ``search_diary`` (keyword-only, this project's addition): ``False``
        (the default) is the reference library's behaviour -- the diary is a
        candidate source only inside a time window, its entries scored with
        the wiki's statistics. ``True`` searches the whole diary through its
        own index (built on first use, kept fresh like the wiki's; see
        :mod:`wikimem.freshness.diary_index`), ranked with the diary's own
        statistics beside the wiki's hits in one ranking and one budget; a
        time window (``time_range`` or a time word) then narrows the diary
        to its entries, and the wiki is never filtered. Diary rows carry
        ``entry_id``.

        ``where`` (keyword-only, this project's addition): a
        :class:`~wikimem.ranking.where.Where` that keeps only stored items
        of an owner, a source, a span of ``ts`` or a RecallFile's tags; the
        top ``limit`` is then the best of what it keeps.
        """
        knobs = self._knobs(query, limit, budget_tokens, expand_links, explain, time_range, tz, search_diary, where)
        return self._run(knobs)[0].result

    def _file_tags(self, file: str) -> tuple[str, ...]:
        """A RecallFile's frontmatter tags (for a recall filter that names tags)."""
        meta = getattr(self.store, "file_meta", None)
        return meta(file).tags if meta is not None else ()

    def why_not(
        self,
        query: str,
        file: str,
        name: str,
        *,
        limit: int = 10,
        budget_tokens: int | None = None,
        expand_links: bool = True,
        time_range: TimeRange | None = None,
        tz: Any = None,
        search_diary: bool = False,
    ) -> WhyNot:
        """Why ``file:name`` is (not) recalled by ``retrieve(query, …)`` with the same knobs.

        Runs the very pipeline ``retrieve`` runs and reports the stage that
        removed the item -- or its position when it is recalled -- with its
        BM25 score and rank, its cosine when embeddings are on, and the
        scored query tokens it has and lacks (see :class:`wikimem.ranking.why_not.WhyNot`).
        A diary entry is named by its day and ``HH:MM`` (``HH:MM#n`` for a
        minute's later entries). ``search_diary`` as in :meth:`retrieve`:
        with it, a diary entry is judged against the whole diary. The
        retrieval it judged is in ``.result``.
        """
        knobs = self._knobs(query, limit, budget_tokens, expand_links, True, time_range, tz, search_diary)

        def inspect(trace: Trace, corpus: WikiCorpus) -> WhyNot:
            return diagnose(knobs, trace, corpus, self._vectors.semantic, self.store.diary.day, file, name)

        why = self._run(knobs, inspect)[1]
        assert why is not None
        return why

    # -- freshness (the keeper's) --------------------------------------------

    def close(self) -> None:
        """Stop listening to the store's writes (the index still answers queries)."""
        self._keeper.close()

    def refresh(self) -> list[str]:
        """Re-read only files whose stat changed, appeared or vanished.

        Returns the RecallFiles whose indexed content changed, sorted. Cheap
        (one ``stat`` per file) when nothing changed. The whole diary's
        index, once a diary-wide query built it, is swept the same way
        (:meth:`refresh_diary`).
        """
        self._ensure_built()
        return self._keeper.refresh()

    def refresh_diary(self, days: Iterable[str] | None = None) -> list[str]:
        """Re-read the given diary days (e.g. from a file watcher), or (None) those whose stat moved.

        Returns the days whose entries changed, sorted. A no-op until a
        diary-wide query (``search_diary=True``) built the diary's index:
        that load reads the files as they are then.
        """
        return self._keeper.refresh_diary(days)

    def refresh_files(self, files: Iterable[str], *, skip_own_writes: bool = False) -> list[str]:
        """Re-read the given RecallFiles (e.g. from a file watcher); returns those whose indexed content changed, sorted.

        Unconditionally by default. ``skip_own_writes=True`` is for a watcher
        that also sees this process's own writes (an app that writes through
        the store and watches the same files): this process's writes are
        applied first (as a query would), and a file that is
        still exactly as the last of them left it -- its ``(mtime_ns, size,
        inode)`` now equal to the identity taken under the store lock right
        after that commit -- is not read again (the watcher's event was that
        write); any other file, or one written since by anyone else, is
        re-read. Files skipped this way are not in the returned list (their
        change was applied with the write).
        """
        self._ensure_built()
        return self._keeper.refresh_files(files, skip_own_writes=skip_own_writes)

    # -- vectors (the ranker's) ----------------------------------------------

    def _built_vectors(self) -> VectorRanker:
        """The vector ranker, with the index built first when there are embeddings to ask about."""
        if self._vectors.semantic is not None:
            self._ensure_built()
        return self._vectors

    def set_cos_floor(self, cos_floor: float | str | None) -> None:
        """Change the relevance floor (a cosine, ``None`` for none, ``"auto"``); ``ValueError`` if bad."""
        floor, source = resolve_floor(cos_floor, self.embedder)
        with self._lock:
            self.cos_floor, self.cos_floor_source = floor, source

    def plan_vectors(self) -> Any:
        """What :meth:`sync_vectors` would embed now (a ``wikimem.vectors.SyncPlan``); None without embeddings.

        Embeds nothing but, for a local model, the few texts it times to
        estimate; builds the index first if needed. For a worker thread.
        """
        return self._built_vectors().plan()

    def sync_vectors(
        self,
        progress: Callable[[int, int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        *,
        batch_size: int = 64,
    ) -> VectorStatus | None:
        """Embed every wiki item the vector cache lacks; None without embeddings.

        For a worker thread: the embedding runs outside the index lock, so
        queries go on meanwhile (BM25 only until the vectors are ready, in
        ``vector_sync="manual"``). ``progress(done, total)`` counts texts;
        once ``should_stop()`` says yes, what was embedded is kept and
        ``wikimem.vectors.SyncCancelled`` is raised -- the next sync resumes
        (``should_stop`` is asked before each batch of ``batch_size`` texts).
        Embedding errors propagate (nothing is lost). Items written during
        the sync are left for the next one.
        """
        return self._built_vectors().sync(progress, should_stop, batch_size)

    def share_vectors(self, other: MemoryIndex) -> None:
        """Use ``other``'s vector caches (same embedder), e.g. for an index rebuilt with another tokenizer.

        The vectors belong to the items' text, not to the tokenizer, so a
        replacement index need not embed anything again -- which matters
        when they are held in memory only (``vector_cache="read"``).
        """
        self._vectors.share(other._vectors)

    def vector_status(self) -> VectorStatus | None:
        """How many wiki items have a vector and whether queries fuse now; None without embeddings."""
        return self._built_vectors().status()
