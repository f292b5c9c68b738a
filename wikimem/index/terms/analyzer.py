"""The English analyzer: the stage between ``tokenize()`` and the index.

Design constraints:

* ``tokenize()``'s documented output never changes (it is a public,
  contract-bound function), so stemming and stop words live here, as a
  separate per-term stage applied to what ``tokenize()`` returns -- for
  documents and queries alike, on every path into the index (item by item,
  the bulk scan forms, incremental writes, diary entries scored in a window).
* Only latin tokens (``[a-z0-9]+``) are analyzed; CJK bigrams and jieba
  words pass untouched.
* Cost follows the vocabulary, not the corpus: every distinct token is
  stemmed once and memoised (:class:`Analyzer.term`), so a cold load pays
  one dict lookup per token (C-level ``map``) and one stemmer call per
  distinct word that can change -- a word ending in none of the endings the
  stemmer acts on (:data:`STEMMED_ENDINGS`) is its own term without a call.
* ``import wikimem`` loads no optional package: the stemmer is imported on
  first use (an index build or a query), never at import time.

The stages, and why they are split the way they are:

* **stemming** (both sides): the Snowball English ("Porter2") stemmer from
  the ``wikimem[en]`` extra (``snowballstemmer``; it uses PyStemmer's C
  implementation by itself when that is installed). ``running``, ``runs``
  and ``run`` become one term.
* **stop words** (query side only): :data:`STOP_WORDS` is Lucene's
  ``EnglishAnalyzer`` default set -- 33 function words (articles,
  prepositions, conjunctions, "is"/"was"/"be") -- small on purpose: pronouns
  and question words (``what``, ``my``, ``you``) carry meaning in a
  conversational memory and are left to BM25's idf. They are dropped from
  the *query*, not from the index, so a query made only of stop words
  (``the who``, ``to be or not to be``) keeps them and still finds the
  items that contain them -- as time words are kept when nothing else is
  left. Document lengths therefore count every token, the same on every
  path, and the index does not depend on the stop list.

* **function words** (query side, every analyzer but ``"none"``):
  :data:`FUNCTION_WORDS`, a broader list, and Chinese words of
  :data:`CJK_FUNCTION_CHARS` only (:func:`is_function_word`) are kept but flagged
  (:attr:`QueryTerms.function`): the ranking weighs them less and never
  lets them make a hit on their own (:mod:`wikimem.ranking.pipeline`).
  A query of function words only keeps them as ordinary terms.

Analyzers (``MemoryIndex(analyzer=...)``): ``"en"`` (stemming + stop words),
``"stem"`` (the default: see :data:`DEFAULT_ANALYZER`), ``"stop"``, ``"none"``
(``tokenize()`` as it is). Without the
extra, ``"en"`` falls back to stop words only and ``"stem"`` to none; the
analyzer that actually ran is :attr:`Analyzer.effective`, and ``explain``
says so.
"""

from __future__ import annotations

import logging
from array import array
from collections.abc import Callable, Iterable
from itertools import filterfalse
from typing import Any

from wikimem._optional import importable
from wikimem.index import vectorized

__all__ = [
    "ANALYZERS",
    "DEFAULT_ANALYZER",
    "FALLBACK_NOTE",
    "CJK_FUNCTION_CHARS",
    "FUNCTION_WORDS",
    "STOP_WORDS",
    "Analyzer",
    "QueryTerms",
    "is_function_word",
    "STEMMED_ENDINGS",
    "may_stem",
    "stemmer_available",
]

log = logging.getLogger(__name__)

#: Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`` (the default English stop set).
STOP_WORDS: frozenset[str] = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such "
    "that the their then there these they this to was will with".split()
)
#: English function words (articles, pronouns, prepositions, conjunctions,
#: auxiliaries, question words, contraction pieces, and "like", the most
#: common discourse marker of spoken English): a query term among them never
#: makes an item a hit on its own (:attr:`QueryTerms.function`). Broader than
#: :data:`STOP_WORDS` because nothing is dropped with it: such words still
#: score, they only cannot be an item's sole match.
FUNCTION_WORDS: frozenset[str] = STOP_WORDS | frozenset(
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers "
    "herself its itself them theirs themselves what which who whom whose this that these those am were been "
    "being have has had having do does did doing because until while about against between through during "
    "before after above below from up down out off over under again further once here when where why how all "
    "any both each few more most other some nor only own same so than too very s t can just don should now d "
    "ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn "
    "weren won wouldn would could shall might must also like".split()
)
#: Chinese function characters: pronouns, particles, question words, the verbs
#: "do"/"be"/"have"/"want", common adverbs and conjunctions, demonstratives and
#: measure words. A Chinese word (jieba's) or bigram made only of them is a
#: function word, so 我做了什么 names no subject on either tokenizer path --
#: while a word with one other character in it (作者, 哪里, 样品) stays content.
CJK_FUNCTION_CHARS: frozenset[str] = frozenset(
    "我你您他她它们咱的了吗呢吧啊呀么着过地得什哪谁怎几做干搞弄是在有要会能想都也就还又再才很和与跟或个些这那嘛样"
)


def is_function_word(token: str) -> bool:
    """Whether a query token is a function word: in :data:`FUNCTION_WORDS`, or Chinese of function characters only."""
    return token in FUNCTION_WORDS or (bool(token) and set(token) <= CJK_FUNCTION_CHARS)


#: The analyzers by name; see the module doc.
ANALYZERS = ("en", "stem", "stop", "none")
#: The analyzer of a ``MemoryIndex`` that names none, chosen by measurement
#: (README, "Retrieval quality"): stemming lifts hit@5 on English conversation
#: for BM25 and both fused rankings and leaves Chinese unchanged; dropping
#: stop words from the query lowered English hit@5 (BM25's idf already
#: discounts them), so they are a knob (``"en"``), not the default.
DEFAULT_ANALYZER = "stem"

_STEMS = {"en": True, "stem": True, "stop": False, "none": False}
_STOPS = {"en": True, "stem": False, "stop": True, "none": False}
_FALLBACK = {"en": "stop", "stem": "none"}
#: In :meth:`Analyzer.describe` when the analyzer asked for could not run (explain shows it then).
FALLBACK_NOTE = "needs the stemmer: pip install 'wikimem[en]'"

#: None = not yet checked.
_importable: bool | None = None


def stemmer_available() -> bool:
    """Whether the stemmer (``snowballstemmer``) can be imported, answered without importing it."""
    global _importable
    if _importable is None:
        _importable = importable("snowballstemmer")
    return _importable


def _load_stemmer() -> Callable[[str], str] | None:
    """The English stemmer's ``stemWord``, or None when the extra is missing or broken."""
    global _importable
    if not stemmer_available():
        return None
    try:
        import snowballstemmer  # noqa: PLC0415 - optional extra, loaded on first use

        stem: Callable[[str], str] = snowballstemmer.stemmer("english").stemWord
    except Exception as exc:  # a broken install degrades like a missing one
        log.warning("the English stemmer could not be loaded (%s); no stemming", exc)
        _importable = False
        return None
    return stem


def _version(package: str) -> str:
    import importlib.metadata  # noqa: PLC0415 - needed once per index build, not at import

    try:
        return f"{package}={importlib.metadata.version(package)}"
    except importlib.metadata.PackageNotFoundError:
        return f"{package}=-"


class QueryTerms:
    """A query after analysis: the terms scored, and what the analyzer did to get them."""

    __slots__ = ("function", "stemmed", "stop_words", "terms", "typed")

    def __init__(
        self,
        terms: list[str],
        stop_words: list[str],
        stemmed: dict[str, str],
        function: frozenset[str] = frozenset(),
        typed: dict[str, str] | None = None,
    ) -> None:
        #: The scored terms, in query order (repeats kept: they weigh as BM25's query tf).
        self.terms = terms
        #: Stop words dropped from the query (empty when they were all it had).
        self.stop_words = stop_words
        #: token -> term, for the tokens the stemmer changed.
        self.stemmed = stemmed
        #: The scored terms made of function words (:data:`FUNCTION_WORDS`), when the query also has
        #: another term: an item matching only these is no hit. Empty for a query of function words only.
        self.function = function
        #: term -> the word as typed (``tokenize()``'s token, lowercased) for each scored term.
        self.typed = typed if typed is not None else {}


#: Every ending the English stemmer's steps act on (Snowball 2 and 3: the
#: suffix tables of steps 1a-5, step 1c's "y", the exception words, which all
#: end in one of them). A word ending in none of them passes every step
#: unchanged, so it needs no stemmer call: most of a store's distinct
#: words, each a pure-Python stemmer call saved on a cold load, whose cost
#: follows the vocabulary. tests/test_analyzer.py
#: holds the claim against the stemmer over every table ending.
STEMMED_ENDINGS = ("e", "l", "s", "y", "ed", "ing", "ci", "gi", "li", "ti", "sm", "on", "er", "or", "st", "ic", "nt")


def may_stem(token: str) -> bool:
    """Whether the stemmer can change ``token`` (False: it would return it as it is).

    Words under three characters are left alone by the algorithm itself.
    """
    return len(token) > 2 and token.endswith(STEMMED_ENDINGS)


class _Stems(dict[str, str]):
    """token -> index term, filled on first sight of each distinct token."""

    def __init__(self, stem: Callable[[str], str]) -> None:
        super().__init__()
        self._stem = stem
        #: The same map for whole scan forms in numpy (made on first need).
        self._table: Any = None

    def __missing__(self, token: str) -> str:
        # CJK tokens pass untouched and numbers have no stem; neither is
        # kept: a store's ids, dates and Chinese bigrams would fill the memo
        # (a store holds about as many distinct numbers as items).
        if token[0] >= "\x80" or token.isdigit():
            return token
        term = (self._stem(token) or token) if may_stem(token) else token
        self[token] = term
        return term

    def mapped(self, tokens: list[str]) -> Iterable[str]:
        """``tokens`` (a scan form's latin tokens and break characters) as index terms, with no Python call per token.

        The distinct tokens this map has not seen are found with C-level
        steps and learnt first (one stemmer call per new word that can
        change); then a ``map`` of ``dict.get`` with the token itself as the
        default passes numbers and the break (never kept) through unchanged.
        Numbers -- most of a store's distinct tokens (item ids, dates), never
        kept -- are dropped by a C-level ``filterfalse`` before the memo is
        asked, and the memo is asked once per distinct token of the segment:
        subtracting the whole memo from the segment's set instead costs one
        step per memo entry per segment, which grows with the vocabulary
        (a real 1M-item store's is hundreds of thousands of words).
        ``str`` tokens, not the form's bytes: a dict of ``str`` keys has
        CPython's fast lookup (a ``bytes`` key is compared through the
        generic rich compare), which saves more than the ASCII decode and
        encode around it cost.
        """
        distinct = set(tokens)
        distinct.discard(_BREAK)
        for token in filterfalse(self.__contains__, filterfalse(str.isdigit, distinct)):
            self[token]  # noqa: B018 -- __missing__ learns it
        return map(self.get, tokens, tokens)

    __call__ = mapped

    def latin_form(self, latin: bytes) -> tuple[bytes, array[int], Any] | None:
        """A whole latin scan form mapped in numpy (:mod:`wikimem.index.terms.stem_table`); None: not on this path.

        The scan forms take it where numpy is on and the load is large
        (:func:`wikimem.index.forms.scan.scan_joined`); its table learns new
        tokens through this memo, so both paths give the same terms.
        """
        table = self._table
        if table is None:
            np = vectorized.numpy_module()
            if np is None:
                return None
            from wikimem.index.terms.stem_table import StemTable  # noqa: PLC0415 -- numpy only

            table = self._table = StemTable(np, self.__getitem__)
        found: tuple[bytes, array[int], Any] | None = table.form(latin)
        return found


def _unchanged(tokens: list[str]) -> list[str]:
    return tokens


#: The scan forms' document break (wikimem.index.forms.scan.DOC_BREAK; not imported: the scan module imports nothing of ours but tokenize).
_BREAK = "\x00"


class Analyzer:
    """One analyzer, resolved against what is installed on first use.

    Thread-safe: the memo only ever gains entries, and the same token
    always maps to the same term.
    """

    def __init__(self, name: str | None = None) -> None:
        name = DEFAULT_ANALYZER if name is None else name
        if name not in ANALYZERS:
            raise ValueError(f"analyzer must be one of {', '.join(ANALYZERS)}, not {name!r}")
        #: The analyzer asked for.
        self.name = name
        self._effective: str | None = None
        self._stems: _Stems | None = None

    # -- resolving (first use) ------------------------------------------------

    @property
    def effective(self) -> str:
        """The analyzer that runs: :attr:`name`, or its fallback when the stemmer is missing.

        The first call loads the stemmer (when one is needed).
        """
        if self._effective is None:
            effective = self.name
            if _STEMS[self.name]:
                stem = _load_stemmer()
                if stem is None:
                    effective = _FALLBACK[self.name]
                else:
                    self._stems = _Stems(stem)
            self._effective = effective
        return self._effective

    @property
    def stems(self) -> bool:
        return _STEMS[self.effective]

    @property
    def stops(self) -> bool:
        return _STOPS[self.effective]

    @property
    def fingerprint(self) -> str:
        """What the index terms depend on (a derived cache made with other terms is not used).

        Stop words are a query-side stage, so they are not part of it; the
        stemmer's package versions are (a new release may stem differently).
        """
        if not self.stems:
            return "raw"
        return "snowball-english:" + ",".join(_version(p) for p in ("snowballstemmer", "PyStemmer"))

    def describe(self) -> str:
        """One line for explain: which analyzer ran, and why not the one asked for."""
        effective = self.effective
        parts = {
            "en": "Snowball English stemmer + stop words",
            "stem": "Snowball English stemmer",
            "stop": "stop words only",
            "none": "tokens as tokenize() makes them",
        }
        text = f"{effective} ({parts[effective]})"
        if effective != self.name:
            text += f"; {self.name!r} {FALLBACK_NOTE}"
        return text

    # -- documents ------------------------------------------------------------

    def terms(self, tokens: list[str]) -> list[str]:
        """A document's index terms: ``tokens`` stemmed (stop words stay: see the module doc)."""
        if not self.stems:
            return tokens
        assert self._stems is not None
        return list(map(self._stems.__getitem__, tokens))

    def term(self, token: str) -> str:
        """One token's index term."""
        if not self.stems:
            return token
        assert self._stems is not None
        return self._stems[token]

    @property
    def latin_terms(self) -> Callable[[list[str]], Iterable[str]]:
        """Maps the scan forms' latin tokens (and their break characters, kept) to index terms, lazily.

        The map itself (callable), so that the scan forms can also ask it
        for a whole form at once (``latin_form``, the numpy path).
        """
        if not self.stems:
            return _unchanged
        assert self._stems is not None
        return self._stems

    # -- queries --------------------------------------------------------------

    def query(self, tokens: list[str]) -> QueryTerms:
        """A query's scored terms: stop words dropped unless nothing else is left, then stemmed."""
        dropped: list[str] = []
        if self.stops:
            kept = [t for t in tokens if t not in STOP_WORDS]
            if kept:
                dropped = [t for t in tokens if t in STOP_WORDS]
                tokens = kept
        terms = self.terms(tokens)
        stemmed = {t: s for t, s in zip(tokens, terms) if t != s}
        typed: dict[str, str] = {}
        for token, term in zip(tokens, terms):
            typed.setdefault(term, token)
        content = {term for token, term in zip(tokens, terms) if not is_function_word(token)}
        function = frozenset(term for token, term in zip(tokens, terms) if is_function_word(token)) - content
        if not content or self.effective == "none":  # function words are the query; or no analysis asked for
            function = frozenset()
        return QueryTerms(terms, dropped, stemmed, function, typed)
