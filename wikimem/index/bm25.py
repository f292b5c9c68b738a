"""An in-memory BM25 inverted index built for pure-Python speed; never persisted.

The index is derived state: it lives in memory and is rebuilt from the
markdown at startup. Everything here is shaped by what CPython does fast:

* Postings are ``array('i')`` pairs (doc ids ascending, term frequencies),
  not dicts of Counters: 8 bytes per posting instead of ~100.
* A cold build posts nothing. It keeps each batch of documents (a group of
  files, a few thousand items) as searchable forms made by a few C-level
  passes (:mod:`wikimem.index.scan`) plus their lengths; the first query that
  needs a term finds its postings with one search per batch and, in the
  batches that hold it, one ``split`` whose pieces tell each occurrence's
  document (:func:`wikimem.index.scan.scan_postings`); the result is cached. Documents
  added later (or tokenized one by one: jieba, files that cannot be
  scanned) append each token occurrence to the term's raw occurrence array
  (C-level ``map``, no bytecode per token); packing merges both.
* Removal is a tombstone (``alive[d] = 0``) plus the removed document's
  postings deleted in place from its terms' packed lists and heads (raw
  occurrence arrays are filtered when packed, C-level ``compress``). Doc
  ids are never reused, so postings stay sorted and ``bisect`` can probe
  them; :meth:`needs_compaction` tells the owner when tombstones outnumber
  live documents and a rebuild pays.
* A query is term-at-a-time with MaxScore pruning (:mod:`wikimem.index.maxscore`)
  over per-term cached per-posting contributions. A write makes every
  cache slightly stale (N and the average length move); rather than
  recomputing long lists after each ``add()``, a query bounds the drift,
  keeps every candidate that could still make the top k and rescores
  those few exactly. Cost follows the query terms' posting lists, not N.
* An optional warm-up (:func:`wikimem.index.warmup.warm_up`) packs the common
  terms before any query needs them; their segment postings can be saved
  to and read back from a derived on-disk cache
  (:mod:`wikimem.index.postings_cache`), so a later process with the same files
  finds them with one read instead of a scan.

The scores and matched terms of docs chosen elsewhere (fusion candidates,
file neighbours, result rows) are :mod:`wikimem.index.doc_scores`.

Scoring is Okapi BM25 (k1 = 1.5, b = 0.75) with the always-positive idf
``ln(1 + (N - df + 0.5) / (df + 0.5))`` (Lucene's), so a term present in
every document still counts a little instead of going negative.
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from itertools import compress, repeat
from operator import add, attrgetter, truediv

from wikimem.index import vectorized
from wikimem.index.doc_scores import B, K1, DocScores, idf
from wikimem.index.impact_order import note_added
from wikimem.index.maxscore import Term, candidates
from wikimem.index.packed import Packed, drop_posting, merged
from wikimem.index.postings_cache import PostingsCache
from wikimem.index.scan import ScannedTexts
from wikimem.index.segments import Segments

__all__ = ["B", "K1", "InvertedIndex", "idf"]

_new_occurrences = partial(array, "i")


class InvertedIndex(DocScores):
    """BM25 over integer doc ids; callers keep the documents themselves."""

    def __init__(self) -> None:
        # term -> raw occurrence array (cold build) or Packed (after first use).
        # A defaultdict so the cold path creates arrays in C; lookups that must
        # not create entries use .get().
        self._post: defaultdict[str, array[int] | Packed] = defaultdict(_new_occurrences)
        self._any_packed = False
        #: The batches of docs added by add_scanned, and their caches.
        self.forms = Segments()
        #: Doc lengths for the numpy path (a copy: see :mod:`wikimem.index.vectorized`).
        self._lengths = vectorized.Lengths()
        #: Docs of the cold load (set by its owner when it ends): later ids are writes.
        self.load_end = 0
        self._dl = array("i")
        self._alive = bytearray()
        self.n_alive = 0
        self.total_len = 0

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

    def add_scanned(self, scanned: ScannedTexts, key: str | None = None) -> range:
        """Add a batch of docs (cold path only) as one segment; returns their ids.

        ``key``: what the segment was made of (:func:`wikimem.index.segment_cache.segment_key`),
        for the segment cache; None: never cached.
        """
        if not self.cold:
            raise RuntimeError("add_scanned() is for cold builds; use add()")
        base = len(self._dl)
        n = len(scanned.lengths)
        self.forms.add(base, scanned, key)
        self._dl.extend(scanned.lengths)
        self._alive.extend(repeat(1, n))
        self.n_alive += n
        self.total_len += sum(scanned.lengths)
        return range(base, base + n)

    def add(self, tokens: list[str]) -> int:
        """Add one document incrementally (after a write); returns its doc id."""
        doc = self._new_doc(len(tokens))
        dl = len(tokens)
        post = self._post
        for term, tf in Counter(tokens).items():
            entry = post.get(term)
            if entry is None:
                post[term] = array("i", repeat(doc, tf))
            elif isinstance(entry, array):
                entry.extend(repeat(doc, tf))
            else:
                entry.docs.append(doc)
                entry.tfs.append(tf)
                if entry.impact is not None:
                    # Same (possibly stale) parameters as the rest of the cache.
                    value = entry.impact_idf * (K1 + 1.0) * tf / (tf + K1 * (1.0 - B) + entry.impact_b * dl)
                    entry.impact.append(value)
                    entry.impact_max = max(entry.impact_max, value)
                    note_added(entry, doc, value)
        return doc

    def remove(self, doc: int, tokens: Iterable[str]) -> None:
        """Tombstone ``doc``; ``tokens`` are its terms, whose packed postings drop it in place.

        One posting out of each list (a bisect and a C-level delete), the
        same arrays a filter of the whole list would leave; the head too
        (:func:`wikimem.index.impact_order.note_removed`). Filtering every
        list whole and rebuilding its head on the next query cost ~5 ms
        after one update at 100k items. A list that does not hold the doc
        where it should is marked dirty and filtered as before.
        """
        if not self._alive[doc]:
            return
        self._alive[doc] = 0
        self.n_alive -= 1
        self.total_len -= self._dl[doc]
        post = self._post
        for term in set(tokens):
            entry = post.get(term)
            if isinstance(entry, Packed) and not entry.dirty and not drop_posting(entry, doc):
                entry.dirty = True

    # -- warming up (optional; see MemoryIndex.warm) ---------------------------

    @property
    def segments(self) -> int:
        """Segments of the cold load (the postings caches' unit)."""
        return len(self.forms)

    @property
    def cache(self) -> PostingsCache | None:
        """Postings of the segments' common terms from an earlier process (or None)."""
        return self.forms.cache

    @cache.setter
    def cache(self, cache: PostingsCache | None) -> None:
        self.forms.cache = cache

    def segment_postings(
        self, term: str, should_stop: Callable[[], bool] | None = None
    ) -> tuple[array[int], array[int]] | None:
        """``term``'s doc ids and tfs in the cold load's segments: see :meth:`Segments.postings`."""
        return self.forms.postings(term, should_stop)

    def prepare(self, found: tuple[array[int], array[int]]) -> Packed:
        """A packed entry from :meth:`segment_postings`, impacts included, made without the lock.

        The impacts use the statistics of the moment; a write meanwhile
        makes them slightly stale, which queries bound and repair (see
        :meth:`_terms`), as after any write.
        """
        entry = Packed(*found)
        if entry.docs:
            n, (_, b) = self.n_alive, self._norm()
            self._refresh_impacts(entry, idf(n, len(entry.docs)), b)
        return entry

    def adopt(self, term: str, prepared: Packed) -> None:
        """Install a :meth:`prepare`-d term unless a query packed it first (under the lock).

        With no raw occurrences of the term and no removed doc it is
        exact as it is (a pointer swap: the lock is held for nothing
        else); otherwise it is merged like a first use.
        """
        entry = self._post.get(term)
        if isinstance(entry, Packed):
            return
        if entry is None and self.n_alive == len(self._dl):
            packed = prepared
        else:
            packed = self._pack(term, entry, (prepared.docs, prepared.tfs))
            if packed.docs:
                n, (_, b) = self.n_alive, self._norm()
                self._refresh_impacts(packed, idf(n, len(packed.docs)), b)
        self._post[term] = packed
        self._any_packed = True

    def unpacked_over(self, occurrences: int) -> list[tuple[str, int]]:
        """Raw terms with at least that many occurrences, and that count (under the lock)."""
        return [(t, len(e)) for t, e in self._post.items() if type(e) is array and len(e) >= occurrences]

    def pack(self, terms: Iterable[str]) -> None:
        """Pack ``terms`` and cache their impacts, as their first query would (under the lock)."""
        n, (_, b) = self.n_alive, self._norm()
        for term in terms:
            entry = self._packed(term)
            if entry is not None and entry.impact is None:
                self._refresh_impacts(entry, idf(n, len(entry.docs)), b)

    def needs_compaction(self) -> bool:
        """Tombstones outnumber live docs by enough that a rebuild is cheaper."""
        dead = len(self._dl) - self.n_alive
        return dead > 10_000 and dead > self.n_alive

    def __len__(self) -> int:
        return self.n_alive

    # -- reading -------------------------------------------------------------

    def _packed(self, term: str, found: tuple[array[int], array[int]] | None = None) -> Packed | None:
        """The term's clean postings, packing or filtering them on first need (``found``: its segment postings)."""
        entry = self._post.get(term)
        if entry is None and not self.forms:
            return None
        if not isinstance(entry, Packed):
            entry = self._pack(term, entry, found)
            self._post[term] = entry
            self._any_packed = True
        elif entry.dirty:
            if vectorized.active(len(entry.docs)):
                vectorized.drop_dead(entry, self._alive)
            else:
                keep = bytes(map(self._alive.__getitem__, entry.docs))
                entry.docs = array("i", compress(entry.docs, keep))
                entry.tfs = array("i", compress(entry.tfs, keep))
                if entry.impact is not None:
                    entry.impact = array("d", compress(entry.impact, keep))
                    entry.impact_max = max(entry.impact, default=0.0)
            entry.head = None
            entry.dirty = False
        # An absent term stays as an empty entry: no rescan of the segments.
        return entry if entry.docs else None

    def _pack(self, term: str, raw: array[int] | None, found: tuple[array[int], array[int]] | None = None) -> Packed:
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
                docs, tfs = array("i", docs), array("i", tfs)  # ``found`` may be shared (a cache writer's)
            docs.extend(ordered.keys())
            tfs.extend(ordered.values())
        if self.n_alive != len(self._dl):
            keep = bytes(map(self._alive.__getitem__, docs))
            docs, tfs = array("i", compress(docs, keep)), array("i", compress(tfs, keep))
        return Packed(docs, tfs)

    def _norm(self) -> tuple[float, float]:
        """``(a, b)`` with BM25's length norm ``k1·(1 − b + b·dl/avgdl) = a + b·dl``."""
        n = self.n_alive
        avgdl = self.total_len / n if n else 1.0
        return K1 * (1.0 - B), K1 * B / (avgdl or 1.0)

    def _refresh_impacts(self, entry: Packed, idf_now: float, b: float) -> None:
        a = K1 * (1.0 - B)
        w = idf_now * (K1 + 1.0)
        # w·tf / (tf + a + b·dl) in C-level maps (the same operations in the same order, so the same floats).
        tfs = entry.tfs
        if vectorized.active(len(tfs)):
            lengths = self._lengths.upto(self._dl, entry.docs[-1])
            entry.impact, entry.impact_max = vectorized.impacts(entry.docs, tfs, lengths, w, a, b)
        else:
            lengths = map(b.__mul__, map(self._dl.__getitem__, entry.docs))
            entry.impact = array("d", map(truediv, map(w.__mul__, tfs), map(add, map(a.__radd__, tfs), lengths)))
            entry.impact_max = max(entry.impact)
        entry.impact_idf, entry.impact_b = idf_now, b
        entry.head = None

    def _terms(self, query: Mapping[str, float]) -> tuple[list[Term], float]:
        """The present query terms, best upper bound first, and the drift ratio.

        Each term's values are its cached impacts (times the query tf). A
        cache may be stale after writes: a posting's true contribution is
        its value times the exact idf ratio times a length-norm factor
        between 1 and ``b_cached / b_now`` (``tf / (tf + a + b·dl)`` moves
        monotonically with ``b``), so it lies in ``[lo, hi] x value``.
        Returns ``lo / hi`` over all terms (1.0 when every cache is exact);
        a cache drifting more than 2% is recomputed. Using stale values
        as they are costs nothing per posting; the few survivors are
        rescored exactly.
        """
        n = self.n_alive
        _, b_now = self._norm()
        lo = hi = 1.0
        out = []
        # A query's first-use terms searched together, segment by segment (Segments.postings_many).
        fresh = [t for t in query if not isinstance(self._post.get(t), Packed)] if self.forms else []
        found = self.forms.postings_many(fresh) if len(fresh) > 1 else {}
        for term, qtf in query.items():
            entry = self._packed(term, found.get(term))
            if entry is None:
                continue
            idf_now = idf(n, len(entry.docs))
            ratio = entry.impact_b / b_now
            drift = idf_now / entry.impact_idf if entry.impact_idf else 0.0
            if entry.impact is None or not (0.98 <= ratio <= 1.02 and 0.98 <= drift <= 1.02):
                self._refresh_impacts(entry, idf_now, b_now)
                ratio = drift = 1.0
            lo, hi = min(lo, drift * min(1.0, ratio)), max(hi, drift * max(1.0, ratio))
            out.append(Term(qtf * entry.impact_max, float(qtf), entry, qtf * idf_now * (K1 + 1.0)))
        out = merged(out)
        out.sort(key=attrgetter("ub"), reverse=True)
        return out, lo / hi

    def search(self, query: Mapping[str, float], k: int) -> list[tuple[int, float]]:
        """Top ``k`` ``(doc, score)`` for query term counts, best first.

        Ties are broken by ascending doc id (index order), so results are
        deterministic. Scores are exact BM25 for the index as it is now.
        Query weights are term counts, or any non-negative weights (an
        expanded query's added terms): BM25 is linear in each term's weight.
        """
        if k <= 0 or not self.n_alive:
            return []
        terms, rho = self._terms(query)
        if not terms:
            return []
        if vectorized.worth_walking([len(t.entry.docs) for t in terms], len(self._dl)):
            pool = vectorized.candidates(terms, k, rho)
        else:
            pool = candidates(terms, k, rho)
        if rho < 1.0:
            # Values were (slightly) stale: rescore the few survivors exactly.
            docs = [d for d, _ in pool]
            pool = list(zip(docs, self._exact_many(terms, docs)))
        return sorted(pool, key=lambda ds: (-ds[1], ds[0]))[:k]
