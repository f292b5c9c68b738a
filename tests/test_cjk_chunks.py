"""A CJK term searched in joined segments (cjk_chunks) finds exactly what each segment's own search and a brute-force count find."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from wikimem.index import cjk_chunks, vectorized
from wikimem.index.scan import count_located, locate, scan_texts, term_form
from wikimem.index.segments import Segments
from wikimem.tokenize import tokenize

np = pytest.importorskip("numpy")

# A few CJK characters (pairs repeat, doubled ones overlap), latin, kana, marks; astral ones where asked.
_PIECES = ["我", "们", "海", "哈", "哈哈", "哈哈哈", "喜欢", "欢喜", "日", "鳈", "ab", " ", "，", "。", "カ", "x1", "\n"]
_ASTRAL = ["𠀀", "𠀀𠀁", "我𠀀"]


@pytest.fixture(autouse=True)
def _numpy(monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setattr(vectorized, "SCAN_MIN", 0)  # views (and chunks) for these small segments
    vectorized.switch(True)
    yield
    vectorized.switch(None)


def _load(rng: random.Random, n_segments: int, astral: set[int]) -> tuple[Segments, list[str]]:
    segments, texts = Segments(), []
    for at in range(n_segments):
        pieces = _PIECES + (_ASTRAL if at in astral else [])
        batch = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 25))) for _ in range(rng.randint(1, 60))]
        scanned = scan_texts(batch)
        assert scanned is not None
        segments.add(len(texts), scanned, None)
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


@pytest.mark.parametrize(("n_segments", "astral"), [(11, set()), (13, {5}), (9, {0, 8}), (4, set())])
@pytest.mark.parametrize("seed", range(3))
def test_every_cjk_term_of_joined_segments_equals_a_brute_force_count(seed: int, n_segments: int, astral: set[int]) -> None:
    segments, texts = _load(random.Random(seed), n_segments, astral)
    assert segments._chunks  # runs were joined (a shorter run after an astral segment too)
    joined = {at for chunk in segments._chunks.values() for at in range(chunk.first, chunk.stop)}
    assert not joined & astral
    brute = _brute(texts)
    cjk = sorted(t for t in brute if not t[0].isascii()) + ["鳈栙", "哈我", "我", "喜"]
    found = segments.postings_many(cjk)
    for term in cjk:
        assert (list(found[term][0]), list(found[term][1])) == brute.get(term, ([], [])), term


@pytest.mark.parametrize("seed", range(3))
def test_a_joined_segments_own_views_still_equal_its_pure_search(seed: int) -> None:
    # With a segment cache the search goes segment by segment: the views then read slices of the chunk.
    segments, texts = _load(random.Random(seed), cjk_chunks.SEGMENTS * 2 + 1, set())
    assert len(segments._chunks) == 2
    terms = sorted({t for text in texts for t in tokenize(text, use_jieba=False) if not t[0].isascii()})
    assert len(terms) > 20
    for at in range(len(segments)):
        views, scanned = segments._views[at], segments.scanned(at)
        assert views is not None
        for term in terms:
            form = term_form(term)
            assert form is not None
            where = locate(term, scanned)
            pure = ([], []) if where is None else count_located(where, scanned)
            got = views.postings(*form, 0)
            assert got is not None
            assert (np.frombuffer(got[0], np.int32).tolist(), np.frombuffer(got[1], np.int32).tolist()) == pure, (at, term)


def test_segments_of_odd_unit_counts_stay_on_word_boundaries() -> None:
    # One-character texts make odd-length forms: each segment is padded to start on a 32-bit word.
    segments = Segments()
    texts: list[str] = []
    for batch in (["我"], ["哈哈哈"], ["我们", "们我"], ["海"], ["哈哈"], ["我", "们"], ["喜欢喜欢"], ["欢"]):
        scanned = scan_texts(batch)
        assert scanned is not None
        segments.add(len(texts), scanned, None)
        texts += batch
    assert segments._chunks
    brute = _brute(texts)
    found = segments.postings_many(list(brute))
    for term, want in brute.items():
        assert (list(found[term][0]), list(found[term][1])) == want, term


@pytest.mark.parametrize("gap", [0, 7])
def test_doc_ids_follow_each_segments_first_id_with_gaps_between_segments(gap: int) -> None:
    # Doc ids come from the segments' first ids: added, when consecutive; looked up, when a gap lies between.
    rng = random.Random(gap)
    segments, texts, ids = Segments(), [], []
    for at in range(cjk_chunks.SEGMENTS + 1):
        batch = ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 25))) for _ in range(rng.randint(1, 40))]
        scanned = scan_texts(batch)
        assert scanned is not None
        base = len(texts) + gap * at
        segments.add(base, scanned, None)
        ids += range(base, base + len(batch))
        texts += batch
    assert segments._chunks
    brute = _brute(texts)
    terms = [t for t in brute if not t[0].isascii()]
    found = segments.postings_many(terms)
    for term in terms:
        docs, tfs = brute[term]
        assert (list(found[term][0]), list(found[term][1])) == ([ids[d] for d in docs], tfs), term


def test_a_term_outside_the_bmp_matches_nothing_in_joined_segments() -> None:
    segments, texts = _load(random.Random(5), cjk_chunks.SEGMENTS, set())
    assert segments._chunks
    chunk = next(iter(segments._chunks.values()))
    assert len(chunk.doc_ids("𠀀𠀀")) == 0 and len(chunk.doc_ids("我𠀀")) == 0
    found = segments.postings_many(["𠀀𠀀", "我𠀀", "𠀀"])
    assert all(not docs for docs, _ in found.values())
