"""The numpy CJK form is the pure path's string, and its counts are the pure counts."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from wikimem.index import vectorized
from wikimem.index.forms.scan import scan_texts

np = pytest.importorskip("numpy")
from wikimem.index.forms.cjk_form import cjk_form  # noqa: E402 -- numpy only

# Ideographs from U+4000 on (the edges of the range too), the two marks, doubled
# characters, latin and separators: all on the fast path.
_ON_PATH = ["海", "边", "一", "䶿", "们", "哈", "哈哈", "鿿", "䀀", "，", "。", "，。", " ", "ab", "x1", "\n", "-", "Run"]
# Each sends a batch to the pure path: a hexagram, other marks, kana, Hangul, accents, astral
# ideographs, an ideograph below U+4000, and the two characters whose lowercase is ASCII.
_OFF_PATH = ["䷀", "、", "！", "ひら", "한", "é", "\U00020000", "㐀", "İ", "\u212a", "々", "\u00a0"]


@pytest.fixture(autouse=True)
def _numpy_on(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(vectorized, "SCAN_MIN", 0)
    vectorized.switch(True)
    yield
    vectorized.switch(None)


def _texts(seed: int, pieces: list[str], count: int = 400) -> list[str]:
    rng = random.Random(seed)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 25))) for _ in range(count)]
    return [*texts, "", "海", "，", "海边", "。海，", ""]


def _both(texts: list[str]) -> tuple[object, object]:
    vectorized.switch(True)
    vector = scan_texts(texts)
    vectorized.switch(False)
    pure = scan_texts(texts)
    return vector, pure


@pytest.mark.parametrize("seed", range(5))
def test_the_numpy_form_and_counts_equal_the_pure_ones(seed: int) -> None:
    texts = _texts(seed, _ON_PATH)
    joined = (" " + " \x00 ".join(texts) + " ").encode()
    assert cjk_form(np, joined) is not None  # the fast path, not a fallback
    vector, pure = _both(texts)
    assert vector == pure


@pytest.mark.parametrize("extra", _OFF_PATH)
def test_anything_off_the_path_goes_to_the_pure_form(extra: str) -> None:
    texts = _texts(7, _ON_PATH)
    texts[100] += extra
    joined = (" " + " \x00 ".join(texts) + " ").encode()
    assert cjk_form(np, joined) is None
    vector, pure = _both(texts)
    assert vector == pure


@pytest.mark.parametrize("text", [b"  ", b"  \x00  ", b" \xe6\xb5\xb7 ", b" \xe6\xb5 ", b" \xe6\xb5\xb7\xb7 ", b" \xe6 \xb5\xb7 ",
                                  b" \xef\xbc ", b" \xe3\x80\x82\xe6\xb5\xb7 "])
def test_short_and_broken_inputs(text: bytes) -> None:
    """Truncated or stray bytes never make a form; valid ones make the pure one."""
    made = cjk_form(np, text)
    try:
        decoded = text.decode()
    except UnicodeDecodeError:
        assert made is None
        return
    assert made is not None
    vectorized.switch(False)
    pure = scan_texts(decoded[1:-1].split(" \x00 "))
    assert pure is not None and made[0] == pure.cjk
