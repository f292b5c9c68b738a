"""Tokens for BM25 and token budgets: fast by default, jieba only when asked for.

This is the indexing hot path (every item of a 100k-item store goes through
it on a cold load), so the default tokenizer is one precompiled regex plus
list slicing: latin runs ``[a-z0-9]+`` of the lowercased text, and character
bigrams for runs of CJK characters. jieba gives real Chinese words but costs
an import plus ~1 s of dictionary loading and runs 10-20x slower, so it is
imported lazily -- only when a call actually tokenizes with it -- cached, and
never touched by ``import wikimem``.

What counts as CJK (one run, no separator needed between its characters):
CJK Unified Ideographs (U+4E00-9FFF), Extension A (U+3400-4DBF), Extensions
B-H (U+20000-3134F), Compatibility Ideographs (U+F900-FAFF and U+2F800-2FA1F),
the ideographic iteration mark and number zero (``々``, ``〇``), Hiragana,
Katakana (without the ``・`` middle dot, which is punctuation) and Hangul
syllables / compatibility jamo. Kana and Hangul are included because Japanese
and Korean text has the same "no spaces between words" shape, and dropping
them would make such memories unfindable. Everything else -- punctuation,
whitespace, symbols, non-ASCII latin letters -- separates runs and yields no
token. Characters outside ``[a-z0-9]`` after lowercasing (``é``, full-width
``Ａ``) are separators too, exactly as the contract's ``[a-z0-9]+`` says.

With jieba, ideograph runs are segmented into words; kana/Hangul runs (which
jieba's dictionary does not cover) still become bigrams, and latin runs are
the same ``[a-z0-9]+`` tokens as without jieba, so only the Chinese part of
the vocabulary changes between the two modes.

A cold index load must not pay a Python-level step per token, so
:func:`scan_texts` turns many texts at once (a few C-level substitutions)
into searchable forms where :func:`scan_counts` finds a term's frequency per
text with ``count``, plus each text's token count; the index finds a term's
postings with them on first use. The tests hold these counts equal to
:func:`tokenize`'s (bigram mode).
"""

from __future__ import annotations

import importlib.util
import logging
import re
from itertools import repeat
from operator import add, methodcaller, sub
from types import ModuleType
from typing import NamedTuple

__all__ = [
    "DOC_BREAK",
    "ScannedTexts",
    "est_tokens",
    "jieba_available",
    "resolve_jieba",
    "scan_counts",
    "scan_texts",
    "tokenize",
]

_IDEOGRAPHS = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005\u3007"
    "\U00020000-\U0003134f\U0002f800-\U0002fa1f"
)
_KANA_HANGUL = (
    "\u3041-\u3096\u3099-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
    "\u3131-\u318e\uac00-\ud7a3"
)
#: Character class body (without brackets) of everything treated as CJK.
CJK_CLASS = _IDEOGRAPHS + _KANA_HANGUL

# One regex for the bigram path: a run is either latin (always starts below
# U+0080) or CJK (always above), which the loop tells apart by its first char.
_RUNS = re.compile(f"[a-z0-9]+|[{CJK_CLASS}]+")
# The jieba path keeps ideographs apart from kana/Hangul.
_RUNS_SPLIT = re.compile(f"[a-z0-9]+|([{_IDEOGRAPHS}]+)|[{_KANA_HANGUL}]+")
#: Joins texts for :func:`scan_texts`; kept by both substitutions.
DOC_BREAK = "\x00"
_SINGLE_MARK = "\x01"
_BREAK_BYTE = DOC_BREAK.encode()
_LATIN_BYTE = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
# Byte tables: latin bytes kept (or all made "a"), the break kept, all else a space.
_LATIN_BYTES = bytes(c if c in _LATIN_BYTE or c == 0 else 32 for c in range(256))
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))
_LATIN_STARTS = bytes(97 if c in _LATIN_BYTE else c if c == 0 else 32 for c in range(256))
_NON_CJK = re.compile(f"[^{CJK_CLASS}{DOC_BREAK}]+")
# Leading literal (not a lookbehind) so the regex engine can skip ahead fast.
_SINGLE_RUN = re.compile(f"  ([{CJK_CLASS}])(?=  )")
# est_tokens: one per latin word, one per CJK character.
_EST_UNITS = re.compile(f"[a-z0-9]+|[{CJK_CLASS}]")

_jieba_module: ModuleType | None = None
#: None = not yet checked; False = not importable (or its import failed).
_jieba_importable: bool | None = None


def jieba_available() -> bool:
    """Whether jieba can be imported, answered without importing it."""
    global _jieba_importable
    if _jieba_importable is None:
        try:
            _jieba_importable = importlib.util.find_spec("jieba") is not None
        except (ImportError, ValueError):
            _jieba_importable = False
    return _jieba_importable


def resolve_jieba(use_jieba: bool | None = None) -> bool:
    """The effective mode: ``True`` when tokenizing with ``use_jieba`` uses jieba.

    ``False`` never uses it; ``None`` (auto) and ``True`` (prefer) use it when
    it is importable, otherwise fall back to bigrams rather than fail. Does
    not import jieba.
    """
    if use_jieba is False:
        return False
    return jieba_available()


def _jieba() -> ModuleType | None:
    """The jieba module, imported on first need and cached; ``None`` if absent."""
    global _jieba_module, _jieba_importable
    if _jieba_module is not None:
        return _jieba_module
    if not jieba_available():
        return None
    try:
        import jieba  # noqa: PLC0415 - deliberately lazy: slow import + dictionary
    except Exception:  # a broken install must degrade to bigrams, not crash
        _jieba_importable = False
        return None
    # jieba logs "Building prefix dict ..." to stderr on first use, which
    # garbles a terminal UI and CLI output; keep only its warnings.
    jieba.setLogLevel(logging.WARNING)
    _jieba_module = jieba
    return jieba


def _bigram_tokens(lowered: str) -> list[str]:
    out: list[str] = []
    append = out.append
    extend = out.extend
    for run in _RUNS.findall(lowered):
        if run[0] < "\x80" or len(run) == 1:
            append(run)
        else:
            extend([run[i : i + 2] for i in range(len(run) - 1)])
    return out


def _jieba_tokens(lowered: str, jieba: ModuleType) -> list[str]:
    out: list[str] = []
    append = out.append
    extend = out.extend
    cut = jieba.lcut
    for match in _RUNS_SPLIT.finditer(lowered):
        run = match.group()
        if match.group(1) is not None:
            # The run holds ideographs only, so every piece jieba returns is a
            # word: no punctuation or whitespace can come back.
            extend(cut(run))
        elif run[0] < "\x80" or len(run) == 1:
            append(run)
        else:
            extend([run[i : i + 2] for i in range(len(run) - 1)])
    return out


def tokenize(text: str, *, use_jieba: bool | None = None) -> list[str]:
    """Split ``text`` into BM25 terms.

    Latin runs ``[a-z0-9]+`` of the lowercased text; CJK runs become
    character bigrams (a one-character run yields that character), or jieba
    words when jieba is importable and ``use_jieba`` is not ``False``
    (``None`` = auto, ``True`` = prefer; see :func:`resolve_jieba`).
    """
    lowered = text.lower()
    if use_jieba is not False:
        jieba = _jieba()
        if jieba is not None:
            return _jieba_tokens(lowered, jieba)
    return _bigram_tokens(lowered)


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
    if joined.count(DOC_BREAK) != max(len(texts) - 1, 0) or _SINGLE_MARK in joined:
        return None
    # Latin is ASCII, so bytes.translate (a C table lookup per byte) can blank
    # everything else (a multibyte character's continuation bytes go away);
    # doubled spaces keep the matches of " tok " in "tok tok" apart.
    encoded = joined.encode("utf-8")
    latin_all = encoded.translate(_LATIN_BYTES, _CONTINUATION_BYTES).replace(b" ", b"  ")
    latin = latin_all.split(_BREAK_BYTE)
    # Every latin token starts where a space meets a token byte.
    n_latin = map(bytes.count, encoded.translate(_LATIN_STARTS).split(_BREAK_BYTE), repeat(b" a"))
    cjk_all = _SINGLE_RUN.sub(f"  \\1{_SINGLE_MARK}", _NON_CJK.sub("  ", joined))
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
    if not term or " " in term or DOC_BREAK in term or _SINGLE_MARK in term:
        return None
    if term[0] < "\x80":
        if not term.isascii():
            return None
        needle = f" {term} ".encode()
        # The bare term first: the space-ended needle is slow to search for.
        if term.encode() not in scanned.latin_all or needle not in scanned.latin_all:
            return None
        return list(map(methodcaller("count", needle), scanned.latin))
    key = term + _SINGLE_MARK if len(term) == 1 else term
    if len(key) != 2 or key not in scanned.cjk_all:
        return None
    if key[0] != key[1]:
        return list(map(methodcaller("count", key), scanned.cjk))
    findall = re.compile(f"(?={re.escape(key)})").findall
    return [len(findall(text)) for text in scanned.cjk]


def est_tokens(text: str) -> int:
    """A cheap LLM-token estimate: one per latin word plus one per CJK character."""
    return len(_EST_UNITS.findall(text.lower()))
