"""The cold load's segments: batches of docs kept as scan forms, and how a term's postings are found in them.

Why a module of its own: a cold build posts nothing (ADR 0005); what it
keeps is these segments, and a term's first use is a question to them,
answered by a search of each segment's forms (with numpy, a lookup in the
segment's rows grouped by key, made once per segment at the load on the
view thread: :mod:`wikimem.index.search.form_search`, ADR 0022; a term's matches
in the views are counted once, by runs, over all segments). Nothing is
written to disk: the answer is found again by each process. The index (:mod:`wikimem.index.scoring.bm25`) owns the packed
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
from typing import Any

from wikimem.index import vectorized
from wikimem.index.search import view_maker
from wikimem.index.search.form_search import FormViews, runs
from wikimem.index.forms.scan import ScannedTexts, count_located, locate, scanned_occurrences, term_form

__all__ = ["Segments"]

log = logging.getLogger(__name__)

#: A term in more than 1/_COMMON of a segment's documents is counted document by document.
_COMMON = 4
#: A warm-up may pause or stop between every this many segments of one term's search.
_STOP_EVERY = 16


class Segments:
    """The segments of one cold load, in doc id order, and the search that finds a term's postings in them."""

    def __init__(self) -> None:
        #: (first doc id, their forms) of each batch of docs.
        self._segments: list[tuple[int, ScannedTexts]] = []
        #: Each segment's forms as numpy views (None: searched the pure way), and the forms' total size.
        self._views: list[FormViews | None] = []
        #: Views being made on the view thread (:mod:`wikimem.index.search.view_maker`): segment, the pid that asked, the answer.
        self._pending: dict[int, tuple[int, Future[FormViews]]] = {}
        self._pending_lock = threading.Lock()
        #: Segments before this one have their views, or have asked for them.
        self._viewed = 0
        self._size = 0
        #: Maps an index term to the term the forms hold (jieba's words are coded:
        #: :meth:`wikimem.index.forms.words.WordForms.form_term`); None: the same term.
        self.form_term: Callable[[str], str] | None = None

    def __len__(self) -> int:
        return len(self._segments)

    def add(self, base: int, scanned: ScannedTexts) -> None:
        """One more segment (its numpy views made on the view thread, see :meth:`_view_segments`)."""
        self._segments.append((base, scanned))
        self._views.append(None)
        self._size += len(scanned.latin) + len(scanned.cjk)
        self._view_segments()

    def views_pay(self, more: int) -> bool:
        """Whether a segment of about ``more`` characters of forms would get numpy views (see :meth:`_view_segments`)."""
        return vectorized.active(self._size + more, vectorized.SCAN_MIN)

    def _view_segments(self) -> None:
        """Give every segment its numpy views once the forms are large enough for numpy (at the load).

        Made here, not at a term's first use: a view of a segment (its rows
        grouped by key, :mod:`wikimem.index.search.key_groups`) is made once per
        segment, a cost the first query would otherwise pay for every
        segment at once. They are made on the view thread while the load
        reads on (:mod:`wikimem.index.search.view_maker`); a search that needs a
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
        """``term``'s doc ids and tfs in the segments, found by one search of each segment's forms.

        ``should_stop`` (a warm-up's) is asked every :data:`_STOP_EVERY` segments -- a
        large store's term is searched in many of them -- and may block
        (an app pausing the warm-up while the user types); ``None`` when it
        said stop.
        """
        found = self._gather([term], should_stop)
        return None if found is None else found[term]

    def postings_many(self, terms: Iterable[str]) -> dict[str, tuple[array[int], array[int]]]:
        """:meth:`postings` of several terms (a query's), each the same answer, found segment by segment.

        Why: on a large store a term's search streams every segment's forms
        from memory; searching all of a query's terms in one segment before
        the next keeps that segment's forms in the CPU cache for all of them.
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
        for term in terms:
            form = term_form(term)
            if form is None:
                out[term] = array("i"), array("i")  # a term no text can hold (see locate)
            else:
                todo.append(_Term(term, form))
        if not todo:
            return out
        for at, (base, scanned) in enumerate(self._segments):
            if should_stop is not None and at % _STOP_EVERY == _STOP_EVERY - 1 and should_stop():
                return None
            views = self._view(at)
            for want in todo:
                # A search in the segment's numpy views, else (None: a form the views leave out) the pure search.
                texts = views.matches(*want.form) if views is not None else None
                if texts is not None:
                    want.held(texts, base)
                    continue
                want.count()  # the matches of the segments before, in doc id order
                want.search(scanned, base)
        for want in todo:
            want.count()
        out.update((want.term, (want.docs, want.tfs)) for want in todo)
        return out


class _Term:
    """One term's postings being gathered segment by segment, and how to search it the pure way."""

    __slots__ = ("bases", "common", "docs", "form", "matched", "term", "tfs")

    def __init__(self, term: str, form: tuple[bool, str]) -> None:
        self.term, self.form = term, form
        self.docs, self.tfs = array("i"), array("i")
        self.common = False
        #: Matches found in numpy views (their texts, one per match) and their segments' first doc ids,
        #: not yet counted: :meth:`count`.
        self.matched: list[Any] = []
        self.bases: list[int] = []

    def held(self, texts: Any, base: int) -> None:
        """Keep one segment's matches (their texts in it, ascending, from :meth:`FormViews.matches`).

        Counted with the other segments' (:meth:`count`): doc ids ascend
        across segments too, so one pass over runs of equal ids counts them
        all, instead of a count per segment of a term.
        """
        if len(texts):
            self.matched.append(texts)
            self.bases.append(base)

    def count(self) -> None:
        """Add the kept matches' docs and counts (one count over all of them), before any later segment's."""
        if self.matched:
            docs, tfs = runs(vectorized.numpy_module(), self.matched, self.bases)
            self.matched, self.bases = [], []
            self.docs.frombytes(memoryview(docs).cast("B"))  # no copy as bytes first
            self.tfs.frombytes(memoryview(tfs).cast("B"))

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
