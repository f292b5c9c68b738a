"""The cold-load fast path: scanned forms must index exactly what tokenize() yields."""

from __future__ import annotations

import gc
import random
from collections import Counter

import pytest

from wikimem.index.scoring.bm25 import InvertedIndex
from wikimem.index.corpus.wiki import WikiCorpus
from wikimem.disk.loader import gc_paused
from wikimem.models import RecallItem
from wikimem.index.forms import scan as scan_mod
from wikimem.index.forms.scan import ScannedTexts, scan_postings, scan_texts
from wikimem.tokenize import tokenize

#: Every test here runs on both index paths (pure Python and numpy), which must agree to the bit.
pytestmark = pytest.mark.usefixtures("index_path")

# Latin, CJK ideographs, kana, Hangul, doubled characters, separators and
# characters that lowercase into (or look like) latin.
_PIECES = [
    "a", "b", "ab", "Abc", "x1", "9", " ", "  ", "\n", "\t", ".", "-", "_", "é", "Ａ", "İ", "K",
    "我", "们", "海", "哈", "哈哈", "哈哈哈", "喜欢", "日本", "カタ", "ひら", "한국", "・", "、", "〇", "々",
]


def _random_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 30))) for _ in range(count)]


def bigrams(text: str) -> list[str]:
    return tokenize(text, use_jieba=False)


def scan_counts(term: str, scanned: ScannedTexts, common: bool = False) -> list[int] | None:
    """scan_postings as one count per text (None when no text holds the term)."""
    found = scan_postings(term, scanned, common)
    if found is None:
        return None
    dense = [0] * len(scanned.lengths)
    for text, tf in zip(*found):
        dense[text] = tf
    return dense


@pytest.mark.parametrize("common", [False, True], ids=["by-occurrence", "text-by-text"])
def test_scanned_forms_count_every_term_exactly_like_tokenize(common: bool) -> None:
    texts = _random_texts(1, 400)
    scanned = scan_texts(texts)
    assert scanned is not None
    counts = [Counter(bigrams(text)) for text in texts]
    assert list(scanned.lengths) == [sum(c.values()) for c in counts]
    vocabulary = set().union(*counts)
    assert any(len(t) == 2 and t[0] == t[1] for t in vocabulary)  # overlapping bigrams are covered
    for term in vocabulary:
        assert scan_counts(term, scanned, common) == [c[term] for c in counts], term


def test_latin_tokens_repeated_back_to_back_are_all_counted() -> None:
    scanned = scan_texts(["go go go", "go, go", "gogo go"])
    assert scanned is not None
    assert scan_counts("go", scanned) == [3, 2, 1]


def test_terms_no_text_holds_are_found_nowhere() -> None:
    scanned = scan_texts(["sea 海边", "city"])
    assert scanned is not None
    assert [scan_counts(t, scanned) for t in ("park", "海", "边海", "a b", "")] == [None] * 5


def test_texts_holding_the_scan_separators_are_refused() -> None:
    assert scan_texts(["ok", "a\x00b"]) is None
    assert scan_texts(["a\x01b"]) is None


def _items(texts: list[str]) -> list[RecallItem]:
    return [RecallItem("f", f"n{i}", text) for i, text in enumerate(texts)]


def _corpora(files: dict[str, list[str]]) -> tuple[WikiCorpus, WikiCorpus]:
    plain = WikiCorpus(bigrams)
    fast = WikiCorpus(bigrams, scan_texts)
    for file, texts in files.items():
        items = [RecallItem(file, f"n{i}", text) for i, text in enumerate(texts)]
        plain.load_file(file, items, None)
        fast.load_file(file, items, None)
    return plain, fast


def _queries(seed: int) -> list[Counter[str]]:
    return [Counter(bigrams(q)) for q in _random_texts(seed, 60) if bigrams(q)]


def test_scanned_cold_load_ranks_exactly_like_the_tokenized_one() -> None:
    plain, fast = _corpora({"a": _random_texts(3, 150), "b": _random_texts(4, 150)})
    assert fast.index.total_len == plain.index.total_len
    for query in _queries(5):
        assert fast.index.search(query, 10) == plain.index.search(query, 10)


def test_scanned_cold_load_stays_exact_after_adds_and_removals() -> None:
    plain, fast = _corpora({"a": _random_texts(6, 120)})
    later = _random_texts(7, 30) + ["zzunseen 龘龘 only here"]
    for corpus in (plain, fast):
        corpus.update_file("a", _items(_random_texts(6, 120)[10:] + later), None)
    for query in _queries(8) + [Counter(bigrams("zzunseen 龘龘"))]:
        assert fast.index.search(query, 10) == plain.index.search(query, 10)


def test_a_file_that_cannot_be_scanned_is_indexed_text_by_text_in_doc_order() -> None:
    files = {"a": _random_texts(9, 50), "b": ["nul \x00 inside 哈哈", *_random_texts(10, 20)], "c": _random_texts(11, 50)}
    plain, fast = _corpora(files)
    for query in _queries(12) + [Counter(["nul", "哈哈"])]:
        assert fast.index.search(query, 10) == plain.index.search(query, 10)


def test_a_term_absent_at_load_is_found_once_a_document_adds_it() -> None:
    index = InvertedIndex()
    scanned = scan_texts(["sea city", "park"])
    assert scanned is not None
    index.add_scanned(scanned)
    assert index.search({"volcano": 1}, 5) == []
    doc = index.add(["volcano", "sea"])
    assert [d for d, _ in index.search({"volcano": 1}, 5)] == [doc]
    assert sorted(d for d, _ in index.search({"sea": 1}, 5)) == [0, doc]


def test_a_cold_load_pauses_the_gc_and_restores_its_previous_state() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


# Ideographs from U+4000 on (the byte-table fast path of the CJK form), the
# two marks it handles, and what must send a batch to the regex instead.
_CHINESE = ["海", "边", "一", "䶿", "们", "哈哈", "，", "。", "，。", " ", "ab", "x1", "\n", "-"]
_OFF_FAST_PATH = ["䷀", "、", "ひら", "é", "々", "\U00020000", "！"]


@pytest.mark.parametrize("extra", [None, *_OFF_FAST_PATH])
def test_the_fast_cjk_form_equals_the_regex_one_and_counts_like_tokenize(extra: str | None) -> None:
    rng = random.Random(5)
    pieces = _CHINESE if extra is None else [*_CHINESE, extra]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 20))) for _ in range(300)]
    texts += ["", "，", "海", "。海，"]
    joined = "\x00".join(texts)
    rest = " ".join("".join(c if c >= "\x80" or c == "\x00" else " " for c in joined).split())
    assert scan_mod._cjk_runs(rest.encode(), rest) == scan_mod._NON_CJK.sub("  ", f" {rest} ")
    scanned = scan_texts(texts)
    assert scanned is not None
    counts = [Counter(bigrams(text)) for text in texts]
    assert list(scanned.lengths) == [sum(c.values()) for c in counts]
    for term in set().union(*counts):
        assert scan_counts(term, scanned) == [c[term] for c in counts], term


@pytest.mark.parametrize("rest", ["", "\x00", "，", "海", "\x00 ，。 \x00", "海， 边"])
def test_the_fast_cjk_form_of_edge_cases_equals_the_regex_one(rest: str) -> None:
    assert scan_mod._cjk_runs(rest.encode(), rest) == scan_mod._NON_CJK.sub("  ", f" {rest} ")


def test_the_vector_offsets_equal_the_pure_ones() -> None:
    """Starts and token counts: numpy's whole-form passes against the text-by-text counts (astral ideographs too)."""
    pytest.importorskip("numpy")
    from wikimem.index import vectorized  # noqa: PLC0415

    texts = [*_random_texts(9, 300), "", "", "\U00020000\U00020001 x", "\U00020000", "a\U0002f800b", "哈"]
    scanned = scan_texts(texts)
    assert scanned is not None
    vectorized.switch(False)  # the pure branch of _offsets, whatever the fixture chose
    pure = scan_mod._offsets(scanned.latin, scanned.cjk)
    assert list(pure[2]) == [len(bigrams(t)) for t in texts]
    assert scan_mod._vector_offsets(scanned.latin, scanned.cjk) == pure
