"""A latin term's search by token fingerprints finds exactly the pure search's matches, collisions included."""

from __future__ import annotations

import random
from array import array
from collections import defaultdict

import pytest

from wikimem.index.search.form_search import FormViews, fingerprint, latin_tokens
from wikimem.index.forms.scan import count_located, locate, scan_texts, term_form

np = pytest.importorskip("numpy")

_LETTERS = "abe19"  # a small alphabet: words share first bytes, last bytes and lengths


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    return sorted({"".join(rng.choice(_LETTERS) for _ in range(rng.randint(1, 12))) for _ in range(size)})


def _postings(views: FormViews, term: str) -> tuple[list[int], list[int]]:
    form = term_form(term)
    assert form is not None and form[0], term
    found = views.postings(*form, 0)
    assert found is not None
    docs, tfs = array("i"), array("i")
    docs.frombytes(found[0])
    tfs.frombytes(found[1])
    return list(docs), list(tfs)


def _pure(term: str, scanned: object) -> tuple[list[int], list[int]]:
    where = locate(term, scanned)  # type: ignore[arg-type]
    return ([], []) if where is None else count_located(where, scanned)  # type: ignore[arg-type]


def test_the_form_and_a_term_give_a_token_the_same_fingerprint() -> None:
    texts = ["a ab abc abcd abcde", "Zebra  x9", "", "q"]
    scanned = scan_texts(texts)
    assert scanned is not None
    ids = np.arange(len(texts), dtype=np.uint16)
    _, at, prints, owners = latin_tokens(np, scanned.latin, ids)
    tokens = scanned.latin.split()
    assert len(at) == len(tokens)  # the breaks are tokens too
    starts = list(scanned.latin_starts)
    for start, mark, owner, token in zip(at.tolist(), prints.tolist(), owners.tolist(), tokens):
        assert scanned.latin[start : start + len(token) + 2] == b" " + token + b" "
        assert mark == fingerprint(token), token
        assert starts[owner] <= start < starts[owner + 1], token


@pytest.mark.parametrize("seed", range(4))
def test_every_term_and_every_colliding_one_equal_the_pure_count(seed: int) -> None:
    rng = random.Random(seed)
    vocab = _vocabulary(rng, 3000)
    texts = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 30))) for _ in range(400)]
    scanned = scan_texts(texts)
    assert scanned is not None
    views = FormViews(np, scanned)
    # Terms no text holds that share a present token's fingerprint: each a candidate the check must drop.
    by_print: defaultdict[int, list[str]] = defaultdict(list)
    for word in vocab:
        by_print[fingerprint(word.encode())].append(word)
    present = {t for text in texts for t in text.split()}
    colliding = [w for words in by_print.values() if len(words) > 1 and any(p in present for p in words) for w in words]
    shifted = [w + "a" for w in list(present)[:200]] + [w[:-1] for w in list(present)[:200] if len(w) > 1]
    checked = hits = misses = 0
    for term in sorted(present | set(colliding) | set(shifted) | {"zz", "abababababababababab"}):
        pure = _pure(term, scanned)
        assert _postings(views, term) == pure, term
        checked += 1
        hits += bool(pure[0])
        misses += not pure[0]
    assert hits > 100 and misses > 20 and checked > 300
    assert any(w not in present for w in colliding)  # the test did meet a collision with an absent word


def test_a_long_term_beside_a_short_token_at_the_forms_end() -> None:
    # The last token is short: a longer term with its fingerprint's bytes must not read past the form.
    scanned = scan_texts(["ab", "b9", "x"])
    assert scanned is not None
    views = FormViews(np, scanned)
    for term in ["x", "xx", "x" * 40, "ab", "abb", "b9", "b", "9"]:
        assert _postings(views, term) == _pure(term, scanned), term


def test_a_colliding_token_too_short_to_hold_the_term_at_the_forms_end_is_not_read_past() -> None:
    # Lengths 44 and 300 share the fingerprint's length byte; with the same first two and last bytes they collide.
    short, long = "ab" + "c" * 40 + "dz", "ab" + "c" * 296 + "dz"
    assert fingerprint(short.encode()) == fingerprint(long.encode())
    for texts in ([short], [long, short], [short, long, "q", short], [long]):
        scanned = scan_texts(texts)
        assert scanned is not None
        views = FormViews(np, scanned)
        for term in (short, long):
            assert _postings(views, term) == _pure(term, scanned), (texts, term)
        assert _postings(views, long)[0] == [i for i, t in enumerate(texts) if t == long]


def test_a_form_with_wider_gaps_finds_each_tokens_end_by_its_own_mask() -> None:
    # Not a form scan_texts makes (its gaps are two blanks): the end of a token is then not implied by the next.
    made = scan_texts(["ab cd ab", "cd"])
    assert made is not None
    wide = made.latin.replace(b"  cd  ", b"    cd      ", 1)
    starts = array("i", [0, wide.index(b"\x00") + 1, len(wide) + 1])
    scanned = made._replace(latin=wide, latin_starts=starts)
    views = FormViews(np, scanned)
    for term in ["ab", "cd", "c", "abcd"]:
        assert _postings(views, term) == _pure(term, scanned), term
    assert _postings(views, "cd") == ([0, 1], [1, 1])


@pytest.mark.parametrize("size", [8, 9, 15, 16, 17, 24])
def test_tokens_of_one_fingerprint_told_apart_around_the_two_word_limit(size: int) -> None:
    # Same first two bytes, last byte and length: one fingerprint, so one group; the words differ inside.
    # Up to 16 bytes the group's rows are told apart by their two machine words, past it by the form.
    middles = ["0" * (size - 3), "1" + "0" * (size - 4), "0" * (size - 4) + "1", "9" * (size - 3)]
    words = ["ab" + m + "z" for m in middles]
    assert len({fingerprint(w.encode()) for w in words}) == 1
    rng = random.Random(size)
    for order in range(6):
        texts = [" ".join(rng.choice(words[: 2 + order % 3]) for _ in range(rng.randint(1, 6))) for _ in range(30)]
        scanned = scan_texts(texts)
        assert scanned is not None
        views = FormViews(np, scanned)
        for term in [*words, "ab" + "5" * (size - 3) + "z"]:
            assert _postings(views, term) == _pure(term, scanned), (order, term)
        first = texts[0].split()[0]
        assert _postings(views, first)[0] == [i for i, t in enumerate(texts) if first in t.split()]
