"""jieba's words in the scan forms: a cold load with jieba that pays no Python step per token.

Design constraint: with jieba the index must hold exactly the terms
:func:`wikimem.tokenize.tokenize` yields (ideograph runs as jieba's words,
kana/Hangul as bigrams, latin as tokens), yet a cold load must build its
forms in bulk (C-level passes, postings made on a term's first use) like
the bigram path, and must not segment again what an earlier process
segmented.

How: every distinct word gets a code, a pair of private-use characters
(first from :data:`~wikimem.index.forms.scan.WORD_FIRST`, second from
:data:`~wikimem.index.forms.scan.WORD_SECOND`), and a file's CJK scan form is
made from its texts with their ideograph runs replaced by their words'
codes side by side, one run of the form (real private-use characters,
separators to ``tokenize()``, become blanks;
:func:`wikimem.index.forms.scan.words_form`): two characters a word, since
the forms of a large store are a large share of its memory. A code is one
bigram, the word's token, which no other code or kana pair can match (a
pair's first character starts every code and never ends one, so the pair
across two codes is no term's, and the forms' counts leave it out). A term is looked up by
its code (:meth:`WordForms.form_term`); a word no file holds has none and
is found nowhere. Kana and Hangul runs are the bigram path's, and the
latin form is made from the texts as on the bigram path.

Each file's form is kept by its content digest in the segmentation cache
(:mod:`wikimem.index.forms.segmentation_cache`) with the word table, so the next
process reads it instead of running jieba and making the form; a group's
form is its files' forms joined by the break. Codes mean something only
with the table they were made with, so the cache holds the two together
(one file, read and written whole), and a process whose jieba words differ
from the ones the cache was made by segments again (:meth:`WordForms.begin`).
"""

from __future__ import annotations

import hashlib
import logging
import re
from pathlib import Path

from wikimem.index.forms import segmentation_cache
from wikimem.index.forms.scan import (
    DOC_BREAK, LOWERS_TO_ASCII, WORD_FIRST, WORD_SECOND, LatinTerms, ScannedTexts, scan_joined, words_form,
)
from wikimem.index.forms.segmentation_cache import Segmentation
from wikimem.tokenize import IDEOGRAPHS, jieba_dictionary, jieba_words, prepare_jieba

__all__ = ["WordForms"]

log = logging.getLogger(__name__)

_FIRST = ord(WORD_FIRST[0])
_SECOND = ord(WORD_SECOND[0])
_FIRSTS = ord(WORD_FIRST[1]) - _FIRST + 1
#: How many words codes can tell apart.
CAPACITY = _FIRSTS * (ord(WORD_SECOND[1]) - _SECOND + 1)
_RUN = re.compile(f"[{IDEOGRAPHS}]+")
_IDEOGRAPH = re.compile(f"[{IDEOGRAPHS}]")
_CODES = re.compile(f"[{WORD_FIRST[0]}-{WORD_SECOND[1]}]")
#: A term that no form holds (:func:`wikimem.index.forms.scan.term_form` of it is None).
_NOWHERE = " "


class WordForms:
    """The word codes of one process's loads with jieba, and the segmentation cache they are read from and kept in."""

    def __init__(self, store_root: Path | None, part: str) -> None:
        """``part``: which texts of the store these are (one cache each: ``"wiki"``, ``"diary"``)."""
        self._root = store_root
        self._path = segmentation_cache.cache_path(store_root, part) if store_root is not None else None
        dictionary = jieba_dictionary()
        self._made_by = dictionary[0] if dictionary is not None else "-"
        self._words: list[str] = []
        self._codes: dict[str, str] = {}
        #: digest of a file's texts -> their CJK form and lowercase flag (see :meth:`_form`), during a
        #: load: the cache's and the ones made here; and the ones this load used.
        self._files: dict[bytes, tuple[str, bool]] = {}
        #: During a load: the forms made here (a file twice in one load is made once), and every file the
        #: load used, with its form when made here or None when taken from the cache file.
        self._made: dict[bytes, tuple[str, bool]] = {}
        self._used: dict[bytes, tuple[str, bool] | None] = {}
        self._runs: dict[str, str] = {}
        self._coded = 0

    def begin(self) -> None:
        """Start a load: read the cache (when this process's jieba is as on disk and its codes agree, else segment again)."""
        self._used = {}
        self._made = {}
        self._coded = 0
        if not self._shared():  # jieba's dictionary may have changed here since: segment again
            self._runs.clear()
            self._files.clear()
            return
        if self._path is None or self._root is None:
            return
        seg = segmentation_cache.read(self._path, self._root, self._made_by)
        if seg is None or len(seg.words) > CAPACITY or seg.words[: len(self._words)] != self._words:
            return  # none, or made with codes this process handed out otherwise: what it needs is segmented again
        self._codes.update(zip(seg.words[len(self._words):], map(_code, range(len(self._words), len(seg.words)))))
        self._words = list(seg.words)
        self._files = seg.files

    def end(self) -> None:
        """End a load: keep what it coded in the cache when it segmented anything (a failed write is logged).

        The files' forms are then let go: the load's segments hold them, and
        a later load reads the cache again rather than this process keeping
        a second copy of every form for the whole session. What cutting a
        query needs is made ready here, so the load pays for it once.
        """
        if self._coded and self._path is not None and self._root is not None and self._shared():
            used = self._used
            if None in used.values():  # forms this load took from the cache file: read them there again
                seg = segmentation_cache.read(self._path, self._root, self._made_by)
                kept = seg.files if seg is not None and seg.words == self._words[: len(seg.words)] else {}
                used = {key: made if made is not None else kept.get(key) for key, made in used.items()}
            whole = {key: made for key, made in used.items() if made is not None}
            segmentation_cache.write(self._path, self._root, Segmentation(self._made_by, self._words, whole))
        self._files = {}
        self._made = {}
        self._used = {}
        self._runs.clear()
        prepare_jieba()  # the queries this load serves are cut with jieba's words: ready now, not at the first one

    def _shared(self) -> bool:
        """Whether jieba's words here are the ones on disk (not changed by this process: see :func:`jieba_dictionary`)."""
        dictionary = jieba_dictionary()
        return dictionary is not None and dictionary[0] == self._made_by and not dictionary[1]

    def _form(self, joined: bytes) -> tuple[str, bool] | None:
        """A file's texts' CJK form with word codes, and whether they hold one of ``LOWERS_TO_ASCII``; None: not UTF-8."""
        key = hashlib.blake2b(joined, digest_size=16).digest()
        made = self._files.pop(key, None)  # the segment keeps the form: no second copy for the session
        if made is not None:
            self._used[key] = None  # in the cache file: read again there if this load writes it
            return made
        made = self._made.get(key)
        if made is None:
            try:
                text = joined.decode("utf-8")
            except UnicodeDecodeError:
                return None
            lower = any(map(text.__contains__, LOWERS_TO_ASCII))
            if _CODES.search(text):
                text = _CODES.sub(" ", text)
            made = self._made[key] = (words_form(_RUN.sub(self._run_codes, text)), lower)
            if key not in self._used:  # else the cache file holds it (a second file of the same texts)
                self._coded += 1
        self._used.setdefault(key, made)
        return made

    def _run_codes(self, match: re.Match[str]) -> str:
        run = match.group()
        coded = self._runs.get(run)
        if coded is None:
            coded = self._runs[run] = f" {''.join(map(self._word_code, jieba_words(run)))} "
        return coded

    def _word_code(self, word: str) -> str:
        code = self._codes.get(word)
        if code is None:
            at = len(self._words)
            if at >= CAPACITY:
                raise OverflowError("more distinct words than word codes")
            code = self._codes[word] = _code(at)
            self._words.append(word)
        return code

    def scan_files(self, files: list[bytes], n_texts: int, terms: LatinTerms | None = None) -> ScannedTexts | None:
        """:func:`wikimem.index.forms.scan.scan_joined` of files' texts (each file's joined by the break), with jieba's words.

        Each file's CJK form comes from this process or the cache by the
        file's content, else is made (jieba runs here); the latin form is
        made from the texts as on the bigram path.
        """
        forms = list(map(self._form, files))
        if not files or None in forms:
            return None  # not UTF-8: tokenized item by item
        made = [form for form in forms if form is not None]
        cjk = DOC_BREAK.join(form for form, _ in made)
        return scan_joined(DOC_BREAK.encode().join(files), n_texts, terms, cjk=cjk, lower=any(lower for _, lower in made))

    def scan_texts(self, texts: list[str], terms: LatinTerms | None = None) -> ScannedTexts | None:
        """:func:`wikimem.index.forms.scan.scan_texts` with jieba's words."""
        return self.scan_files([DOC_BREAK.join(texts).encode("utf-8")], len(texts), terms) if texts else None

    def form_term(self, term: str) -> str:
        """The term the forms hold for index term ``term``: its word code, itself, or one no form holds."""
        if not term or _IDEOGRAPH.match(term) is None:
            return _NOWHERE if _CODES.match(term) else term
        return self._codes.get(term, _NOWHERE)


def _code(at: int) -> str:
    """Word ``at``'s code; its first character varies fastest, so a first use's key group holds few words."""
    return chr(_FIRST + at % _FIRSTS) + chr(_SECOND + at // _FIRSTS)
