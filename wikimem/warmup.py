"""Warming an index up: postings materialized ahead of queries, in lock-sized chunks.

Design constraint: a warm-up runs in a worker next to live queries and
writes, so it must never hold the index lock for long and must leave the
index, after every chunk, in a state its lazy paths serve exactly. It is
bound to a corpus, not an index: a rebuild or compaction swaps the corpus,
and a warm-up of the old one must stop rather than race the new one.
Optional: the library never calls it by itself (``MemoryIndex.warm``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from wikimem.corpus import WikiCorpus
from wikimem.scan import scanned_occurrences

__all__ = ["WARM_MIN_OCCURRENCES", "warm_up"]


#: Raw terms with this many occurrences are packed by a warm-up; rarer ones
#: pack in well under a millisecond on first use and stay compact until then.
WARM_MIN_OCCURRENCES = 1000
#: Occurrences packed per lock hold during a warm-up (a few ms of work).
_WARM_CHUNK = 100_000


def warm_up(
    current: Callable[[], WikiCorpus],
    lock: contextlib.AbstractContextManager[Any],
    progress: Callable[[int, int], None],
    should_stop: Callable[[], bool],
) -> bool:
    """Warm the current corpus's index; True when done, False if stopped or replaced.

    Each segment's occurrences are found without the lock (its forms never
    change) and folded in under it; then the common raw terms are packed, a
    chunk per lock hold, so queries interleave. Each step leaves the index
    in a state its lazy paths serve exactly, so writes in between stay
    consistent (see ``InvertedIndex.fold_segment``). A corpus
    swapped out meanwhile (rebuild, compaction) is abandoned: the caller
    warms the new one.
    """
    corpus = current()
    index = corpus.index
    total = index.segments_left + 1
    progress(0, total)
    for done in range(1, total):
        if should_stop():
            return False
        segment = index.oldest_segment()
        if segment is None:
            break
        occ = scanned_occurrences(*segment)
        with lock:
            if current() is not corpus:
                return False
            index.fold_segment(segment, occ)
        progress(done, total)
    with lock:
        if current() is not corpus:
            return False
        terms = index.unpacked_over(WARM_MIN_OCCURRENCES)
    chunks: list[list[str]] = [[]]
    size = 0
    for term, occurrences in terms:
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
    progress(total, total)
    return True
