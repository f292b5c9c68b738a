"""The cold load's segments: batches of docs kept as scan forms, and how a term's postings are found in them.

Why a module of its own: a cold build posts nothing (ADR 0005); what it
keeps is these segments, and a term's first use is a question to them --
answered, cheapest first, by the postings cache (the whole term, for the
common terms an earlier warm-up packed), the segment cache (every term of
a segment, ADR 0011) or a search of the segment's forms (ADR 0005; with
numpy, a lookup in each segment's rows grouped by key, made once per
segment at the load on the view thread: :mod:`wikimem.index.form_search`,
ADR 0012, 0015, 0022; a term's matches in the views are counted once, by
runs, over all segments). The index (:mod:`wikimem.index.bm25`) owns the packed
postings built from these answers; segments never change after the
load, so everything here may run without the index lock.
"""

from __future__ import annotations

import logging
import os
import threading
from array import array
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from functools import partial
from itertools import repeat
from operator import add
from pathlib import Path
from typing import Any

from wikimem.index import vectorized, view_maker
from wikimem.index.form_search import FormViews, runs
from wikimem.index.postings_cache import PostingsCache
from wikimem.index.scan import ScannedTexts, count_located, locate, scanned_occurrences, term_form
from wikimem.index.segment_cache import SegmentCache, term_key

__all__ = ["Segments"]

log = logging.getLogger(__name__)

#: A term in more than 1/_COMMON of a segment's documents is counted document by document.
_COMMON = 4
#: A warm-up may pause or stop between every this many segments of one term's search.
_STOP_EVERY = 16


class Segments:
    """The segments of one cold load, in doc id order, with the caches that answer for them."""

    def __init__(self) -> None:
        #: (first doc id, their forms) of each batch of docs.
        self._segments: list[tuple[int, ScannedTexts]] = []
        #: What each segment was made of (:func:`wikimem.index.segment_cache.segment_key`; None: never cached).
        self.keys: list[str | None] = []
        #: Each segment's forms as numpy views (None: searched the pure way), and the forms' total size.
        self._views: list[FormViews | None] = []
        #: Views being made on the view thread (:mod:`wikimem.index.view_maker`): segment, the pid that asked, the answer.
        self._pending: dict[int, tuple[int, Future[FormViews]]] = {}
        self._pending_lock = threading.Lock()
        #: Segments before this one have their views, or have asked for them.
        self._viewed = 0
        self._size = 0
        #: Postings of the segments' common terms from an earlier process (or None).
        self.cache: PostingsCache | None = None
        #: Every term of (some of) the segments, from an earlier warm-up (or None).
        self.tables: SegmentCache | None = None
        #: Maps an index term to the term the forms hold (jieba's words are coded:
        #: :meth:`wikimem.index.word_forms.WordForms.form_term`); None: the same term.
        self.form_term: Callable[[str], str] | None = None

    def __len__(self) -> int:
        return len(self._segments)

    def add(self, base: int, scanned: ScannedTexts, key: str | None) -> None:
        """One more segment (its numpy views made on the view thread, see :meth:`_view_segments`)."""
        self._segments.append((base, scanned))
        self.keys.append(key)
        self._views.append(None)
        self._size += len(scanned.latin) + len(scanned.cjk)
        self._view_segments()

    def views_pay(self, more: int) -> bool:
        """Whether a segment of about ``more`` characters of forms would get numpy views (see :meth:`_view_segments`)."""
        return vectorized.active(self._size + more, vectorized.SCAN_MIN)

    def _view_segments(self) -> None:
        """Give every segment its numpy views once the forms are large enough for numpy (at the load).

        Made here, not at a term's first use: a view of a segment costs
        ~2.5 ms (its rows grouped by key, :mod:`wikimem.index.key_groups`),
        once -- 250 segments at 1M items, which the first query would
        otherwise pay. They are made on the view thread while the load
        reads on (:mod:`wikimem.index.view_maker`); a search that needs a
        segment's views waits for them (:meth:`_view`).
        """
        np = vectorized.numpy_module() if self.worth_numpy() else None
        if np is None:
            return
        views = self._views
        with self._pending_lock:
            for at in range(self._viewed, len(views)):
                if views[at] is None:
                    made = view_maker.submit(partial(FormViews, np, self._segments[at][1]))
                    self._pending[at] = (os.getpid(), made)
            self._viewed = len(views)

    def _made(self) -> list[FormViews | None]:
        """The views, once every one asked for is made (a view that failed stays None: that segment is searched the pure way)."""
        for at in list(self._pending):
            self._view(at)
        return self._views

    def _view(self, at: int) -> FormViews | None:
        """Segment ``at``'s views, waiting for them if they are being made (a search that needs them)."""
        if at in self._pending:
            with self._pending_lock:  # another search asking for them waits here, then finds them made
                job = self._pending.get(at)
                if job is not None:
                    self._views[at] = self._answer(at, *job)
                    del self._pending[at]
        return self._views[at]

    def _answer(self, at: int, pid: int, done: Future[FormViews]) -> FormViews | None:
        try:
            if pid != os.getpid() and not done.done():  # forked before it was made: no view thread here
                return FormViews(vectorized.numpy_module(), self._segments[at][1])
            return done.result()
        except Exception:  # noqa: BLE001 -- out of memory, say: the pure search answers the same
            log.warning("numpy views of segment %d could not be made; it is searched without them", at, exc_info=True)
            return None

    def worth_numpy(self) -> bool:
        """Whether the forms are large enough for the numpy path (imports numpy the first time)."""
        return self.views_pay(0)

    def scanned(self, at: int) -> ScannedTexts:
        """Segment ``at``'s forms."""
        return self._segments[at][1]

    def attach_tables(self, path: Path) -> None:
        """Use the segment cache at ``path`` for the segments it holds (a large load with numpy only)."""
        if self.tables_pay():
            self.tables = SegmentCache.open(path, self.keys, vectorized.numpy_module())

    def tables_pay(self) -> bool:
        """Whether this load is worth a segment cache: large, and numpy on."""
        return bool(self._segments) and self.worth_numpy()

    def sample_common(self, share: float, limit: int) -> list[str]:
        """Terms in at least ``share`` of the first segment's docs, most common first (at most ``limit``).

        A cheap guess at the terms whose first use is slow at scale (the
        first segment is a few thousand docs; a Zipf vocabulary's head shows
        in any of them).
        """
        if not self._segments:
            return []
        base, scanned = self._segments[0]
        occ = scanned_occurrences(base, scanned)
        need = share * len(scanned.lengths)
        df = sorted(((len(set(found)), term) for term, found in occ.items()), reverse=True)
        return [term for n, term in df[:limit] if n >= need]

    def postings(self, term: str, should_stop: Callable[[], bool] | None = None) -> tuple[array[int], array[int]] | None:
        """``term``'s doc ids and tfs in the segments (the caches' unit).

        From the postings cache when it holds the term, else segment by
        segment from the segment cache or one search. ``should_stop`` (a
        warm-up's) is asked every :data:`_STOP_EVERY` segments -- one term
        at 1M items is ~250 of them, tens to hundreds of ms -- and may block
        (an app pausing the warm-up while the user types); ``None`` when it
        said stop.
        """
        found = self._gather([term], should_stop)
        return None if found is None else found[term]

    def postings_many(self, terms: Iterable[str]) -> dict[str, tuple[array[int], array[int]]]:
        """:meth:`postings` of several terms (a query's), each the same answer, found segment by segment.

        Why: at 1M items a term's search streams every segment's forms from
        memory (~150 MB); searching all of a query's terms in one segment
        before the next keeps that segment's forms in the CPU cache for all
        of them (measured at 1M, a query's CJK terms: 25-30% less time than
        term by term; at 100k items the forms fit in the cache either way).
        """
        found = self._gather(list(dict.fromkeys(terms)), None)
        assert found is not None  # asked without should_stop: never stopped
        return found

    def _gather(
        self, terms: list[str], should_stop: Callable[[], bool] | None
    ) -> dict[str, tuple[array[int], array[int]]] | None:
        look = self.form_term
        if look is None:
            return self._search(terms, should_stop)
        held = dict(zip(terms, map(look, terms)))
        found = self._search(list(dict.fromkeys(held.values())), should_stop)
        if found is None:
            return None
        out: dict[str, tuple[array[int], array[int]]] = {}
        given: set[str] = set()
        for term, form in held.items():
            docs, tfs = found[form]
            # Terms no form holds share one form: each gets arrays of its own.
            out[term] = (array("i", docs), array("i", tfs)) if form in given else (docs, tfs)
            given.add(form)
        return out

    def _search(
        self, terms: list[str], should_stop: Callable[[], bool] | None
    ) -> dict[str, tuple[array[int], array[int]]] | None:
        out: dict[str, tuple[array[int], array[int]]] = {}
        todo: list[_Term] = []
        cache = self.cache
        for term in terms:
            whole = cache.get(term) if cache is not None and term in cache else None
            form = term_form(term)
            if whole is not None:
                out[term] = whole
            elif form is None:
                out[term] = array("i"), array("i")  # a term no text can hold (see locate)
            else:
                todo.append(_Term(term, form))
        if not todo:
            return out
        tables = self.tables
        for at, (base, scanned) in enumerate(self._segments):
            if should_stop is not None and at % _STOP_EVERY == _STOP_EVERY - 1 and should_stop():
                return None
            for want in todo:
                # The segment cache's table, else a search in numpy views, else (None) the pure search.
                found = tables.lookup(at, want.key, base) if tables is not None else None
                views = self._view(at) if found is None else None  # waits only for views it needs
                if views is not None:
                    texts = views.matches(*want.form)
                    if texts is not None:
                        want.held(texts, base)
                        continue
                want.count()  # the matches of the segments before, in doc id order
                if found is not None:
                    want.docs.frombytes(found[0])
                    want.tfs.frombytes(found[1])
                else:
                    want.search(scanned, base)
        for want in todo:
            want.count()
        out.update((want.term, (want.docs, want.tfs)) for want in todo)
        return out


class _Term:
    """One term's postings being gathered segment by segment, and how to search it the pure way."""

    __slots__ = ("common", "docs", "form", "key", "matched", "term", "tfs")

    def __init__(self, term: str, form: tuple[bool, str]) -> None:
        self.term, self.form = term, form
        key = term_key(term)
        assert key is not None  # the same rule (term_form)
        self.key = key
        self.docs, self.tfs = array("i"), array("i")
        self.common = False
        #: Doc ids of matches found in numpy views (one per match), not yet counted: :meth:`count`.
        self.matched: list[Any] = []

    def held(self, texts: Any, base: int) -> None:
        """Keep one segment's matches (their texts in it, ascending, from :meth:`FormViews.matches`) as doc ids.

        Counted with the other segments' (:meth:`count`): their doc ids
        ascend across segments too, so one pass over runs of equal ids
        counts them all -- a count a segment was ~10 numpy calls, ~40 us,
        ~250 segments a term at 1M items.
        """
        if len(texts):
            np = vectorized.numpy_module()
            self.matched.append(np.add(texts, base, dtype=np.int32))

    def count(self) -> None:
        """Add the kept matches' docs and counts (one count over all of them), before any later segment's."""
        if self.matched:
            matched, self.matched = self.matched, []
            np = vectorized.numpy_module()
            docs, tfs = runs(np, matched[0] if len(matched) == 1 else np.concatenate(matched))
            self.docs.frombytes(docs)
            self.tfs.frombytes(tfs)

    def search(self, scanned: ScannedTexts, base: int) -> None:
        """Add the term's postings in one segment's forms, searched in C-level steps (no numpy)."""
        where = locate(self.term, scanned)
        if where is None:
            return
        hit = count_located(where, scanned, self.common)
        self.docs.extend(map(add, hit[0], repeat(base)))
        self.tfs.extend(hit[1])
        # Terms spread evenly enough that one segment tells the way to count the next.
        self.common = len(hit[0]) * _COMMON > len(scanned.lengths)
