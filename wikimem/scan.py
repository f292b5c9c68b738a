"""Scan forms: many texts made searchable in bulk, for cold loads without per-token Python.

Design constraint: a cold load of a large store must not pay a Python-level
step per token, yet the index must hold exactly the terms
:func:`wikimem.tokenize.tokenize` yields (bigram mode). :func:`scan_texts`
turns many texts at once (a few C-level substitutions over all of them
joined) into forms where :func:`scan_counts` finds one term's frequency per
text with C-level ``count`` calls, and :func:`scanned_occurrences` lists
every term's occurrences when a warm-up folds a batch. Both read the same
encoding of the bigram rule (:func:`wikimem.tokenize.cjk_run_tokens`): a
latin form where tokens stand between spaces, and a CJK form where runs
stand between double spaces and a one-character run carries a mark. Oracle
tests hold both equal to ``tokenize()``.

A per-term analyzer (stemming, stop words) would map terms after
``tokenize()``; these forms find raw terms only, so an index with an
analyzer indexes text by text (``scan=None``) or folds analyzed keys.
"""

from __future__ import annotations

import re
from array import array
from collections import defaultdict, deque
from functools import partial
from itertools import count, repeat
from operator import add, methodcaller, sub
from typing import NamedTuple

from wikimem.tokenize import CJK_CLASS, cjk_run_tokens

__all__ = ["DOC_BREAK", "ONE_CHAR_RUN", "ScannedTexts", "scan_counts", "scan_texts", "scanned_occurrences"]

#: Joins texts for :func:`scan_texts`; kept by both substitutions.
DOC_BREAK = "\x00"
#: Marks a one-character CJK run in the CJK form (a run of one yields itself).
ONE_CHAR_RUN = "\x01"
_BREAK_BYTE = DOC_BREAK.encode()
_LATIN_BYTE = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
# Byte tables: latin bytes kept (or all made "a"), the break kept, all else a space.
_LATIN_BYTES = bytes(c if c in _LATIN_BYTE or c == 0 else 32 for c in range(256))
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))
_LATIN_STARTS = bytes(97 if c in _LATIN_BYTE else c if c == 0 else 32 for c in range(256))
_NON_CJK = re.compile(f"[^{CJK_CLASS}{DOC_BREAK}]+")
# Leading literal (not a lookbehind) so the regex engine can skip ahead fast.
_SINGLE_RUN = re.compile(f"  ([{CJK_CLASS}])(?=  )")
class ScannedTexts(NamedTuple):
    """Searchable forms of many texts (see :func:`scan_texts`)."""

    latin: list[bytes]  # per text: b"  tok    tok  " (two or more spaces between tokens)
    cjk: list[str]  # per text: "  run  x\x01  " (\x01 marks a one-character run)
    lengths: list[int]  # per text: its token count in bigram mode
    latin_all: bytes  # the latin forms joined by DOC_BREAK (one search finds a term's texts)
    cjk_all: str


def scan_texts(texts: list[str]) -> ScannedTexts | None:
    """Searchable forms of many texts for a lazily built index, in bulk.

    A few C-level passes over all texts joined, no per-token Python;
    :func:`scan_counts` counts a term's occurrences in these forms. ``None``
    when a text contains ``\\x00`` or ``\\x01`` (the caller then tokenizes
    text by text).
    """
    joined = " " + f" {DOC_BREAK} ".join(texts).lower() + " "
    if joined.count(DOC_BREAK) != max(len(texts) - 1, 0) or ONE_CHAR_RUN in joined:
        return None
    # Latin is ASCII, so bytes.translate (a C table lookup per byte) can blank
    # everything else (a multibyte character's continuation bytes go away);
    # doubled spaces keep the matches of " tok " in "tok tok" apart.
    encoded = joined.encode("utf-8")
    latin_all = encoded.translate(_LATIN_BYTES, _CONTINUATION_BYTES).replace(b" ", b"  ")
    latin = latin_all.split(_BREAK_BYTE)
    # Every latin token starts where a space meets a token byte.
    n_latin = map(bytes.count, encoded.translate(_LATIN_STARTS).split(_BREAK_BYTE), repeat(b" a"))
    cjk_all = _SINGLE_RUN.sub(f"  \\1{ONE_CHAR_RUN}", _NON_CJK.sub("  ", joined))
    cjk = cjk_all.split(DOC_BREAK)
    # CJK separators are exactly two spaces, at both ends too: k runs show
    # k + 1 of them. A run of c characters has c - 1 bigrams, a single run
    # (c = 1, plus its mark) one token, so with s spaces a form of length n
    # holds n - s - (k + 1) + 1 CJK tokens.
    n_cjk = map(sub, map(len, cjk), map(add, map(str.count, cjk, repeat(" ")), map(str.count, cjk, repeat("  "))))
    lengths = list(map(add, map(add, n_latin, n_cjk), repeat(1)))
    return ScannedTexts(latin, cjk, lengths, latin_all, cjk_all)


def scan_counts(term: str, scanned: ScannedTexts) -> list[int] | None:
    """Per text of ``scanned``, how often ``term`` occurs; ``None`` if in none.

    One search over all texts' forms first (most terms miss most batches),
    then one C-level ``count`` per text. A doubled bigram (``"哈哈"`` in
    ``"哈哈哈"``) has overlapping matches, counted with a lookahead regex. A
    term bigram mode never produces is in no text.
    """
    if not term or " " in term or DOC_BREAK in term or ONE_CHAR_RUN in term:
        return None
    if term[0] < "\x80":
        if not term.isascii():
            return None
        needle = f" {term} ".encode()
        # The bare term first: the space-ended needle is slow to search for.
        if term.encode() not in scanned.latin_all or needle not in scanned.latin_all:
            return None
        return list(map(methodcaller("count", needle), scanned.latin))
    key = term + ONE_CHAR_RUN if len(term) == 1 else term
    if len(key) != 2 or key not in scanned.cjk_all:
        return None
    if key[0] != key[1]:
        return list(map(methodcaller("count", key), scanned.cjk))
    findall = re.compile(f"(?={re.escape(key)})").findall
    return [len(findall(text)) for text in scanned.cjk]



def scanned_occurrences(base: int, scanned: ScannedTexts) -> dict[str, array]:
    """Each term of scanned texts (doc ids from ``base``) with its occurrences, ascending.

    The tokens of a text are a C-level ``split`` of its latin form plus the
    bigrams of each CJK run, the same terms :func:`scan_counts` finds.
    """
    occ: defaultdict[str, array] = defaultdict(partial(array, "i"))
    get = occ.__getitem__
    for doc, latin, cjk in zip(count(base), scanned.latin, scanned.cjk):
        tokens = latin.decode().split()
        for run in cjk.split():
            if run[-1] == ONE_CHAR_RUN:
                tokens.append(run[0])
            else:
                tokens.extend(cjk_run_tokens(run))
        deque(map(array.append, map(get, tokens), repeat(doc)), 0)
    return occ
