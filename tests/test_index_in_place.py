"""A removal deletes its postings in place, and the index is then what filtering and rebuilding would make.

``InvertedIndex.remove`` takes the doc out of each kept list right away
instead of leaving it for a filter. These tests remove the very docs the
queries rank first, then check the answers against brute force and each
list against one made from scratch.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from tests.test_bm25 import _brute, _zipf_corpus
from wikimem.index.bm25 import InvertedIndex
from wikimem.index.bm25 import Postings

pytestmark = pytest.mark.usefixtures("index_path")


def _check_entry(entry: Postings, docs: list[list[str]], term: str, alive: set[int]) -> None:
    """The list holds exactly the live docs with the term, with their tfs."""
    expected = [d for d in sorted(alive) if term in docs[d]]
    assert list(entry.docs) == expected, term
    assert list(entry.tfs) == [Counter(docs[d])[term] for d in expected], term


@pytest.mark.parametrize("k", [1, 3, 10])
def test_removing_the_top_hits_leaves_lists_as_a_rebuild_would(k: int) -> None:
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
            for doc, _ in index.search(Counter(query), k):  # keeps lists; their best docs go next
                removed.add(doc)
        for doc in sorted(removed):
            index.remove(doc, docs[doc])
        alive -= removed
        for term in pool:
            entry = index._post.get(term)
            if isinstance(entry, Postings):
                _check_entry(entry, docs, term, alive)
        for query in queries:
            expected = sorted(_brute(docs, query, alive).items(), key=lambda ds: (-ds[1], ds[0]))[:k]
            got = index.search(Counter(query), k)
            assert [d for d, _ in got] == [d for d, _ in expected], query
            assert all(math.isclose(g, e, rel_tol=1e-9) for (_, g), (_, e) in zip(got, expected)), query


def test_a_list_that_lacks_the_removed_doc_keeps_its_answers() -> None:
    # The doc's tokens name a term whose list does not hold it (not what the
    # index made, but the answers must still be right).
    docs = _zipf_corpus(23, 300)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    index.search({"w0": 1}, 3)
    entry = index._post["w0"]
    assert isinstance(entry, Postings)
    lacking = next(d for d in range(len(docs)) if "w0" not in docs[d])
    index.remove(lacking, docs[lacking] + ["w0"])
    alive = set(range(len(docs))) - {lacking}
    got = index.search({"w0": 1}, 5)
    expected = sorted(_brute(docs, ["w0"], alive).items(), key=lambda ds: (-ds[1], ds[0]))[:5]
    assert [d for d, _ in got] == [d for d, _ in expected]
    _check_entry(entry, docs, "w0", alive)
