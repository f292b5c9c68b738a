"""The in-memory BM25 inverted index: its postings, the top-k search and the scores of chosen docs.

The index is derived state: it lives in memory and is rebuilt from the
markdown at startup, so what shapes it is a cold build that posts nothing
and a query whose cost follows its terms' postings, not the store:

* Postings are ``array('i')`` pairs (doc ids ascending, term frequencies).
* A cold build keeps each batch of documents as searchable scan forms
  (:mod:`wikimem.index.search.segments`); the first query that needs a term finds
  its postings there, merges the occurrences added one by one since
  (a raw ``array`` of doc ids per term), and keeps the result. Writes after
  that append to or delete from the kept lists in place.
* Removal is a tombstone plus the doc's postings deleted from its terms'
  kept lists. Doc ids are never reused, so lists stay sorted; the owner
  rebuilds when tombstones outnumber live documents (:meth:`needs_compaction`).
* Scoring has two paths with one formula. The pure-Python path is the
  reference (every posting of every query term added into a dict, the
  top k by ``heapq``); once numpy is imported (a large list or a large
  load asked for it: :mod:`wikimem.index.vectorized`), every query is
  scored term at a time into a dense array and the top k taken by
  ``partition``. Both sum a
  doc's terms in query order and break ties by ascending doc id, so they
  agree up to float rounding; tests compare them with a tolerance. The
  one thing kept between queries besides the postings: a term queried
  alone keeps its best postings ranked until a write changes the
  statistics (the one-word query is the commonest, and its cost would
  otherwise grow with the term's list, i.e. with the store).

Scoring is Okapi BM25 (k1 = 1.5, b = 0.75) with the always-positive idf
``ln(1 + (N - df + 0.5) / (df + 0.5))`` (Lucene's, the reference
library's), so a term present in every document still counts a little.
A term's contribution is ``w · (tf / ((tf + a) + b'·dl))`` with
``w = qtf·idf·(k1 + 1)``, ``a = k1·(1 − b)``, ``b' = k1·b / avgdl``: the
query's weight times the posting's impact, which depends only on the
document and the average length (the numpy path keeps each term's
impacts until a write moves that average).
"""

from __future__ import annotations

import heapq
import math
import threading
from array import array
from bisect import bisect_left
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Collection, Iterable, Mapping
from functools import partial
from itertools import compress, islice, repeat
from operator import add, eq, mul, truediv
from typing import Any

from wikimem.index import vectorized
from wikimem.index.forms.scan import ScannedTexts
from wikimem.index.search.segments import Segments

__all__ = ["B", "K1", "InvertedIndex", "Postings", "idf"]

K1 = 1.5
B = 0.75
#: A list at most this many times as long as the docs asked about is read whole into a dict
#: instead of a bisect per doc (which boxes an int at every step).
_HELD_SHARE = 16

#: A term queried alone keeps at least this many of its best postings ranked (:meth:`Postings.ranked`).
_RANKED_MIN = 256

#: A query whose postings number at least 1/this of the docs selects its top k on the dense score
#: array (one pass over every doc, no copy of its postings) instead of over its postings.
_DENSE_SHARE = 4

_new_occurrences = partial(array, "i")


def idf(n_docs: int, df: int) -> float:
    """The always-positive BM25 idf of a term in ``df`` of ``n_docs`` documents."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def _best(scores: dict[int, float], k: int) -> list[tuple[int, float]]:
    """The ``k`` best ``(doc, score)``: highest score first, ties by ascending doc id.

    The k-th best score is found over the bare floats (C-level compares,
    no key per doc); only the docs scoring at least that are sorted.
    """
    pairs: Iterable[tuple[int, float]] = scores.items()
    if len(scores) > k:
        cut = heapq.nlargest(k, scores.values())[-1]
        pairs = compress(pairs, map(cut.__le__, scores.values()))
    return sorted(pairs, key=lambda ds: (-ds[1], ds[0]))[:k]


class Postings:
    """One term's kept postings: ascending live doc ids and their tfs.

    ``_np`` holds numpy copies for the fast path: the doc ids as ``intp``
    (numpy's own index type: an ``int32`` index is converted on every
    gather and scatter) and each posting's impact ``tf / ((tf + a) + b'·dl)``
    for the ``b'`` it was made with, so a query multiplies by its weight
    only; any change to the lists drops it. Copies, not views: a view
    would make the next ``append`` to the live array raise.
    """

    __slots__ = ("docs", "tfs", "_np", "_best")

    def __init__(self, docs: array[int], tfs: array[int]) -> None:
        self.docs = docs
        self.tfs = tfs
        self._np: tuple[Any, Any, float] | None = None
        #: This term's best postings alone, in answer order, for the ``(b', w)`` they were ranked with.
        self._best: tuple[float, float, list[tuple[int, float]]] | None = None

    def append(self, doc: int, tf: int) -> None:
        self.docs.append(doc)
        self.tfs.append(tf)
        self._np = self._best = None

    def drop(self, doc: int) -> None:
        """Delete ``doc``'s posting if it has one."""
        docs = self.docs
        p = bisect_left(docs, doc)
        if p < len(docs) and docs[p] == doc:
            del docs[p]
            del self.tfs[p]
            self._np = self._best = None

    def tf(self, doc: int) -> int:
        docs = self.docs
        p = bisect_left(docs, doc)
        return self.tfs[p] if p < len(docs) and docs[p] == doc else 0

    def tfs_of(self, docs: list[int]) -> list[int]:
        """Each of ``docs``' tf here (0: not there), in C-level maps: a dict of a short list, a bisect in a long one."""
        found, tfs = self.docs, self.tfs
        if len(found) <= _HELD_SHARE * len(docs):
            return list(map(dict(zip(found, tfs)).get, docs, repeat(0)))
        pos = list(map(min, map(bisect_left, repeat(found), docs), repeat(len(found) - 1)))
        return list(map(mul, map(tfs.__getitem__, pos), map(eq, map(found.__getitem__, pos), docs)))

    def arrays(self, np: Any, lengths: Any, a: float, b: float) -> tuple[Any, Any]:
        """numpy doc ids (``intp``) and impacts ``tf / ((tf + a) + b·dl)``, kept until the lists or ``b`` change."""
        kept = self._np
        if kept is None or kept[2] != b:
            docs = np.frombuffer(self.docs[:], dtype=np.int32).astype(np.intp)  # a slice: no export of the live array
            tf = np.frombuffer(self.tfs[:], dtype=np.int32).astype(np.float64)
            kept = self._np = (docs, tf / ((tf + a) + b * lengths[docs]), b)
        return kept[0], kept[1]

    def ranked(self, np: Any, lengths: Any, a: float, b: float, w: float, k: int) -> list[tuple[int, float]]:
        """This term's top ``k`` alone, best first, ties by doc id.

        A term queried alone is asked again with the same ``(b', w)`` until
        a write: its best ``max(k, _RANKED_MIN)`` postings -- and every one
        tied with the last of them -- are ranked once and kept, and a
        later ``k`` up to their number reads them off.
        """
        kept = self._best
        if kept is None or kept[0] != b or kept[1] != w or len(kept[2]) < min(k, len(self.docs)):
            docs, impact = self.arrays(np, lengths, a, b)
            values = w * impact
            m = min(len(values), max(k, _RANKED_MIN))
            cut = np.partition(values, len(values) - m)[len(values) - m]
            keep = values >= cut  # ties at the cut all in: the kept prefix is exact
            docs, values = docs[keep], values[keep]
            order = np.lexsort((docs, -values))
            kept = self._best = (b, w, list(zip(docs[order].tolist(), values[order].tolist())))
        return kept[2][:k]


def _top_of(np: Any, dense: Any, k: int) -> list[tuple[int, float]]:
    """The top ``k`` of a dense score array (doc id -> score, 0.0 for no match), best first, ties by doc id.

    Why, beside the selection over a query's postings: when those cover
    much of the store its candidates are most docs, several times over;
    gathering them, and ``partition``'s copy of them, write tens of
    megabytes of fresh memory on a large store -- a term's first use there
    pays more in page faults than in arithmetic. One copy of the dense
    array finds the k-th best score (every doc holding a term scores above
    0: weights and impacts are positive); the docs at or above it are then
    read off the array, distinct, ties included.
    """
    values = dense.copy()
    kth = len(values) - min(k, len(values))
    values.partition(kth)
    cut = values[kth]
    top = np.flatnonzero(dense >= cut) if cut > 0.0 else np.flatnonzero(dense)
    found = dense[top]
    order = np.lexsort((top, -found))[:k]
    return list(zip(top[order].tolist(), found[order].tolist()))


class InvertedIndex:
    """BM25 over integer doc ids; callers keep the documents themselves."""

    def __init__(self) -> None:
        # term -> raw occurrence array (before first use) or Postings (after).
        # A defaultdict so the cold path creates arrays in C; lookups that must
        # not create entries use .get().
        self._post: defaultdict[str, array[int] | Postings] = defaultdict(_new_occurrences)
        self._any_packed = False
        #: The batches of docs added by add_scanned.
        self.forms = Segments()
        #: Docs of the cold load (set by its owner when it ends): later ids are writes.
        self.load_end = 0
        self._dl = array("i")
        self._alive = bytearray()
        self.n_alive = 0
        self.total_len = 0
        #: A numpy copy of ``_dl`` for the fast path (doc lengths never change: grown, never stale).
        self._np_lengths: Any = None
        #: Each thread's dense score array for the fast path, all zeros between queries.
        self._scratch = threading.local()

    # -- writing -------------------------------------------------------------

    def _new_doc(self, length: int) -> int:
        doc = len(self._dl)
        self._dl.append(length)
        self._alive.append(1)
        self.n_alive += 1
        self.total_len += length
        return doc

    def loaded(self, end: int) -> None:
        """The cold load ended with doc ``end``: later ids are writes.

        A load whose scan forms are large enough for the numpy path imports
        numpy now, so that the load pays for it and not the first query.
        """
        self.load_end = end
        self.forms.worth_numpy()

    @property
    def cold(self) -> bool:
        """No query has packed a term yet: :meth:`add_scanned` may be used."""
        return not self._any_packed

    def add_bulk(self, tokens: list[str]) -> int:
        """Add one document on the cold path; returns its doc id.

        Occurrences go straight into raw arrays (C-level loop, no per-doc
        Counter). Once a query has packed any term this defers to
        :meth:`add`, which keeps packed postings consistent.
        """
        if self._any_packed:
            return self.add(tokens)
        doc = self._new_doc(len(tokens))
        # No term is packed here (checked above): every value is an occurrence array.
        deque(map(array.append, map(self._post.__getitem__, tokens), repeat(doc)), 0)  # type: ignore[arg-type]
        return doc

    def add_scanned(self, scanned: ScannedTexts) -> range:
        """Add a batch of docs (cold path only) as one segment; returns their ids."""
        if not self.cold:
            raise RuntimeError("add_scanned() is for cold builds; use add()")
        base = len(self._dl)
        n = len(scanned.lengths)
        self.forms.add(base, scanned)
        self._dl.extend(scanned.lengths)
        self._alive.extend(repeat(1, n))
        self.n_alive += n
        self.total_len += sum(scanned.lengths)
        return range(base, base + n)

    def add(self, tokens: list[str]) -> int:
        """Add one document incrementally (after a write); returns its doc id."""
        doc = self._new_doc(len(tokens))
        post = self._post
        for term, tf in Counter(tokens).items():
            entry = post.get(term)
            if entry is None:
                post[term] = array("i", repeat(doc, tf))
            elif isinstance(entry, array):
                entry.extend(repeat(doc, tf))
            else:
                entry.append(doc, tf)
        return doc

    def remove(self, doc: int, tokens: Iterable[str]) -> None:
        """Tombstone ``doc``; ``tokens`` are its terms, whose kept postings drop it in place.

        Raw occurrence arrays keep it: they are filtered by ``alive`` when packed.
        """
        if not self._alive[doc]:
            return
        self._alive[doc] = 0
        self.n_alive -= 1
        self.total_len -= self._dl[doc]
        post = self._post
        for term in set(tokens):
            entry = post.get(term)
            if isinstance(entry, Postings):
                entry.drop(doc)

    def needs_compaction(self) -> bool:
        """Tombstones outnumber live docs by enough that a rebuild is cheaper."""
        dead = len(self._dl) - self.n_alive
        return dead > 10_000 and dead > self.n_alive

    def __len__(self) -> int:
        return self.n_alive

    # -- warming up (optional; see MemoryIndex.warm) ---------------------------

    @property
    def segments(self) -> int:
        """Segments of the cold load."""
        return len(self.forms)

    def segment_postings(
        self, term: str, should_stop: Callable[[], bool] | None = None
    ) -> tuple[array[int], array[int]] | None:
        """``term``'s doc ids and tfs in the cold load's segments: see :meth:`Segments.postings`."""
        return self.forms.postings(term, should_stop)

    def adopt(self, term: str, found: tuple[array[int], array[int]]) -> None:
        """Keep a term's :meth:`segment_postings` (found without the lock) unless a query packed it first (under the lock).

        With no raw occurrences of the term and no removed doc it is kept
        as it is (the lock is held for a swap only); otherwise it is merged
        like a first use.
        """
        entry = self._post.get(term)
        if isinstance(entry, Postings):
            return
        if entry is None and self.n_alive == len(self._dl):
            packed = Postings(*found)
        else:
            packed = self._pack(term, entry, found)
        self._post[term] = packed
        self._any_packed = True

    def unpacked_over(self, occurrences: int) -> list[tuple[str, int]]:
        """Raw terms with at least that many occurrences, and that count (under the lock)."""
        return [(t, len(e)) for t, e in self._post.items() if type(e) is array and len(e) >= occurrences]

    def pack(self, terms: Iterable[str]) -> None:
        """Keep ``terms``' postings, as their first query would (under the lock)."""
        for term in terms:
            self._packed(term)

    # -- postings ------------------------------------------------------------

    def _packed(self, term: str, found: tuple[array[int], array[int]] | None = None) -> Postings | None:
        """The term's kept postings, made on first need (``found``: its segment postings); None if absent."""
        entry = self._post.get(term)
        if entry is None and not self.forms:
            return None
        if not isinstance(entry, Postings):
            entry = self._pack(term, entry, found)
            # An absent term stays as an empty entry: no rescan of the segments.
            self._post[term] = entry
            self._any_packed = True
        return entry if entry.docs else None

    def _pack(self, term: str, raw: array[int] | None, found: tuple[array[int], array[int]] | None = None) -> Postings:
        """Postings from the segments (``found``, or searched now) plus raw occurrences, ascending, live only."""
        if found is None:
            found = self.segment_postings(term)
            assert found is not None  # asked without should_stop: never stopped
        docs, tfs = found
        if raw is not None:
            counted = Counter(raw)
            ordered: dict[int, int] = counted
            if docs and docs[-1] > raw[0]:
                # A cold build interleaved segments with docs tokenized one by
                # one (a file that could not be scanned): merge in order.
                counted.update(dict(zip(docs, tfs)))
                docs, tfs = array("i"), array("i")
                ordered = dict(sorted(counted.items()))
            else:
                docs, tfs = array("i", docs), array("i", tfs)  # ``found`` stays the caller's
            docs.extend(ordered.keys())
            tfs.extend(ordered.values())
        if self.n_alive != len(self._dl):
            keep = bytes(map(self._alive.__getitem__, docs))
            docs, tfs = array("i", compress(docs, keep)), array("i", compress(tfs, keep))
        return Postings(docs, tfs)

    def _norm(self) -> tuple[float, float]:
        """``(a, b')`` with BM25's length norm ``k1·(1 − b + b·dl/avgdl) = a + b'·dl``."""
        n = self.n_alive
        avgdl = self.total_len / n if n else 1.0
        return K1 * (1.0 - B), K1 * B / (avgdl or 1.0)

    def _terms(self, query: Mapping[str, float]) -> list[tuple[Postings, float]]:
        """The query's present terms in query order, each with its weight ``w = qtf·idf·(k1 + 1)``.

        A query's first-use terms are searched in the segments together
        (:meth:`Segments.postings_many`: one pass over each segment).
        """
        fresh = [t for t in query if not isinstance(self._post.get(t), Postings)] if self.forms else []
        found = self.forms.postings_many(fresh) if len(fresh) > 1 else {}
        n = self.n_alive
        out: list[tuple[Postings, float]] = []
        for term, qtf in query.items():
            entry = self._packed(term, found.get(term))
            if entry is None or not qtf:
                continue
            w = qtf * idf(n, len(entry.docs)) * (K1 + 1.0)
            # The bigrams of a CJK word that never occurs apart have the very same
            # postings: one term of their summed weight scores every doc as the pair does.
            twin = next((i for i, (e, _) in enumerate(out) if e.docs == entry.docs and e.tfs == entry.tfs), None)
            if twin is None:
                out.append((entry, w))
            else:
                out[twin] = (out[twin][0], out[twin][1] + w)
        return out

    # -- the top k -----------------------------------------------------------

    def search(self, query: Mapping[str, float], k: int) -> list[tuple[int, float]]:
        """Top ``k`` ``(doc, score)`` for query term counts, best first.

        Ties are broken by ascending doc id (index order), so results are
        deterministic. Query weights are term counts, or any non-negative
        weights: BM25 is linear in each term's weight. The numpy path
        (:meth:`_search_numpy`) once :func:`vectorized.active` says so,
        else the pure reference (:meth:`_search_pure`).
        """
        if k <= 0 or not self.n_alive:
            return []
        terms = self._terms(query)
        if not terms:
            return []
        if vectorized.active(sum(len(entry.docs) for entry, _ in terms)):
            return self._search_numpy(terms, k)
        return self._search_pure(terms, k)

    def _search_pure(self, terms: list[tuple[Postings, float]], k: int) -> list[tuple[int, float]]:
        """The reference scorer: every posting's contribution added into its doc's sum, terms in order.

        Each term's contributions are computed in C-level maps (the formula
        of the module docstring, operation for operation).
        """
        a, b = self._norm()
        dl = self._dl
        acc: dict[int, float] = {}
        for entry, w in terms:
            docs, tfs = entry.docs, entry.tfs
            norms = map(add, map(a.__radd__, tfs), map(b.__mul__, map(dl.__getitem__, docs)))
            values = map(w.__mul__, map(truediv, tfs, norms))
            acc.update(zip(docs, map(add, map(acc.get, docs, repeat(0.0)), values)))
        return _best(acc, k)

    def _lengths(self, np: Any) -> Any:
        """The doc lengths as a numpy array covering every doc (copied again when docs were added)."""
        lengths = self._np_lengths
        if lengths is None or len(lengths) < len(self._dl):
            lengths = self._np_lengths = np.frombuffer(self._dl[:], dtype=np.int32).astype(np.float64)
        return lengths

    def _scores(self, np: Any) -> Any:
        """This thread's dense score array, zeros, covering every doc (allocated once, not per query)."""
        scores = getattr(self._scratch, "scores", None)
        if scores is None or len(scores) < len(self._dl):
            scores = self._scratch.scores = np.zeros(len(self._dl) + len(self._dl) // 8 + 1024)
        return scores

    def _search_numpy(self, terms: list[tuple[Postings, float]], k: int) -> list[tuple[int, float]]:
        """Term at a time into a dense score array, then the top k by ``partition``.

        The same formula (``w`` times a kept impact) and the same order of
        additions per doc as :meth:`_search_pure`: each term's values are added into the dense array (a term's
        docs are distinct) in query order, from 0.0. The
        candidates are the postings' docs, a doc once per term that holds
        it: the ``k x terms`` best of them hold at least ``k`` distinct
        docs, so every doc scoring at least the least of them -- ties
        included -- is kept, then ordered. One term alone: :meth:`Postings.ranked`.
        """
        np = vectorized.numpy_module()
        a, b = self._norm()
        lengths = self._lengths(np)
        if len(terms) == 1:
            entry, w = terms[0]
            return entry.ranked(np, lengths, a, b, w, k)
        scores = self._scores(np)
        held = [entry.arrays(np, lengths, a, b) for entry, _ in terms]
        n = len(self._dl)
        # Postings covering a large share of the store: the top k is read off the dense array (_top_of).
        cand = None if sum(len(docs) for docs, _ in held) * _DENSE_SHARE >= n else np.concatenate(
            [docs for docs, _ in held])
        try:
            for (docs, impact), (_, w) in zip(held, terms):
                np.add.at(scores, docs, w * impact)  # unbuffered: one pass, where += gathers, adds and scatters
            if cand is None:
                return _top_of(np, scores[:n], k)
            values = scores[cand]
        finally:
            if cand is None:
                scores[:n] = 0.0
            else:
                scores[cand] = 0.0
        m = min(len(values), k * len(terms))
        cut = np.partition(values, len(values) - m)[len(values) - m]
        keep = values >= cut
        docs, found = cand[keep], values[keep]
        order = np.lexsort((docs, -found))
        # A doc held by several terms is there once per term, with the very same sum: kept once.
        return list(islice(dict.fromkeys(zip(docs[order].tolist(), found[order].tolist())), k))

    # -- chosen docs ---------------------------------------------------------

    def _scores_of(self, terms: list[tuple[Postings, float]], docs: list[int]) -> list[float]:
        """The scores of ``docs`` (0.0: no query term), term by term in C-level maps, as the search sums them."""
        a, b = self._norm()
        lengths = list(map(b.__mul__, map(self._dl.__getitem__, docs)))
        scores = [0.0] * len(docs)
        for entry, w in terms:
            tf = entry.tfs_of(docs)
            parts = map(w.__mul__, map(truediv, tf, map(add, map(a.__radd__, tf), lengths)))
            scores = list(map(add, scores, parts))
        return scores

    def score_docs(
        self, query: Mapping[str, float], docs: Iterable[int], *, weak: Collection[str] = (),
    ) -> dict[int, float]:
        """BM25 scores of chosen docs (cosine candidates to fuse, a hit's file neighbours).

        ``weak`` terms (a query's function words) never make a match alone:
        a doc that matches only those scores 0.
        """
        terms = self._terms(query)
        docs = list(docs)
        scores = dict(zip(docs, self._scores_of(terms, docs)))
        if weak and docs:
            strong = set(query).difference(weak)
            for doc, has in zip(docs, self.matched_docs(strong, docs)):
                if not has:
                    scores[doc] = 0.0
        return scores

    def score_external(self, query: Mapping[str, float], tokens: list[str]) -> float:
        """BM25 of a document outside the index, scored with the index's stats.

        Used for diary entries in a time window: idf and the average length
        come from the indexed (wiki) documents only, so opening a window never
        changes a wiki item's score. A term the wiki lacks gets the maximal
        idf (df = 0); an empty index falls back to the document's own length
        as the average.
        """
        n = self.n_alive
        avgdl = self.total_len / n if n else float(len(tokens) or 1)
        dl = len(tokens)
        counts = Counter(tokens)
        score = 0.0
        for term, qtf in query.items():
            tf = counts.get(term, 0)
            if tf:
                entry = self._packed(term)
                df = len(entry.docs) if entry is not None else 0
                norm = K1 * (1.0 - B + B * dl / (avgdl or 1.0))
                score += qtf * idf(n, df) * tf * (K1 + 1.0) / (tf + norm)
        return score

    def matched_docs(self, query: Iterable[str], docs: list[int]) -> list[list[str]]:
        """:meth:`matched` of several docs (a result page's rows): each term's postings are found once."""
        out: list[list[str]] = [[] for _ in docs]
        for term in sorted(set(query)):  # ascending: each row comes out sorted, as matched() sorts
            entry = self._packed(term)
            if entry is None:
                continue
            for row, tf in zip(out, entry.tfs_of(docs)):
                if tf:
                    row.append(term)
        return out

    def matched(self, query: Iterable[str], doc: int) -> list[str]:
        """The query terms present in ``doc``, sorted."""
        out = []
        for term in set(query):
            entry = self._packed(term)
            if entry is not None and entry.tf(doc):
                out.append(term)
        return sorted(out)
