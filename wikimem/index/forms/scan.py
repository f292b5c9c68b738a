"""Scan forms: many texts made searchable in bulk, for cold loads without per-token Python.

Design constraint: a cold load of a large store must not pay a Python-level
step per token, yet the index must hold exactly the terms
:func:`wikimem.tokenize.tokenize` yields (bigram mode). :func:`scan_texts`
turns many texts at once (a few C-level substitutions over all of them
joined) into two joined forms plus each text's offsets in them -- no
object per text -- where :func:`scan_postings` finds one term's postings
with C-level searches, and :func:`scanned_occurrences` lists every term's
occurrences (a warm-up samples a batch for its common terms). Both read the same
encoding of the bigram rule (:func:`wikimem.tokenize.cjk_run_tokens`): a
latin form where tokens stand between spaces, and a CJK form where runs
stand between double spaces and a one-character run carries a mark. Oracle
tests hold both equal to ``tokenize()``.

A per-term analyzer (:mod:`wikimem.index.terms.analyzer`) maps terms after
``tokenize()``; :func:`scan_joined` takes its latin mapping (``terms``) and
builds the latin form from index terms in the same split and join (a
C-level ``map`` over a memo: no Python step per token), so the searches
above find analyzed terms exactly as the item-by-item path indexes them.
CJK forms are never analyzed. On a large load with numpy, both forms are
made by vector passes instead (:mod:`wikimem.index.terms.stem_table`,
:mod:`wikimem.index.forms.cjk_form`, ADR 0013): the same bytes.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable
from functools import partial
from itertools import accumulate, compress, count, repeat
from operator import add, methodcaller, rshift, sub
from typing import Any, NamedTuple

from wikimem.index import vectorized
from wikimem.index.forms.cjk_form import cjk_form
from wikimem.index.forms.load_scope import count_made, numpy_for
from wikimem.tokenize import CJK_CLASS, cjk_run_tokens

__all__ = [
    "DOC_BREAK", "LOWERS_TO_ASCII", "ONE_CHAR_RUN", "WORD_FIRST", "WORD_SECOND", "LatinTerms", "Located", "ScannedTexts",
    "count_located", "locate", "scan_joined", "scan_postings", "scan_texts", "scanned_occurrences", "words_form",
]

#: Joins texts for :func:`scan_texts`; kept by both substitutions.
DOC_BREAK = "\x00"
#: Marks a one-character CJK run in the CJK form (a run of one yields itself).
ONE_CHAR_RUN = "\x01"
_BREAK_BYTE = DOC_BREAK.encode()
_MARK_BYTE = ONE_CHAR_RUN.encode()
#: The only non-ASCII characters whose lowercase holds ASCII letters (İ, the Kelvin sign).
LOWERS_TO_ASCII = ("\u0130", "\u212a")
_LATIN_BYTE = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
# Byte tables: latin bytes kept (ASCII capitals lowercased), the break kept,
# all else a space; or only the break and non-ASCII bytes kept.
_LATIN_BYTES = bytes(
    c if c in _LATIN_BYTE or c == 0 else c + 32 if 65 <= c <= 90 else 32 for c in range(256)
)
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))
_NON_ASCII_KEPT = bytes(c if c == 0 or c >= 0x80 else 32 for c in range(256))
_NON_CJK = re.compile(f"[^{CJK_CLASS}{DOC_BREAK}]+")
#: Word codes (:mod:`wikimem.index.forms.words`): a segmented word stands in a text as a pair of
#: private-use characters, first from ``WORD_FIRST``, second from ``WORD_SECOND``; an ideograph run's words'
#: codes stand side by side, one run of the form, each code one token (no pair across two codes is one).
WORD_FIRST = ("\ue000", "\uefff")
WORD_SECOND = ("\uf000", "\uf8ff")
_NON_CJK_WORDS = re.compile(f"[^{CJK_CLASS}{WORD_FIRST[0]}-{WORD_SECOND[1]}{DOC_BREAK}]+")
#: The start of a run of word codes, and a character of a coded form that is neither a code's nor a blank.
_CODED_RUN = re.compile(f" [{WORD_FIRST[0]}-{WORD_FIRST[1]}]")
_NOT_CODE = re.compile(f"[^ {WORD_FIRST[0]}-{WORD_SECOND[1]}]")
# Leading literal (not a lookbehind) so the regex engine can skip ahead fast.
_SINGLE_RUN = re.compile(f"  ([{CJK_CLASS}])(?=  )")
# For _cjk_runs: UTF-8 continuation bytes, lead bytes E4-E9 (U+4000-U+9FFF), blank and break.
_COMMON_CJK_BYTES = bytes([*range(0x80, 0xC0), *range(0xE4, 0xEA), 0x20, 0x00])
_HEXAGRAMS = "\u4dc0".encode()[:2]  # U+4DC0-U+4DFF: the lead bytes E4 B7, not CJK_CLASS
_COMMON_MARKS = ("，", "。")  # one lead byte each outside E4-E9 (EF, E3)


class ScannedTexts(NamedTuple):
    """Searchable forms of many texts (see :func:`scan_texts`), joined by ``DOC_BREAK``."""

    latin: bytes  # b"  tok  tok  \x00  tok  ": tokens between double spaces
    cjk: str  # "  run  x\x01  \x00  run  ": runs between double spaces, \x01 marks a one-character run
    latin_starts: array[int]  # text i's latin form is latin[latin_starts[i]:latin_starts[i + 1] - 1]
    cjk_starts: array[int]
    lengths: array[int]  # per text: its token count in bigram mode


#: Maps a form's latin tokens (as ``str``; break characters included, to be kept) to index terms, one for one.
#: It may also offer ``latin_form(latin: bytes)``: the whole form in numpy (see :func:`scan_joined`).
LatinTerms = Callable[[list[str]], Iterable[str]]
#: A latin form made in numpy: the form, each text's start in it, each text's latin count + 1.
LatinForm = tuple[bytes, "array[int]", Any]


def scan_texts(texts: list[str], terms: LatinTerms | None = None) -> ScannedTexts | None:
    """Searchable forms of many texts, in bulk; ``None`` if one holds ``\\x00`` or ``\\x01``.

    The caller then tokenizes text by text. ``terms``: see :func:`scan_joined`.
    """
    if not texts:
        return None
    return scan_joined(DOC_BREAK.join(texts).encode("utf-8"), len(texts), terms)


def scan_joined(
    joined: bytes, n_texts: int, terms: LatinTerms | None = None, *, cjk: str | None = None, lower: bool = False
) -> ScannedTexts | None:
    """:func:`scan_texts` for texts already joined by ``DOC_BREAK``, as UTF-8 (a whole file at once).

    A few C-level passes, no per-token Python. ASCII letters are lowercased
    by a byte table; texts holding one of the two non-ASCII characters whose
    lowercase is ASCII (:data:`LOWERS_TO_ASCII`) are lowercased as ``str``
    first, as ``tokenize()`` does. ``None`` when the joined text does not
    hold exactly ``n_texts`` texts, holds ``\\x01`` or is not valid UTF-8.
    ``terms`` (an analyzer's, e.g. stemming) replaces each latin token by its
    index term while the form is built: the same split and join, no second
    pass over the form (token counts cannot change: one term per token).
    Once the load is large and numpy is on (:func:`wikimem.disk.loader.load_scope`), a ``terms``
    offering ``latin_form`` makes the whole latin form in numpy instead
    (:mod:`wikimem.index.terms.stem_table`: no Python step per token), with its
    texts' starts and counts; the same bytes either way.
    ``cjk``: the texts' CJK form, made already (jieba's word codes:
    :func:`words_form`), with ``lower`` saying whether the texts hold one of
    :data:`LOWERS_TO_ASCII`; the latin form is made here as always.
    """
    if joined.count(_BREAK_BYTE) != n_texts - 1 or _MARK_BYTE in joined:
        return None
    joined = b" " + joined.replace(_BREAK_BYTE, b" \x00 ") + b" "  # a break ends every run
    vector = numpy_for(len(joined))
    coded = cjk is not None
    if cjk is not None:
        fast: tuple[str, Any] | None = (cjk, None)
        if lower:
            joined = joined.decode("utf-8").lower().encode("utf-8")
    else:
        fast = cjk_form(vectorized.numpy_module(), joined) if vector else None
    if fast is not None:
        cjk, units = fast
    else:
        units = None
        # The CJK form: ASCII blanked by a byte table and blank runs collapsed
        # first (C-level), so the regex only walks the non-ASCII rest.
        rest_bytes = b" ".join(joined.translate(_NON_ASCII_KEPT).split())
        try:
            rest = rest_bytes.decode("utf-8")
        except UnicodeDecodeError:
            return None  # blanking ASCII keeps (in)validity: the texts were not UTF-8
        if any(map(rest.__contains__, LOWERS_TO_ASCII)):
            joined = joined.decode("utf-8").lower().encode("utf-8")
        cjk = _SINGLE_RUN.sub(f"  \\1{ONE_CHAR_RUN}", _cjk_runs(rest_bytes, rest))
        del rest, rest_bytes
    # Latin is ASCII, so bytes.translate (a C table lookup per byte) can
    # lowercase it and blank everything else (a multibyte character's
    # continuation bytes go away); tokens are then joined by double blanks
    # so that the matches of " tok " in "tok tok" stay apart.
    latin_bytes = joined.translate(_LATIN_BYTES, _CONTINUATION_BYTES)
    made: LatinForm | None = None
    if vector and terms is not None:
        form: Callable[[bytes], LatinForm | None] | None = getattr(terms, "latin_form", None)
        made = form(latin_bytes) if form is not None else None
    if made is not None:
        latin = made[0]
    elif terms is None:
        latin = b"  " + b"  ".join(latin_bytes.split()) + b"  "
    else:
        # Mapped as str (the form is ASCII: decoding and encoding are
        # copies): the map's dict lookups take the str fast path.
        latin = ("  " + "  ".join(terms(latin_bytes.decode("ascii").split())) + "  ").encode("ascii")
    del latin_bytes
    count_made(len(latin) + len(cjk))
    return ScannedTexts(latin, cjk, *_offsets(latin, cjk, vector, made, units, coded=coded))


def words_form(coded: str) -> str:
    """The CJK form of texts joined by ``DOC_BREAK`` whose ideograph runs are word codes (:mod:`wikimem.index.forms.words`).

    The same string as the bigram path's form would be with the codes
    taken for CJK characters: runs of CJK characters and of codes between
    double blanks (the codes of one ideograph run stand side by side), a
    mark after a one-character run, each break a run of its own. A code's
    pairs are found as any bigram is; the pair across two codes (second
    character, then first) is no token: :func:`_offsets` does not count
    it, no term's pair is one, and :func:`scanned_occurrences` skips it.
    """
    spaced = coded.replace(DOC_BREAK, f" {DOC_BREAK} ")
    return _SINGLE_RUN.sub(f"  \\1{ONE_CHAR_RUN}", _NON_CJK_WORDS.sub("  ", f" {spaced} "))


def _offsets(
    latin: bytes, cjk: str, vector: bool | None = None, made: LatinForm | None = None, units: Any = None,
    *, coded: bool = False,
) -> tuple[array[int], array[int], array[int]]:
    """Each text's start in both forms and its token count: ``latin_starts, cjk_starts, lengths``.

    Token counts come from blanks. A latin form "  t1  t2  " of k tokens
    holds k + 1 double blanks and no other blank: 2k + 2 blanks. CJK
    separators are exactly two spaces, at both ends too: k runs show
    k + 1 = s // 2 of them (s spaces). A run of c characters has c - 1
    bigrams, a single run (c = 1, plus its mark) one token, so a form of
    length n holds n - s - (k + 1) + 1 CJK tokens: n - s - s // 2 here,
    the + 1 being the latin count's (k + 1 for k tokens). In a form with
    word codes (``coded``: :func:`words_form`) a run of w codes is 2w
    characters and w tokens: each pair across two codes is taken off.

    Pure Python pays about ten C-level ``map`` steps per text (a split of
    each form, then counts and sums text by text), a cost per text that a
    large load feels.
    ``vector`` (the caller's :func:`~wikimem.index.forms.load_scope.numpy_for`; None: decided here): the
    load's forms are large enough to pay for numpy's import
    (:data:`wikimem.index.vectorized.SCAN_MIN`, the size at which the index
    itself loads numpy at the end of a load), and the same counts come from
    whole-form vector passes with no step per text -- the latin ones from ``made``
    when the stem table made the form, the CJK ones over ``units`` when
    :mod:`wikimem.index.forms.cjk_form` made it; ``WIKIMEM_NUMPY=0`` keeps the pure
    path, and both give the same arrays (tests compare them).
    """
    if vector is None:
        vector = numpy_for(len(latin) + len(cjk))
    if vector:
        return _vector_offsets(latin, cjk, made, units, coded=coded)
    latin_texts = latin.split(_BREAK_BYTE)
    latin_starts = _starts(map(len, latin_texts))
    cjk_texts = cjk.split(DOC_BREAK)
    cjk_starts = _starts(map(len, cjk_texts))
    n_latin = map(rshift, map(bytes.count, latin_texts, repeat(b" ")), repeat(1))
    spaces = list(map(str.count, cjk_texts, repeat(" ")))
    n_cjk = map(sub, map(len, cjk_texts), map(add, spaces, map(rshift, spaces, repeat(1))))
    if coded:  # w codes in c runs of codes: 2w characters, w - c pairs across two codes (rare matches: cheap searches)
        codes = map(sub, map(sub, map(len, cjk_texts), spaces), map(len, map(_NOT_CODE.findall, cjk_texts)))
        n_cjk = map(sub, n_cjk, map(sub, map(rshift, codes, repeat(1)), map(len, map(_CODED_RUN.findall, cjk_texts))))
    return latin_starts, cjk_starts, array("i", map(add, n_latin, n_cjk))


def _vector_offsets(
    latin: bytes, cjk: str, made: LatinForm | None = None, units: Any = None, *, coded: bool = False
) -> tuple[array[int], array[int], array[int]]:
    """:func:`_offsets` in numpy passes over each form's code units (the CJK form's as UTF-32, or ``units``: one a character)."""
    import numpy as np  # noqa: PLC0415 -- optional; vectorized.active() has imported it

    if made is None:
        starts, latin_spaces, _ = _text_blanks(np, np.frombuffer(latin, np.uint8))
        latin_starts, latin_counts = _ints(np, starts), latin_spaces >> 1
    else:
        _, latin_starts, latin_counts = made
    if units is None:
        units = np.frombuffer(cjk.encode("utf-32-le"), np.uint32)
    cjk_starts, cjk_spaces, cjk_sizes = _text_blanks(np, units)
    lengths = latin_counts + cjk_sizes - (cjk_spaces + (cjk_spaces >> 1))
    if coded:
        second = units[:-1] >= ord(WORD_SECOND[0])
        second &= units[:-1] <= ord(WORD_SECOND[1])
        second &= units[1:] != ord(" ")
        joins = np.searchsorted(np.flatnonzero(second), cjk_starts[1:] - 1)
        lengths -= np.diff(joins, prepend=0)
    return latin_starts, _ints(np, cjk_starts), _ints(np, lengths)


def _text_blanks(np: Any, codes: Any) -> tuple[Any, Any, Any]:
    """One form's text starts (with :func:`_starts`' sentinel), blanks per text and text sizes."""
    breaks = np.flatnonzero(codes == 0)
    starts = np.empty(len(breaks) + 2, np.int64)
    starts[0], starts[-1] = 0, len(codes) + 1
    starts[1:-1] = breaks + 1
    ends = np.append(breaks, len(codes))
    # Blanks before each break: a search among the blanks' positions
    # (cheaper than a cumulative count over every code unit).
    blanks_before = np.searchsorted(np.flatnonzero(codes == 32), ends)
    blanks = blanks_before - np.concatenate(([0], blanks_before[:-1]))
    return starts, blanks, ends - starts[:-1]


def _ints(np: Any, values: Any) -> array[int]:
    out = array("i")
    out.frombytes(values.astype(np.int32).tobytes())
    return out


def _cjk_runs(rest_bytes: bytes, rest: str) -> str:
    """``f" {rest} "`` with each run of non-CJK characters (never the break) made a double blank.

    ``rest``: the texts' non-ASCII characters, blank-separated (``rest_bytes``
    its UTF-8). The regex walks every character through a class of ranges,
    the slow part of a Chinese load. Chinese prose is mostly ideographs from U+4000 on
    (UTF-8 lead bytes E4-E9, less U+4DC0-U+4DFF, not CJK) and the two
    commonest marks ，and 。: when a byte table finds no other lead byte
    than theirs, and as many as they have, the marks become blanks and the
    runs are the blank-split words, joined by double blanks (C-level
    replaces and a split, cheaper than the regex). Anything else (kana, Hangul, other symbols) takes the regex.
    """
    if _HEXAGRAMS in rest_bytes or len(rest_bytes.translate(None, _COMMON_CJK_BYTES)) != sum(map(rest.count, _COMMON_MARKS)):
        return _NON_CJK.sub("  ", f" {rest} ")
    for mark in _COMMON_MARKS:
        rest = rest.replace(mark, " ")
    runs = list(filter(None, rest.split(" ")))
    return f"  {'  '.join(runs)}  " if runs else "  "


def _starts(lengths: object) -> array[int]:
    """Offsets of texts joined by a one-character break, plus the end (+1) as a sentinel."""
    out = array("i", [0])
    out.extend(accumulate(map(add, lengths, repeat(1))))  # type: ignore[call-overload]
    return out


class Located(NamedTuple):
    """Where a term's occurrences are to be counted: its form, its needle there, the texts' offsets."""

    hay: bytes | str  # the latin form (bytes) or the CJK form (str)
    needle: bytes | str  # b" tok " in the latin form; a two-character key in the CJK form
    starts: array[int]


def term_form(term: str) -> tuple[bool, str] | None:
    """Which form could hold ``term``: ``(True, term)`` the latin one, ``(False, pair)`` the CJK one; None: no text.

    The one rule for what a form can hold (the search and the segment
    cache both follow it): a term with a blank, a break or the
    one-character marker is in no text; an ASCII-led term is in the latin
    form (ASCII only); any other is a two-character pair of the CJK form
    (a one-character term with the marker), or in no text.
    """
    if not term or " " in term or DOC_BREAK in term or ONE_CHAR_RUN in term:
        return None
    if term[0] < "\x80":
        return (True, term) if term.isascii() else None
    pair = term + ONE_CHAR_RUN if len(term) == 1 else term
    return (False, pair) if len(pair) == 2 else None


def locate(term: str, scanned: ScannedTexts) -> Located | None:
    """The form and needle of ``term`` in ``scanned``; ``None`` when no text holds it.

    A C-level ``in`` first (most terms miss most segments); a term bigram
    mode never produces is in no text.
    """
    form = term_form(term)
    if form is None:
        return None
    latin, word = form
    if latin:
        # The bare term first: the space-ended needle is slow to search for.
        spaced = f" {word} ".encode()
        if word.encode() not in scanned.latin or spaced not in scanned.latin:
            return None
        return Located(scanned.latin, spaced, scanned.latin_starts)
    if word not in scanned.cjk:
        return None
    return Located(scanned.cjk, word, scanned.cjk_starts)


def scan_postings(term: str, scanned: ScannedTexts, common: bool = False) -> tuple[list[int], list[int]] | None:
    """The texts of ``scanned`` holding ``term`` (ascending indexes) and its counts there; ``None`` when none does."""
    where = locate(term, scanned)
    return None if where is None else count_located(where, scanned, common)


def count_located(where: Located, scanned: ScannedTexts, common: bool = False) -> tuple[list[int], list[int]]:
    """The texts holding a located term and its counts there, in C-level steps.

    One ``split`` on the needle: the text of each occurrence is the number
    of breaks before it, counted piece by piece (C-level ``count``,
    ``accumulate`` and ``Counter``) -- no Python step per text or per
    occurrence. A term in a large share of texts (``common``: the caller's
    guess from the segments before) is counted text by text instead, one
    C-level ``count`` each, which is cheaper once occurrences outnumber a
    quarter of the texts. A doubled bigram (``"哈哈"`` in ``"哈哈哈"``) has
    overlapping matches, found with a lookahead.
    """
    hay, needle, starts = where
    breaks: bytes | str = _BREAK_BYTE if isinstance(hay, bytes) else DOC_BREAK
    if isinstance(needle, str) and needle[0] == needle[1]:
        return _overlapping(needle, scanned)
    if common:
        counts = list(map(hay.count, repeat(needle), starts, starts[1:]))  # type: ignore[arg-type]
        return list(compress(range(len(counts)), counts)), list(compress(counts, counts))
    pieces = hay.split(needle)  # type: ignore[arg-type]
    del pieces[-1]  # after the last occurrence
    per_text = Counter(accumulate(map(type(breaks).count, pieces, repeat(breaks))))  # type: ignore[arg-type]
    return list(per_text), list(per_text.values())


def _overlapping(key: str, scanned: ScannedTexts) -> tuple[list[int], list[int]]:
    """:func:`count_located` for a doubled bigram, whose matches overlap."""
    starts = scanned.cjk_starts
    found = re.compile(f"(?={re.escape(key)})").finditer(scanned.cjk)
    per_text = Counter(map(bisect_right, repeat(starts), map(_match_start, found)))
    return [i - 1 for i in per_text], list(per_text.values())


_match_start = methodcaller("start")


def scanned_occurrences(base: int, scanned: ScannedTexts) -> dict[str, array[int]]:
    """Each term of scanned texts (doc ids from ``base``) with its occurrences, ascending.

    The tokens of a text are a C-level ``split`` of its latin form plus the
    bigrams of each CJK run (the codes of a run of word codes), the same
    terms :func:`scan_postings` finds.
    """
    occ: defaultdict[str, array[int]] = defaultdict(partial(array, "i"))
    get = occ.__getitem__
    for doc, latin, cjk in zip(count(base), scanned.latin.split(_BREAK_BYTE), scanned.cjk.split(DOC_BREAK)):
        tokens = latin.decode().split()
        for run in cjk.split():
            if run[-1] == ONE_CHAR_RUN:
                tokens.append(run[0])
            elif WORD_FIRST[0] <= run[0] <= WORD_FIRST[1]:
                tokens.extend(map(run.__getitem__, map(slice, range(0, len(run), 2), range(2, len(run) + 1, 2))))
            else:
                tokens.extend(cjk_run_tokens(run))
        deque(map(array.append, map(get, tokens), repeat(doc)), 0)
    return occ
