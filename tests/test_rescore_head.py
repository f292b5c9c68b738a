"""A one-term search after a write rescores its pool from the head's impacts: the bisects' floats, to the bit.

``wikimem.index.doc_scores._head_tfs`` recovers each pooled doc's tf from
its cached impact instead of a bisect per doc (the query right after an
``add()`` always rescores: every cache is slightly stale). These tests
hold the result to ``_exact`` (the per-doc oracle), with tfs up to
hundreds, docs added and removed after the heads were built, the numpy
path on and off, and hold that the shortcut is the one taken; and a pool
that is not the head's prefix falls back to the bisects.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from tests.test_bm25 import _brute

from wikimem.index import doc_scores, vectorized
from wikimem.index.bm25 import InvertedIndex


def _docs(seed: int, n: int) -> list[list[str]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        tokens = rng.choices([f"f{j}" for j in range(30)], k=rng.randint(3, 40))
        if rng.random() < 0.4:
            tokens += ["c"] * rng.choice([1, 1, 2, 3, 7, 40, 300])  # tfs far from 1: the recovery must round right
        if i % 97 == 0:
            tokens += ["r"] * rng.randint(1, 4)
        out.append(tokens)
    return out


@pytest.mark.parametrize("numpy_on", [False, True])
def test_one_term_rescoring_after_writes_is_the_exact_floats(monkeypatch: pytest.MonkeyPatch, numpy_on: bool) -> None:
    if numpy_on and vectorized.numpy_module() is None:
        pytest.skip("numpy not installed")
    vectorized.switch(numpy_on)
    monkeypatch.setattr(vectorized, "LOADED_MIN", 1)  # the numpy path for these short lists too
    try:
        docs = _docs(3, 3000)
        index = InvertedIndex()
        for tokens in docs[:2900]:
            index.add_bulk(tokens)
        for term in ("c", "r", "f1"):
            index.search({term: 1}, 10)  # heads and impacts at the statistics of the moment
        for tokens in docs[2900:]:
            index.add(tokens)  # every cache now stale (rho < 1), the heads appended to
        for d in (5, 800, 2950):
            index.remove(d, docs[d])
        alive = set(range(3000)) - {5, 800, 2950}
        taken: list[bool] = []
        real = doc_scores._head_tfs
        monkeypatch.setattr(doc_scores, "_head_tfs", lambda *a: taken.append(real(*a) is not None) or real(*a))
        for term, k in (("c", 10), ("c", 50), ("r", 3), ("f1", 10), ("f1", 200)):
            got = index.search(Counter([term]), k)
            terms, rho = index._terms(Counter([term]))
            assert rho < 1.0
            assert got == sorted(((d, index._exact(terms, d)) for d, _ in got), key=lambda ds: (-ds[1], ds[0]))
            expected = sorted(_brute(docs, [term], alive).items(), key=lambda ds: (-ds[1], ds[0]))[:k]
            assert [d for d, _ in got] == [d for d, _ in expected], term
        assert taken and all(taken)
    finally:
        vectorized.switch(None)


def test_a_pool_that_is_not_the_heads_prefix_goes_to_the_bisects() -> None:
    docs = _docs(4, 1500)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    index.search({"c": 1}, 10)
    index.add(["c", "c", "x"])
    terms, _ = index._terms(Counter(["c"]))
    entry = terms[0].entry
    head = list(entry.head.docs[:5])
    a, _ = index._norm()
    dls = [index._dl[d] for d in head]
    assert doc_scores._head_tfs(entry, head, dls, a) == [entry.tfs[list(entry.docs).index(d)] for d in head]
    shuffled = head[1:] + head[:1]
    assert doc_scores._head_tfs(entry, shuffled, [index._dl[d] for d in shuffled], a) is None
    assert index._exact_many(terms, shuffled) == [index._exact(terms, d) for d in shuffled]
    assert index._exact_many(terms, head) == [index._exact(terms, d) for d in head]


def test_a_short_list_is_read_whole_and_a_long_one_bisected_with_the_same_floats(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _docs(5, 2000)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    index.search({"c": 1, "r": 1}, 10)
    index.add(["c", "r", "r", "x"])  # stale caches, as right after a write
    terms, _ = index._terms(Counter(["c", "r"]))
    short = next(t for t in terms if len(t.entry.docs) < 40)
    chosen = [*short.entry.docs[:4], 7, 2000]  # held docs, one in neither list or only in the long one
    bisected: list[int] = []
    real = doc_scores.bisect_left
    monkeypatch.setattr(doc_scores, "bisect_left", lambda a, x: bisected.append(len(a)) or real(a, x))
    got = index._exact_many(terms, chosen)
    assert got == [index._exact(terms, d) for d in chosen]
    assert bisected and all(n > 16 * len(chosen) for n in bisected)  # only the long list was bisected


def test_matched_terms_of_a_page_are_each_docs_own(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _docs(6, 2000)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    index.search({"c": 1, "r": 1, "f2": 1}, 10)
    index.remove(97, docs[97])
    page = [0, 5, 97, 194, 1999, 388, 13]
    bisected: list[int] = []
    real = doc_scores.bisect_left
    monkeypatch.setattr(doc_scores, "bisect_left", lambda a, x: bisected.append(len(a)) or real(a, x))
    query = ["r", "c", "f2", "absent", "r"]
    assert index.matched_docs(query, page) == [index.matched(query, d) for d in page]
    assert bisected and all(n > 16 * len(page) for n in bisected)  # "r" (21 docs) was read whole
