"""The index's numpy path gives the pure path's answers: postings exactly, rankings up to float rounding.

The tolerance rule for rankings: the same docs in the same order, scores
equal within a relative 1e-9; where scores tie (within that tolerance) the
order is by ascending doc id on both paths.
"""

from __future__ import annotations

import math
import random
import subprocess
import sys
from array import array
from collections import Counter
from pathlib import Path

import pytest

from wikimem.index import vectorized
from tests.test_bm25 import _brute
from wikimem.index.scoring import bm25
from wikimem.index.scoring.bm25 import InvertedIndex
from wikimem.index.search.form_search import FormViews
from wikimem.index.forms.scan import count_located, locate, scan_texts, term_form
from wikimem.tokenize import tokenize

np = pytest.importorskip("numpy")

# Latin, CJK (doubled too), kana, Hangul, a character outside the BMP, separators.
_PIECES = ["a", "ab", "Abc", "x1", "9", " ", "  ", "\n", ".", "é", "İ", "我", "们", "海", "哈", "哈哈", "哈哈哈",
           "喜欢", "日本", "カタ", "한국", "、", "〇", "𠀀", "𠀀𠀁"]


def _texts(seed: int, count: int, astral: bool) -> list[str]:
    rng = random.Random(seed)
    pieces = _PIECES if astral else [p for p in _PIECES if max(map(ord, p)) <= 0xFFFF]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 40))) for _ in range(count)]


@pytest.fixture(autouse=True)
def _numpy_for_every_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectorized, "MIN_ELEMENTS", 0)
    monkeypatch.setattr(vectorized, "LOADED_MIN", 0)
    monkeypatch.setattr(vectorized, "SCAN_MIN", 0)
    vectorized.switch(True)
    yield
    vectorized.switch(None)


@pytest.mark.parametrize("astral", [False, True], ids=["bmp", "astral"])
@pytest.mark.parametrize("seed", range(6))
def test_postings_of_every_term_equal_the_pure_count(seed: int, astral: bool) -> None:
    texts = _texts(seed, 300, astral)
    scanned = scan_texts(texts)
    assert scanned is not None
    # Terms of the texts and of none: inside every token that holds them ("x" only in "x1", "bc" only
    # after "a"), characters no text has, a pair outside the BMP.
    terms = {t for text in texts for t in tokenize(text, use_jieba=False)} | {"x", "bc", "qv", "鳈栙", "哈", "𠀀𠀀"}
    views = FormViews(np, scanned)
    answered = absent = 0
    for term in sorted(terms):
        form = term_form(term)
        assert form is not None, term
        fast = views.postings(*form, 7)
        where = locate(term, scanned)
        if fast is None:  # only a CJK form or term with characters outside the BMP may refuse
            assert not form[0] and (astral or max(map(ord, term)) > 0xFFFF), term
            continue
        docs, tfs = array("i"), array("i")
        docs.frombytes(fast[0])
        tfs.frombytes(fast[1])
        if where is None:
            absent += 1
            assert (docs, tfs) == (array("i"), array("i")), term
            continue
        pure_docs, pure_tfs = count_located(where, scanned)
        answered += 1
        assert (list(docs), list(tfs)) == ([d + 7 for d in pure_docs], pure_tfs), term
    assert answered > 20 and absent >= 3


def test_a_numpy_search_never_views_the_live_lengths_or_postings() -> None:
    index = InvertedIndex()
    for tokens in (["tea", "sea"], ["tea"], ["sea", "sea", "tree"]):
        index.add_bulk(tokens)
    first = index.search({"tea": 1, "sea": 1}, 3)
    index.add(["tea", "tea", "sea"])  # would raise BufferError if a numpy view of _dl or a list were alive
    second = dict(index.search({"tea": 1, "sea": 1}, 4))
    assert {d for d, _ in first} < set(second) and 3 in second


def test_a_small_store_never_imports_numpy(tmp_path: Path) -> None:
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "notes.md").write_text("## tea\n\ngreen tea\n", "utf-8")
    code = (
        "import sys\n"
        "from wikimem import MemoryIndex, MemoryStore\n"
        f"MemoryIndex(MemoryStore({str(tmp_path)!r}), use_jieba=False).retrieve('tea')\n"
        "print('numpy' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    assert out.stdout.strip() == "False"


def test_switched_off_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    vectorized.switch(None)
    monkeypatch.setenv("WIKIMEM_NUMPY", "0")
    assert not vectorized.active(10**9)
    vectorized.switch(None)
    monkeypatch.setenv("WIKIMEM_NUMPY", "1")
    assert vectorized.active(10**9)


def _zipf_docs(seed: int, n: int) -> list[list[str]]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(200)]
    weights = [1.0 / (i + 1) for i in range(200)]
    return [rng.choices(words, weights, k=rng.randint(1, 25)) for _ in range(n)]


def _built(docs: list[list[str]], *, numpy: bool) -> InvertedIndex:
    """An index of ``docs`` (added in bulk) with the numpy path switched ``numpy``: one of the two paths compared."""
    vectorized.switch(numpy)
    index = InvertedIndex()
    for tokens in docs:
        index.add_bulk(tokens)
    return index


def _same_ranking(fast: list[tuple[int, float]], pure: list[tuple[int, float]]) -> None:
    """The tolerance rule: scores within 1e-9 relative, the same docs in the same order up to ties by doc id.

    Both paths order by (score, doc id) with their own floats; where those differ in the last bits,
    a tie on one path is a near tie on the other, so both are compared ordered by the rounded score.
    """
    def settled(pairs: list[tuple[int, float]]) -> list[int]:
        return [d for d, _ in sorted(pairs, key=lambda ds: (-round(ds[1], 9), ds[0]))]

    assert settled(fast) == settled(pure)
    assert all(math.isclose(sf, sp, rel_tol=1e-9) for (_, sf), (_, sp) in zip(fast, pure))


@pytest.mark.parametrize("dense", [0, 10**9], ids=["over-postings", "on-the-dense-array"])
@pytest.mark.parametrize("k", [1, 4, 10])
def test_the_numpy_ranking_equals_the_pure_one_within_the_tolerance(k: int, dense: int,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The same docs, scores within 1e-9, the same order (ties by doc id) -- also after writes.

    Both ways the numpy path selects its top k (over the postings, on the dense score array) are compared.
    """
    monkeypatch.setattr(bm25, "_DENSE_SHARE", dense)
    docs = _zipf_docs(k, 3000)
    rng = random.Random(k)
    queries = [Counter(rng.choices([f"w{i}" for i in range(15)], k=rng.randint(1, 5))) for _ in range(25)]
    queries += [Counter(rng.choices([f"w{i}" for i in range(200)], k=rng.randint(1, 4))) for _ in range(25)]
    results = {}
    for on in (False, True):
        index = _built(docs, numpy=on)
        got = [index.search(q, k) for q in queries]
        for tokens in docs[:40]:  # N and the average length move
            index.add(tokens)
        index.remove(5, docs[5])
        got += [index.search(q, k) for q in queries]
        results[on] = got
    for fast, pure in zip(results[True], results[False]):
        _same_ranking(fast, pure)
    assert any(len(r) == k for r in results[True])


def test_a_term_alone_answers_every_k_after_a_small_one() -> None:
    # A term queried alone keeps its best postings ranked: a later, larger k (why-not asks for
    # every doc) must still get every doc, and a write must not leave the kept ranking stale.
    docs = _zipf_docs(7, 3000)
    everyone = [d for d, tokens in enumerate(docs) if "w0" in tokens]
    assert len(everyone) > 600
    results = {}
    for on in (False, True):
        index = _built(docs, numpy=on)
        got = [index.search({"w0": 1}, k) for k in (10, 300, len(docs), 5)]
        index.add(["w0", "w0"])
        got += [index.search({"w0": 1}, k) for k in (3, len(docs) + 1)]
        results[on] = got
    for fast, pure in zip(results[True], results[False]):
        _same_ranking(fast, pure)
    assert sorted(d for d, _ in results[True][2]) == everyone
    assert len(docs) in {d for d, _ in results[True][5]}  # the doc added after the kept ranking


@pytest.mark.parametrize("k", [1, 3, 7])
def test_ties_are_broken_by_doc_id_on_both_paths(k: int) -> None:
    # Many docs with the very same tokens: the very same score; the top k is the lowest ids among them.
    docs = [["tea", "sea"] if i % 3 else ["tea", "tree", "sea"] for i in range(600)] + [["tea", "tea", "sea"]]
    results = {}
    for on in (False, True):
        index = _built(docs, numpy=on)
        results[on] = [index.search(Counter(q), k) for q in (["tea"], ["tea", "sea"], ["tree", "tea"])]
    assert results[True] == results[False]
    for query, got in zip((["tea"], ["tea", "sea"], ["tree", "tea"]), results[True]):
        brute = _brute(docs, query, set(range(len(docs))))
        assert [d for d, _ in got] == [d for d, _ in sorted(brute.items(), key=lambda ds: (-round(ds[1], 9), ds[0]))[:k]]
