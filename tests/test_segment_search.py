"""A term's first use without caches: Segments.postings / postings_many equal a brute-force count, numpy on or off."""

from __future__ import annotations

import random
from array import array
from collections import Counter

import pytest

from wikimem.index import vectorized
from wikimem.index.forms.scan import scan_texts
from wikimem.index.search.key_groups import KeyGroups
from wikimem.index.search.segments import Segments
from wikimem.tokenize import tokenize

# Latin, CJK (doubled too), kana, Hangul, separators; "𠀀" (outside the BMP) only where asked.
_PIECES = ["a", "ab", "Abc", "x1", "9", " ", "  ", "\n", ".", "é", "İ", "我", "们", "海", "哈", "哈哈", "哈哈哈",
           "喜欢", "日本", "カタ", "한국", "、", "〇"]
# Terms of no text: inside every token holding them ("x" only in "x1", "bc" only after "a"), unseen characters.
_ABSENT = ["x", "bc", "qv", "鳈栙", "𠀀𠀀", "", "a b"]


def _segments(seed: int, astral_at: int | None) -> tuple[Segments, list[str]]:
    """Four segments of random texts (the one at ``astral_at`` with characters outside the BMP)."""
    rng = random.Random(seed)
    segments, texts = Segments(), []
    for at in range(4):
        pieces = _PIECES + (["𠀀", "𠀀𠀁"] if at == astral_at else [])
        batch = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))) for _ in range(rng.randint(1, 80))]
        scanned = scan_texts(batch)
        assert scanned is not None
        segments.add(len(texts), scanned)
        texts += batch
    return segments, texts


def _brute(texts: list[str]) -> dict[str, tuple[list[int], list[int]]]:
    out: dict[str, tuple[list[int], list[int]]] = {}
    for doc, text in enumerate(texts):
        for term, tf in Counter(tokenize(text, use_jieba=False)).items():
            docs, tfs = out.setdefault(term, ([], []))
            docs.append(doc)
            tfs.append(tf)
    return out


@pytest.fixture(params=["numpy", "pure"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "numpy":
        pytest.importorskip("numpy")
        monkeypatch.setattr(vectorized, "SCAN_MIN", 0)  # views for these small segments
    vectorized.switch(request.param == "numpy")
    yield request.param
    vectorized.switch(None)


@pytest.mark.parametrize("astral_at", [None, 2], ids=["bmp", "astral"])
@pytest.mark.parametrize("seed", range(4))
def test_every_term_one_by_one_and_together_equals_a_brute_force_count(path: str, seed: int, astral_at: int | None) -> None:
    segments, texts = _segments(seed, astral_at)
    assert all(v is not None for v in segments._made()) == (path == "numpy")
    expected = _brute(texts)
    terms = sorted(expected) + _ABSENT
    together = segments.postings_many(terms + terms[:5])  # a repeated term changes nothing
    assert sorted(together) == sorted(set(terms))
    for term in terms:
        docs, tfs = expected.get(term, ([], []))
        want = (array("i", docs), array("i", tfs))
        assert segments.postings(term) == want, term
        assert together[term] == want, term
    assert len(expected) > 40


def test_a_stop_between_segments_answers_none() -> None:
    segments, _ = _segments(5, None)
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return True

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("wikimem.index.search.segments._STOP_EVERY", 2)
        assert segments.postings("ab", stop) is None
    assert asked == [1]


def test_a_group_holding_one_value_is_told_from_a_group_of_several() -> None:
    """KeyGroups.uniform against each group's rows, with values changing at a group's edges and just inside them."""
    np = pytest.importorskip("numpy")
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 12)
        keys = np.array([rng.randint(0, 3) for _ in range(n)], dtype=np.uint16)
        groups = KeyGroups(np, keys, np.array([rng.randint(0, 2) for _ in range(n)], dtype=np.uint16))
        (column,) = groups.columns
        uniform = groups.uniform(column)
        for key in set(keys.tolist()):
            lo, hi = groups.rows(key)
            assert bool(uniform[groups.group(key)]) == (len(set(column[lo:hi].tolist())) == 1)


def test_a_character_followed_by_others_finds_each_pair(path: str) -> None:
    """A character's rows with one next character, with two (changing right after the first row), or across segments."""
    segments, texts = Segments(), ["我们", "我海", "我们我们", "海我", "我海我海"]
    for base, batch in ((0, texts[:2]), (2, texts[2:])):
        scanned = scan_texts(batch)
        assert scanned is not None
        segments.add(base, scanned)
    expected = _brute(texts)
    for term in ("我们", "我海", "海我", "们我"):
        docs, tfs = expected.get(term, ([], []))
        assert segments.postings(term) == (array("i", docs), array("i", tfs)), term
