"""A rare term beside a common one ranks like brute force: ties at the k-th place, k above the rare docs, writes.

The query right after an ``add()`` of its own words has this shape: a term
in a handful of docs beside one in most of them. The search is held to
brute-force BM25 on both index paths: ties cut at the k-th place, k above
the rare docs, a common term that alone outranks the rare docs, and
lists kept before writes moved N and the average length.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.test_bm25 import _brute
from wikimem.index.scoring.bm25 import InvertedIndex

#: Both index paths (pure Python and numpy, the latter for every list however short).
pytestmark = pytest.mark.usefixtures("index_path")

Ranked = list[tuple[int, float]]


def _ranked(scores: Ranked | dict[int, float]) -> Ranked:
    """Best first, ties by ascending doc id: the order ``InvertedIndex.search`` answers in."""
    pairs = scores.items() if isinstance(scores, dict) else scores
    return sorted(pairs, key=lambda ds: (-ds[1], ds[0]))


def _rounded(pairs: Ranked) -> Ranked:
    return [(d, round(s, 9)) for d, s in pairs]


def _background(seed: int, n: int, common_share: float) -> list[list[str]]:
    """``n`` short docs of filler words, ``common_share`` of them with the common term ``c`` (tf 1-3)."""
    rng = random.Random(seed)
    docs = []
    for _ in range(n):
        tokens = rng.choices([f"f{i}" for i in range(50)], k=rng.randint(4, 15))
        if rng.random() < common_share:
            tokens += ["c"] * rng.randint(1, 3)
        docs.append(tokens)
    return docs


def _with_rare(docs: list[list[str]], term: str, count: int, seed: int) -> list[int]:
    """``term`` added once to ``count`` docs picked at random; their ids, ascending."""
    picked = sorted(random.Random(seed).sample(range(len(docs)), count))
    for d in picked:
        docs[d].append(term)
    return picked


def _index(docs: list[list[str]]) -> InvertedIndex:
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    return index


def _assert_search_like_brute(docs: list[list[str]], query: list[str], k: int, index: InvertedIndex | None = None,
                              alive: set[int] | None = None) -> None:
    alive = set(range(len(docs))) if alive is None else alive
    index = _index(docs) if index is None else index
    expected = _ranked(_brute(docs, query, alive))[:k]
    assert _rounded(index.search(Counter(query), k)) == _rounded(expected), query


@pytest.mark.parametrize("k", [1, 5, 10])
@pytest.mark.parametrize("query", [["c", "r"], ["r", "c", "c"]], ids=["c-r", "r-c-c"])
def test_a_rare_term_beside_a_common_one_ranks_like_brute(query: list[str], k: int) -> None:
    docs = _background(1, 500, common_share=0.85)
    _with_rare(docs, "r", 12, seed=2)  # some of them hold c too: their full sums count it
    _assert_search_like_brute(docs, query, k)


def test_many_rare_docs_rank_like_brute_too() -> None:
    docs = _background(3, 800, common_share=0.9)
    _with_rare(docs, "r", 40, seed=4)
    _assert_search_like_brute(docs, ["c", "r"], 10)


@pytest.mark.parametrize("k", [5, 6, 8])
def test_docs_tied_at_the_kth_place_are_all_kept(k: int) -> None:
    docs = _background(5, 400, common_share=0.85)
    strong = [17, 230, 301, 388]  # the rare term twice in a short doc: above the tied ones
    tied = [12, 64, 150, 199, 260, 333]  # the very same tokens: the very same score
    for d in strong:
        docs[d] = ["r", "r", "f1"]
    for d in tied:
        docs[d] = ["r", "f1", "f2", "f3", "c"]
    _assert_search_like_brute(docs, ["c", "r"], k)


def test_two_rare_lists_rank_a_k_above_either_of_them() -> None:
    docs = _background(6, 500, common_share=0.85)
    first = set(_with_rare(docs, "r1", 6, seed=7))
    second = set(_with_rare(docs, "r2", 6, seed=8))
    k = max(len(first), len(second)) + 2
    assert len(first | second) >= k
    _assert_search_like_brute(docs, ["c", "r1", "r2"], k)


def test_k_above_the_rare_docs_ranks_with_the_common_terms_top() -> None:
    docs = _background(9, 500, common_share=0.85)
    rare = _with_rare(docs, "r", 5, seed=10)
    k = 8
    expected = _ranked(_brute(docs, ["c", "r"], set(range(len(docs)))))[:k]
    assert {d for d, _ in expected} - set(rare), "the top k must hold docs with only the common term"
    _assert_search_like_brute(docs, ["c", "r"], k)


@pytest.mark.parametrize("k", [1, 3])
def test_a_common_term_that_alone_outranks_the_rare_docs_ranks_like_brute(k: int) -> None:
    docs = _background(11, 600, common_share=0.3)
    for d in (40, 41, 420):
        docs[d] = ["c"] * 8  # the common term alone, often, in a short doc
    for d in _with_rare(docs, "r", 8, seed=12):
        docs[d] += [f"f{i % 50}" for i in range(300)]  # once, in a long doc: a small share each
    expected = _ranked(_brute(docs, ["c", "r"], set(range(len(docs)))))[:k]
    assert {d for d, _ in expected} <= {40, 41, 420}, "the common term alone must rank first"
    _assert_search_like_brute(docs, ["c", "r"], k)


def test_after_writes_the_kept_lists_still_rank_like_brute() -> None:
    docs = _background(13, 600, common_share=0.85)
    _with_rare(docs, "r", 12, seed=14)
    docs[597].append("r")
    index = _index(docs[:595])
    index.search(Counter(["c", "r"]), 5)  # lists kept for this N and length
    for d in range(595, 600):
        index.add(docs[d])  # N and the average length move a little
    removed = next(d for d in range(600) if "r" not in docs[d] and "c" in docs[d])
    index.remove(removed, docs[removed])
    alive = set(range(600)) - {removed}
    _assert_search_like_brute(docs, ["c", "r"], 5, index=index, alive=alive)


# 43: a k where a doc of the exact top k scores below the k-th best at the statistics before the adds.
@pytest.mark.parametrize("k", [1, 5, 20, 43, 60])
def test_after_adds_every_k_ranks_like_brute(k: int) -> None:
    docs = _background(23, 1000, common_share=0.85)
    _with_rare(docs, "r", 200, seed=24)
    index = _index(docs[:990])
    index.search(Counter(["c", "r"]), 5)  # lists kept for this N and length
    for d in range(990, 1000):
        index.add(docs[d])
    _assert_search_like_brute(docs, ["c", "r"], k, index=index)
