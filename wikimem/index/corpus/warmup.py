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
thousand docs) -- and not the whole vocabulary, which on a large store would
cost far more time and memory than the rare terms' first uses it saves.
It writes nothing to disk: a later process finds its first uses again by
searching the segments.
Optional: the library never calls it by itself (``MemoryIndex.warm``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from wikimem.index.corpus.wiki import WikiCorpus

__all__ = ["WARM_MIN_OCCURRENCES", "WARM_SHARE", "warm_up"]


#: Raw terms (docs added one by one: jieba, writes) with this many
#: occurrences are packed; rarer ones pack in well under a millisecond.
WARM_MIN_OCCURRENCES = 1000
#: Segment terms in at least this share of the sampled docs are packed.
WARM_SHARE = 0.01
#: At most this many segment terms (the most common first).
WARM_MAX_TERMS = 2000
#: Raw occurrences packed per lock hold.
_WARM_CHUNK = 100_000


def warm_up(
    current: Callable[[], WikiCorpus],
    lock: contextlib.AbstractContextManager[Any],
    progress: Callable[[int, int], None],
    should_stop: Callable[[], bool],
) -> bool:
    """Warm the current corpus's index; True when done, False if stopped or replaced.

    A corpus swapped out meanwhile (rebuild, compaction) is abandoned: the
    caller warms the new one.
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
    for done, term in enumerate(terms, 1):
        if should_stop():
            return False
        postings = index.segment_postings(term, should_stop)  # no lock: segments never change
        if postings is None:
            return False
        with lock:  # held for a swap only
            if current() is not corpus:
                return False
            index.adopt(term, postings)
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
    progress(total, total)
    return True
