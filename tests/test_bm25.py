"""The BM25 inverted index: scores are Okapi BM25 and both scorers (pure, numpy) rank like brute force."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from wikimem.index.bm25 import B, K1, InvertedIndex, idf

#: Every test here runs on both index paths (pure Python and numpy), each checked against brute force.
pytestmark = pytest.mark.usefixtures("index_path")


def _brute(docs: list[list[str]], query: list[str], alive: set[int]) -> dict[int, float]:
    live = [d for d in range(len(docs)) if d in alive]
    n = len(live)
    avgdl = sum(len(docs[d]) for d in live) / n
    df = Counter(t for d in live for t in set(docs[d]))
    out = {}
    for d in live:
        tf = Counter(docs[d])
        score = sum(
            q * idf(n, df[t]) * tf[t] * (K1 + 1) / (tf[t] + K1 * (1 - B + B * len(docs[d]) / avgdl))
            for t, q in Counter(query).items()
            if tf[t]
        )
        if score > 0:
            out[d] = score
    return out


def _zipf_corpus(seed: int, n: int) -> list[list[str]]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(300)]
    weights = [1 / (r + 1) for r in range(300)]
    return [rng.choices(vocab, weights, k=rng.randint(3, 30)) for _ in range(n)]


@pytest.mark.parametrize("seed", range(3))
def test_short_lists_are_walked_and_rank_like_brute_force(seed: int) -> None:
    docs = _zipf_corpus(seed, 600)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    rng = random.Random(seed)
    for _ in range(20):
        query = rng.choices([f"w{i}" for i in range(300)], k=rng.randint(2, 6))
        expected = sorted(_brute(docs, query, set(range(600))).items(), key=lambda ds: (-ds[1], ds[0]))
        got = index.search(Counter(query), 5)
        assert [(d, round(s, 9)) for d, s in got] == [(d, round(s, 9)) for d, s in expected[:5]], query


def test_document_with_more_matching_terms_ranks_first() -> None:
    index = InvertedIndex()
    for tokens in (["sea", "beach"], ["sea", "mountain"], ["city"]):
        index.add_bulk(tokens)
    assert [d for d, _ in index.search({"sea": 1, "beach": 1}, 10)] == [0, 1]


def test_search_scores_equal_textbook_bm25() -> None:
    docs = _zipf_corpus(1, 200)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    expected = _brute(docs, ["w3", "w50", "w7"], set(range(200)))
    for doc, score in index.search({"w3": 1, "w50": 1, "w7": 1}, 200):
        assert math.isclose(score, expected[doc], rel_tol=1e-9)


def test_pruned_top_k_equals_exhaustive_ranking() -> None:
    docs = _zipf_corpus(2, 2000)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    rng = random.Random(3)
    for _ in range(30):
        # choices, not sample: repeated query terms (query tf > 1) included.
        query = rng.choices([f"w{i}" for i in range(300)], k=rng.randint(1, 6))
        expected = sorted(_brute(docs, query, set(range(2000))).items(), key=lambda ds: (-ds[1], ds[0]))
        got = index.search(Counter(query), 10)
        assert [round(s, 9) for _, s in got] == [round(s, 9) for _, s in expected[:10]]


@pytest.mark.parametrize("k", [1, 3, 10])
def test_top_k_over_long_common_lists_equals_exhaustive_ranking(k: int) -> None:
    # Common-term queries over long lists: many docs per term, many ties
    # among the candidates of the k-th place.
    docs = _zipf_corpus(5, 3000)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    index.remove(7, docs[7])
    alive = set(range(3000)) - {7}
    rng = random.Random(6)
    for _ in range(40):
        query = rng.choices([f"w{i}" for i in range(12)], k=rng.randint(2, 5))
        if rng.random() < 0.3:
            query.append(f"w{rng.randrange(12, 300)}")  # a rarer term in front of the walk
        expected = sorted(_brute(docs, query, alive).items(), key=lambda ds: (-ds[1], ds[0]))
        got = index.search(Counter(query), k)
        assert [(d, round(s, 9)) for d, s in got] == [(d, round(s, 9)) for d, s in expected[:k]], query


def test_removed_document_is_never_returned_and_leaves_the_statistics() -> None:
    docs = _zipf_corpus(4, 300)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    index.search({"w1": 1}, 5)  # pack some postings before removing
    for d in range(0, 300, 3):
        index.remove(d, docs[d])
    alive = {d for d in range(300) if d % 3}
    expected = _brute(docs, ["w1", "w9"], alive)
    got = dict(index.search({"w1": 1, "w9": 1}, 300))
    assert got.keys() == expected.keys()
    assert all(math.isclose(got[d], expected[d], rel_tol=1e-9) for d in got)


def test_documents_added_after_a_query_are_scored_like_bulk_ones() -> None:
    docs = _zipf_corpus(5, 400)
    index = InvertedIndex()
    for tokens in docs[:200]:
        index.add_bulk(tokens)
    index.search({"w2": 1, "w30": 1}, 5)
    for tokens in docs[200:]:
        index.add(tokens)
    expected = _brute(docs, ["w2", "w30"], set(range(400)))
    got = dict(index.search({"w2": 1, "w30": 1}, 400))
    assert all(math.isclose(got[d], expected[d], rel_tol=1e-9) for d in expected)


def test_idf_stays_positive_for_a_term_in_every_document() -> None:
    assert idf(10, 10) > 0


def test_external_document_is_scored_with_the_index_statistics() -> None:
    index = InvertedIndex()
    for tokens in (["sea", "sea"], ["sea", "city"], ["city", "park"]):
        index.add_bulk(tokens)
    inside = dict(index.search({"sea": 1}, 3))[1]
    assert math.isclose(index.score_external({"sea": 1}, ["sea", "city"]), inside, rel_tol=1e-12)


def test_matched_terms_are_the_query_terms_present_sorted() -> None:
    index = InvertedIndex()
    index.add_bulk(["b", "a", "c"])
    assert index.matched(["c", "a", "zzz"], 0) == ["a", "c"]


def test_file_replace_reindexes_only_changed_items_and_compaction_keeps_answers() -> None:
    from wikimem.index.corpus import WikiCorpus
    from wikimem.models import RecallItem

    seen: list[str] = []

    def tokenize(text: str) -> list[str]:
        seen.append(text)
        return text.lower().split()

    corpus = WikiCorpus(tokenize)
    corpus.load_file("f", [RecallItem("f", "a", "sea beach"), RecallItem("f", "b", "city park")], None)
    seen.clear()
    assert corpus.update_file("f", [RecallItem("f", "a", "sea beach"), RecallItem("f", "b", "mountain")], None)
    assert seen == ["b\ncity park", "b\nmountain"]  # old doc's terms to untrack, new doc's to index
    before = corpus.index.search({"mountain": 1, "sea": 1}, 5)
    fresh = corpus.compacted()
    after = fresh.index.search({"mountain": 1, "sea": 1}, 5)
    assert [fresh.items[d].name for d, _ in after] == [corpus.items[d].name for d, _ in before]
    assert len(fresh.items) == 2


def test_results_stay_exact_when_cached_impacts_drift_after_small_writes() -> None:
    docs = _zipf_corpus(6, 1500)
    index = InvertedIndex()
    for tokens in docs[:1497]:
        index.add_bulk(tokens)
    rng = random.Random(7)
    queries = [rng.choices([f"w{i}" for i in range(60)], k=rng.randint(1, 4)) for _ in range(25)]
    queries += [["w0"], ["w1", "w1"], ["w40"]]  # one term: ranked by its own k-th value
    for query in queries:
        index.search(Counter(query), 10)  # cache impacts for the current N and length
    for tokens in docs[1497:]:
        index.add(tokens)  # N and the average length move a little: caches go stale
    index.remove(5, docs[5])
    alive = set(range(1500)) - {5}
    for query in queries:
        expected = sorted(_brute(docs, query, alive).items(), key=lambda ds: (-ds[1], ds[0]))[:10]
        got = index.search(Counter(query), 10)
        assert [d for d, _ in got] == [d for d, _ in expected]
        assert all(math.isclose(g, e, rel_tol=1e-9) for (_, g), (_, e) in zip(got, expected))


@pytest.mark.parametrize("k", [1, 5, 10])
def test_answers_stay_exact_with_twin_terms_writes_and_removals(k: int) -> None:
    # Lists kept by earlier queries, then appended to by add() and cut by
    # remove(); terms with identical postings (the bigrams of one CJK word).
    docs = _zipf_corpus(8, 2500)
    for tokens in docs:
        if "w1" in tokens:
            tokens.append("twin-a")  # twin-a and twin-b: the very same postings
            tokens.append("twin-b")
    index = InvertedIndex()
    for tokens in docs[:2400]:
        index.add_bulk(tokens)
    rng = random.Random(9)
    pool = [f"w{i}" for i in range(40)] + ["twin-a", "twin-b"]
    queries = [rng.choices(pool, k=rng.randint(1, 5)) for _ in range(30)] + [["twin-a", "twin-b"], ["twin-a", "twin-b", "w0"]]
    for query in queries:
        index.search(Counter(query), k)  # build heads at the statistics of the moment
    for tokens in docs[2400:]:
        index.add(tokens)
    for d in (3, 50, 2401):
        index.remove(d, docs[d])
    alive = set(range(2500)) - {3, 50, 2401}
    for query in queries:
        expected = sorted(_brute(docs, query, alive).items(), key=lambda ds: (-ds[1], ds[0]))[:k]
        got = index.search(Counter(query), k)
        assert [d for d, _ in got] == [d for d, _ in expected], query
        assert all(math.isclose(g, e, rel_tol=1e-9) for (_, g), (_, e) in zip(got, expected)), query


def test_scores_of_chosen_docs_are_the_search_scores() -> None:
    # score_docs runs term by term in C-level maps; it must give the search's scores.
    docs = _zipf_corpus(10, 1200)
    index = InvertedIndex()
    for tokens in docs[:1150]:
        index.add_bulk(tokens)
    index.search({"w1": 1}, 3)
    for tokens in docs[1150:]:
        index.add(tokens)
    index.remove(9, docs[9])
    for query in (["w1", "w5", "w5"], ["w0"], ["w3", "w40", "w299", "absent"]):
        found = dict(index.search(Counter(query), 1200))
        got = index.score_docs(Counter(query), range(1200))
        assert all(math.isclose(got[d], found.get(d, 0.0), rel_tol=1e-9) for d in range(1200)), query


@pytest.mark.parametrize("k", [1, 5, 10])
def test_a_term_in_fewer_docs_than_k_beside_a_common_one_ranks_like_brute_force(k: int) -> None:
    # The query right after an add() of its own words: the rare term's only docs are short, the best
    # docs of the common term too; the rest of the top k comes from the common term's best (ties included).
    docs = _zipf_corpus(11, 800) + [["w0", "w0"]] * 6 + [["w0", "rare"], ["w2", "w0", "rare", "w1"]]
    index = InvertedIndex()
    for tokens in docs[:-1]:
        index.add_bulk(tokens)
    queries = [["w0", "rare"], ["w1", "rare"], ["w0", "w0", "rare"], ["rare", "w2", "rare"]]
    for query in queries:
        index.search(Counter(query), k)  # packed, impacts cached
    index.add(docs[-1])  # after the queries: caches stale, as after an add()
    for query in queries:
        expected = sorted(_brute(docs, query, set(range(len(docs)))).items(), key=lambda ds: (-ds[1], ds[0]))[:k]
        got = index.search(Counter(query), k)
        assert [d for d, _ in got] == [d for d, _ in expected], query
        assert all(math.isclose(g, e, rel_tol=1e-9) for (_, g), (_, e) in zip(got, expected))
