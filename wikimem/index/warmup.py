"""Warming an index up: common terms packed ahead of queries, one lock hold per term.

Design constraint: a warm-up runs in a worker next to live queries and
writes, so it must never hold the index lock for long and must leave the
index, after every step, in a state its lazy paths serve exactly. The slow
part (searching a term's postings in the cold load's segments, which never
change) runs without the lock; only adopting the result takes it. It is
bound to a corpus, not an index: a rebuild or compaction swaps the corpus,
and a warm-up of the old one must stop rather than race the new one.

It packs the terms whose first use is slow -- the common ones, guessed from
a sample of the first segment (a Zipf vocabulary's head shows in any few
thousand docs) -- and not the whole vocabulary: at 1M items that would take
minutes and hundreds of MB, while a rare term's first use costs little. The
segment postings it found are handed to ``save`` (the postings cache), so
the next process with the same files skips the work.
Optional: the library never calls it by itself (``MemoryIndex.warm``).
"""

from __future__ import annotations

import contextlib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeAlias

from wikimem.index import vectorized
from wikimem.index.bm25 import InvertedIndex
from wikimem.index.corpus import WikiCorpus
from wikimem.index.inversion import invert
from wikimem.index.segment_cache import SegmentCache, write_segments

__all__ = ["WARM_MIN_OCCURRENCES", "WARM_SHARE", "warm_up", "write_tables"]


#: Raw terms (docs added one by one: jieba, writes) with this many
#: occurrences are packed; rarer ones pack in well under a millisecond.
WARM_MIN_OCCURRENCES = 1000
#: Segment terms in at least this share of the sampled docs are packed.
WARM_SHARE = 0.01
#: At most this many segment terms (the most common first).
WARM_MAX_TERMS = 2000
#: Raw occurrences packed per lock hold.
_WARM_CHUNK = 100_000

Postings: TypeAlias = "dict[str, tuple[array[int], array[int]]]"  # array is generic only to the type checker on 3.11


def warm_up(
    current: Callable[[], WikiCorpus],
    lock: contextlib.AbstractContextManager[Any],
    progress: Callable[[int, int], None],
    should_stop: Callable[[], bool],
    save: Callable[[WikiCorpus, dict[str, tuple[array[int], array[int], int]]], None] | None = None,
) -> bool:
    """Warm the current corpus's index; True when done, False if stopped or replaced.

    ``save(corpus, postings)`` receives the segment postings found (term ->
    doc ids, tfs, how many of them the cold load made) once every common
    term is packed. A corpus swapped out
    meanwhile (rebuild, compaction) is abandoned: the caller warms the new
    one.
    """
    corpus = current()
    index = corpus.index
    terms = index.forms.sample_common(WARM_SHARE, WARM_MAX_TERMS)
    with lock:
        if current() is not corpus:
            return False
        raw = index.unpacked_over(WARM_MIN_OCCURRENCES)
    total = len(terms) + 1
    progress(0, total)
    found: Postings = {}
    for done, term in enumerate(terms, 1):
        if should_stop():
            return False
        postings = index.segment_postings(term, should_stop)  # no lock: segments never change
        if postings is None:
            return False
        prepared = index.prepare(postings)  # impacts too: the lock is held for a swap only
        with lock:
            if current() is not corpus:
                return False
            index.adopt(term, prepared)
        found[term] = postings
        progress(done, total)
    chunks: list[list[str]] = [[]]
    size = 0
    for term, occurrences in raw:
        chunks[-1].append(term)
        size += occurrences
        if size >= _WARM_CHUNK:
            chunks.append([])
            size = 0
    for chunk in chunks:
        if should_stop():
            return False
        with lock:
            if current() is not corpus:
                return False
            index.pack(chunk)
    if save is not None and found:
        with lock:
            if current() is not corpus:
                return False
            # A packed term's arrays may be the very ones found here, and
            # writes append to them: the cache takes each one's cold-load prefix.
            end = index.load_end
            prefixes = {term: (docs, tfs, bisect_left(docs, end)) for term, (docs, tfs) in found.items()}
        save(corpus, prefixes)
    progress(total, total)
    return True


def write_tables(index: InvertedIndex, path: Path, should_stop: Callable[[], bool]) -> SegmentCache | None:
    """Write the segment cache of ``index``'s cold load to ``path`` and open it; None if stopped or not worth it.

    Needs the numpy path (:mod:`wikimem.index.inversion`). Segments the
    current file already holds are kept as they are; only the others are
    inverted (a store that changed one file re-inverts one segment). Reads
    only the immutable segments: no lock. The caller installs the result.

    Meanwhile each segment serves its first uses from its tables as soon as
    they are inverted: the index is given a growing cache
    (:meth:`SegmentCache.growing`; a plain attribute swap, which a query
    reads once) holding them in memory until the file is written -- at 1M
    items a query typed during the write no longer searches every segment.
    Stopped midway, the index gets back the cache it had.
    """
    np = vectorized.numpy_module()
    forms = index.forms
    keys = forms.keys
    if np is None or not any(keys):
        return None
    installed = forms.tables
    old = installed if installed is not None and installed.path == path else None
    if old is not None and old.covered() == sum(1 for key in keys if key is not None):
        return None  # every segment is there already
    growing = SegmentCache.growing(path, len(keys), np, old)
    forms.tables = growing

    def sections() -> Iterator[tuple[str, Any]]:
        for at, key in enumerate(keys):
            if key is None:
                continue
            if should_stop():
                raise _Stopped
            kept = _kept(old, at) if old is not None else None
            if kept is None:
                kept = invert(np, forms.scanned(at))
                growing.hold(at, *kept)
            yield key, kept

    try:
        write_segments(path, np, sections())
    except _Stopped:
        _give_back(forms, growing, installed)
        return None
    except BaseException:
        _give_back(forms, growing, installed)
        raise
    return SegmentCache.open(path, keys, np)


def _give_back(forms: Any, growing: SegmentCache, installed: SegmentCache | None) -> None:
    """The write did not finish: the index's tables as they were (unless something else replaced them)."""
    if forms.tables is growing:
        forms.tables = installed


class _Stopped(Exception):
    """The warm-up was told to stop midway: the temp file is dropped, the old cache stays."""


def _kept(old: SegmentCache, at: int) -> tuple[Any, Any] | None:
    """A held segment's halves as the writer copies them (keys checked, block CRCs kept); None: invert it."""
    if not old.holds(at):
        return None
    halves = old.half(at, True), old.half(at, False)
    return None if old.broken else halves
