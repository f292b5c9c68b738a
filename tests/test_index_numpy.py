"""The index's numpy path gives the pure path's answers to the bit: postings, impacts, heads, rankings."""

from __future__ import annotations

import random
import subprocess
import sys
from array import array
from pathlib import Path

import pytest

from wikimem.index import impact_order, vectorized
from wikimem.index.bm25 import InvertedIndex
from wikimem.index.form_search import FormViews
from wikimem.index.scan import count_located, locate, scan_texts, term_form
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


def test_impacts_are_the_same_floats_as_the_pure_ones() -> None:
    rng = random.Random(3)
    lengths = array("i", (rng.randint(1, 400) for _ in range(5000)))
    docs = array("i", sorted(rng.sample(range(5000), 3000)))
    tfs = array("i", (rng.randint(1, 9) for _ in docs))
    w, a, b = 2.345678901, 0.375, 1.125 / 61.7
    values, top = vectorized.impacts(docs, tfs, vectorized.Lengths().upto(lengths, docs[-1]), w, a, b)
    pure = [w * tf / (tf + a + b * lengths[d]) for d, tf in zip(docs, tfs)]
    assert list(values) == pure  # bit for bit, not approximately
    assert top == max(pure)


def test_lengths_copy_grows_with_the_docs_and_never_views_the_live_array() -> None:
    live = array("i", [3, 4])
    lengths = vectorized.Lengths()
    assert list(lengths.upto(live, 1)) == [3, 4]
    live.append(5)  # would raise BufferError if the copy were a view
    assert list(lengths.upto(live, 2)) == [3, 4, 5]


@pytest.mark.parametrize("seed", range(4))
def test_heads_grown_by_numpy_equal_the_pure_heads(seed: int) -> None:
    rng = random.Random(seed)
    texts = [" ".join(rng.choice(["tea", "sea", "tree", "a", "b", "c", "d", "e"]) for _ in range(rng.randint(1, 30)))
             for _ in range(4000)]
    heads = {}
    for on in (False, True):
        vectorized.switch(on)
        index = InvertedIndex()
        for text in texts:
            index.add_bulk(tokenize(text, use_jieba=False))
        entry = index._packed("tea")
        assert entry is not None
        index._refresh_impacts(entry, 1.0, 0.02)
        impact_order.top(entry, 300)
        impact_order.above(entry, entry.impact_max * 0.3)
        heads[on] = (list(entry.impact), list(entry.head.neg), list(entry.head.docs), entry.head.floor)
    assert heads[False] == heads[True]


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


@pytest.mark.parametrize("k", [1, 4, 10])
def test_a_walked_query_ranks_like_the_pruned_one_to_the_bit(k: int) -> None:
    """The same docs, the same float scores, the same order -- also after writes made the cached values stale."""
    from collections import Counter  # noqa: PLC0415

    docs = _zipf_docs(k, 3000)
    rng = random.Random(k)
    queries = [Counter(rng.choices([f"w{i}" for i in range(15)], k=rng.randint(2, 5))) for _ in range(25)]
    results = {}
    for on in (False, True):
        vectorized.switch(on)
        index = InvertedIndex()
        for tokens in docs:
            index.add_bulk(tokens)
        got = [index.search(q, k) for q in queries]
        for tokens in docs[:40]:  # N and the average length move a little: stale values, rho < 1
            index.add(tokens)
        index.remove(5, docs[5])
        got += [index.search(q, k) for q in queries]
        results[on] = got
    assert results[True] == results[False]
    assert any(len(r) == k for r in results[True])
