"""A removal deletes its postings in place, and the index is then what filtering and rebuilding would make.

``InvertedIndex.remove`` takes the doc out of each packed list and out of
its impact-ordered head right away (wikimem.index.packed.drop_posting,
impact_order.note_removed) instead of filtering every list whole and
rebuilding its head on the next query. These tests remove the very docs the
heads hold (the top hits), then check the answers against brute force and
each list and head against one made from scratch.
"""

from __future__ import annotations

import math
import random
from array import array
from collections import Counter

import pytest

from tests.test_bm25 import _brute, _zipf_corpus
from wikimem.index import impact_order
from wikimem.index.bm25 import InvertedIndex
from wikimem.index.packed import Packed

pytestmark = pytest.mark.usefixtures("index_path")


@pytest.fixture(autouse=True)
def _small_heads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small heads, seeds and no walking: a 2,000-doc corpus takes every head path a large one does."""
    monkeypatch.setattr("wikimem.index.maxscore._WALK_MAX", 0)
    monkeypatch.setattr("wikimem.index.impact_order.HEAD_MIN", 4)
    monkeypatch.setattr("wikimem.index.maxscore._SEED_MIN", 2)
    monkeypatch.setattr("wikimem.index.maxscore._SEED_DEPTH", 1)


def _check_entry(entry: Packed, docs: list[list[str]], term: str, alive: set[int]) -> None:
    """The list holds exactly the live docs with the term, and the head what a rebuild holds above its floor."""
    expected = [d for d in sorted(alive) if term in docs[d]]
    assert list(entry.docs) == expected, term
    assert list(entry.tfs) == [Counter(docs[d])[term] for d in expected], term
    if entry.impact is None:
        return
    assert len(entry.impact) == len(expected)
    assert entry.impact_max == max(entry.impact, default=0.0)
    head = entry.head
    if head is None:
        return
    rebuilt = sorted((-v, d) for d, v in zip(entry.docs, entry.impact) if v >= head.floor)
    assert list(zip(head.neg, head.docs)) == rebuilt, term


@pytest.mark.parametrize("k", [1, 3, 10])
def test_removing_the_top_hits_leaves_lists_and_heads_as_a_rebuild_would(k: int) -> None:
    docs = _zipf_corpus(21, 2000)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    rng = random.Random(22)
    pool = [f"w{i}" for i in range(30)]
    queries = [rng.choices(pool, k=rng.randint(1, 4)) for _ in range(25)]
    alive = set(range(len(docs)))
    for _ in range(3):
        removed = set()
        for query in queries:
            for doc, _ in index.search(Counter(query), k):  # builds heads; their best docs go next
                removed.add(doc)
        for doc in sorted(removed):
            index.remove(doc, docs[doc])
        alive -= removed
        for term in pool:
            entry = index._post.get(term)
            if isinstance(entry, Packed):
                assert not entry.dirty, term  # deleted in place, not left for a filter
                _check_entry(entry, docs, term, alive)
        for query in queries:
            expected = sorted(_brute(docs, query, alive).items(), key=lambda ds: (-ds[1], ds[0]))[:k]
            got = index.search(Counter(query), k)
            assert [d for d, _ in got] == [d for d, _ in expected], query
            assert all(math.isclose(g, e, rel_tol=1e-9) for (_, g), (_, e) in zip(got, expected)), query


def test_a_list_that_lacks_the_removed_doc_is_filtered_as_before() -> None:
    # The doc's tokens name a term whose list does not hold it (not what the
    # index made, but the fallback must still be right): marked dirty, filtered.
    docs = _zipf_corpus(23, 300)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    index.search({"w0": 1}, 3)
    entry = index._post["w0"]
    assert isinstance(entry, Packed)
    lacking = next(d for d in range(len(docs)) if "w0" not in docs[d])
    index.remove(lacking, docs[lacking] + ["w0"])
    assert entry.dirty
    alive = set(range(len(docs))) - {lacking}
    got = index.search({"w0": 1}, 5)
    expected = sorted(_brute(docs, ["w0"], alive).items(), key=lambda ds: (-ds[1], ds[0]))[:5]
    assert [d for d, _ in got] == [d for d, _ in expected]
    assert not entry.dirty


def test_the_sample_is_taken_again_once_the_list_moved_by_a_sixteenth() -> None:
    entry = Packed(array("i", range(1000)), array("i", [1] * 1000))
    entry.impact = array("d", [float(i % 97) for i in range(1000)])
    impact_order.count_above(entry, 50.0)
    head = entry.head
    first = head.sample
    assert first is not None and head.sampled == 1000
    for doc in range(1000, 1062):  # 62 more (under a sixteenth): the estimate is kept
        entry.docs.append(doc)
        entry.impact.append(96.0)
        impact_order.count_above(entry, 50.0)
    assert head.sample is first
    entry.docs.append(1062)
    entry.impact.append(96.0)
    impact_order.count_above(entry, 50.0)  # 63 more: over a sixteenth, sampled again
    assert head.sampled == 1063 and head.sample is not first
