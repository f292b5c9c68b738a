"""Scores and matched terms of chosen docs: the search's scores, after writes too, on both paths.

``InvertedIndex.score_docs`` and ``matched_docs`` answer for docs chosen
elsewhere (fusion candidates, a result page's rows). These tests hold them
to brute-force BM25 and to the search, with tfs up to hundreds and docs
added and removed after the lists were kept, and hold that a short list is
read whole while a long one is bisected.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from tests.test_bm25 import _brute

from wikimem.index import bm25, vectorized
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
def test_one_term_search_after_writes_gives_the_chosen_docs_scores(monkeypatch: pytest.MonkeyPatch, numpy_on: bool) -> None:
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
            index.search({term: 1}, 10)  # lists kept at the statistics of the moment
        for tokens in docs[2900:]:
            index.add(tokens)
        for d in (5, 800, 2950):
            index.remove(d, docs[d])
        alive = set(range(3000)) - {5, 800, 2950}
        for term, k in (("c", 10), ("c", 50), ("r", 3), ("f1", 10), ("f1", 200)):
            got = index.search(Counter([term]), k)
            chosen = index.score_docs(Counter([term]), [d for d, _ in got])
            assert all(math.isclose(s, chosen[d], rel_tol=1e-9) for d, s in got), term
            expected = sorted(_brute(docs, [term], alive).items(), key=lambda ds: (-ds[1], ds[0]))[:k]
            assert [d for d, _ in got] == [d for d, _ in expected], term
    finally:
        vectorized.switch(None)


def test_a_short_list_is_read_whole_and_a_long_one_bisected_with_the_same_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _docs(5, 2000)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    index.search({"c": 1, "r": 1}, 10)
    docs.append(["c", "r", "r", "x"])
    index.add(docs[-1])  # as right after a write
    short = next(e for e, _ in index._terms(Counter(["c", "r"])) if len(e.docs) < 40)
    chosen = [*short.docs[:4], 7, 2000]  # held docs, one in neither list or only in the long one
    bisected: list[int] = []
    real = bm25.bisect_left
    monkeypatch.setattr(bm25, "bisect_left", lambda a, x: bisected.append(len(a)) or real(a, x))
    got = index.score_docs(Counter(["c", "r"]), chosen)
    expected = _brute(docs, ["c", "r"], set(range(len(docs))))
    assert all(math.isclose(got[d], expected.get(d, 0.0), rel_tol=1e-9) for d in chosen)
    assert bisected and all(n > 16 * len(chosen) for n in bisected)  # only the long list was bisected


def test_matched_terms_of_a_page_are_each_docs_own(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _docs(6, 2000)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    index.search({"c": 1, "r": 1, "f2": 1}, 10)
    index.remove(97, docs[97])
    page = [0, 5, 97, 194, 1999, 388, 13]
    query = ["r", "c", "f2", "absent", "r"]
    each = [index.matched(query, d) for d in page]
    bisected: list[int] = []
    real = bm25.bisect_left
    monkeypatch.setattr(bm25, "bisect_left", lambda a, x: bisected.append(len(a)) or real(a, x))
    assert index.matched_docs(query, page) == each
    assert bisected and all(n > 16 * len(page) for n in bisected)  # "r" (21 docs) was read whole
