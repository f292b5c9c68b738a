"""Tokens for BM25 and token budgets: fast by default, jieba only when asked for.

This is the indexing hot path (every item goes through it on a cold load),
so the default tokenizer is one precompiled regex plus list slicing: latin
runs ``[a-z0-9]+`` of the lowercased text (anything else latin is a
separator, exactly as the contract says), and character bigrams for runs of
CJK characters. Kana and Hangul count as CJK because Japanese and Korean
text has the same "no spaces between words" shape; dropping them would make
such memories unfindable.

jieba gives real Chinese words but its dictionary load costs more than a
cold recall's whole index, so it is imported lazily, cached, and never
touched by ``import wikimem``; until its dictionary is loaded, its cut runs
over a packed copy that loads at once (:mod:`wikimem.jieba_dict`). With
jieba only ideograph runs change: kana/Hangul runs stay bigrams and latin
runs stay the same tokens.

The bigram rule lives in :func:`cjk_run_tokens` only; the bulk scan forms
of a cold load are held to it by oracle tests. A later per-term stage (an
English analyzer) maps index terms after this module, so its output stays
the documented one.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Callable
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType
from typing import Any

from wikimem import jieba_dict
from wikimem._optional import importable

__all__ = [
    "CJK_CLASS",
    "IDEOGRAPHS",
    "cjk_run_tokens",
    "est_tokens",
    "jieba_available",
    "jieba_dictionary",
    "jieba_words",
    "prepare_jieba",
    "resolve_jieba",
    "tokenize",
    "words_state",
]

_IDEOGRAPHS = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005\u3007"
    "\U00020000-\U0003134f\U0002f800-\U0002fa1f"
)
_KANA_HANGUL = (
    "\u3041-\u3096\u3099-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
    "\u3131-\u318e\uac00-\ud7a3"
)
#: Character class body (without brackets) of the ideographs: what jieba segments.
IDEOGRAPHS = _IDEOGRAPHS
#: Character class body (without brackets) of everything treated as CJK.
CJK_CLASS = _IDEOGRAPHS + _KANA_HANGUL

# One regex for the bigram path: a run is either latin (always starts below
# U+0080) or CJK (always above), which the loop tells apart by its first char.
_RUNS = re.compile(f"[a-z0-9]+|[{CJK_CLASS}]+")
# The jieba path keeps ideographs apart from kana/Hangul.
_RUNS_SPLIT = re.compile(f"[a-z0-9]+|([{_IDEOGRAPHS}]+)|[{_KANA_HANGUL}]+")
_IDEOGRAPH_RUN = re.compile(f"[{_IDEOGRAPHS}]")
# est_tokens: one per latin word, one per CJK character.
_EST_UNITS = re.compile(f"[a-z0-9]+|[{CJK_CLASS}]")

_jieba_module: ModuleType | None = None
#: jieba's dictionary total right after :func:`jieba_words` loaded its default dictionary (None: it did not).
_default_total: int | None = None
#: ``jieba.lcut`` over the packed dictionary, once read; whether a packed dictionary is on disk (read or written here).
_packed_cut: Callable[[str], list[str]] | None = None
_packed_kept = False
#: Characters :func:`jieba_words` cuts over the packed dictionary before it loads jieba's: a few
#: files' worth, where loading jieba's would cost more than the slower lookups.
PACKED_BUDGET = 20_000
_packed_chars = 0
#: None = not yet checked; False = not importable (or its import failed).
_jieba_importable: bool | None = None


def jieba_available() -> bool:
    """Whether jieba can be imported, answered without importing it.

    ``WIKIMEM_JIEBA=0`` in the environment answers no: the bigram path even
    where jieba is installed (to compare the two, or to opt out in a hook).
    """
    global _jieba_importable
    if _jieba_importable is None:
        _jieba_importable = os.environ.get("WIKIMEM_JIEBA") != "0" and importable("jieba")
    return _jieba_importable


def jieba_words(run: str) -> list[str]:
    """jieba's words of ``run``, a run of ideographs (``jieba.lcut``: what :func:`tokenize` yields for it).

    Over the packed dictionary while little has been cut in this process
    (a file or two changed since the last load), else jieba's own.
    """
    global _packed_chars
    jieba = _jieba()
    if jieba is None:
        raise RuntimeError("jieba is not available")
    if not jieba.dt.initialized and _packed_chars < PACKED_BUDGET:
        cut = _cut(jieba)  # the packed dictionary when there is one (else this loads jieba's)
        if cut is not jieba.lcut:
            _packed_chars += len(run)
            return cut(run)
    _load_default(jieba)
    words: list[str] = jieba.lcut(run)
    return words


def prepare_jieba() -> None:
    """Make ready what cutting a query with jieba needs (its packed dictionary, or its own), once a process.

    An index with jieba's words calls it at the end of its build, so a
    load pays for it and the first Chinese query does not.
    """
    jieba = _jieba()
    if jieba is not None and not jieba.dt.initialized:
        _cut(jieba)


def _load_default(jieba: ModuleType) -> None:
    """Load jieba's dictionary if nothing did yet: its default one, whose total is noted (see :func:`jieba_dictionary`)."""
    global _default_total
    if not jieba.dt.initialized and jieba.dt.dictionary is None:
        jieba.initialize()
        _default_total = jieba.dt.total


def _cut(jieba: ModuleType) -> Callable[[str], list[str]]:
    """``jieba.lcut``, or the same cut over the packed dictionary (:mod:`wikimem.jieba_dict`) while jieba's is not loaded here.

    A process that has jieba's default dictionary loaded (and no packed
    one to read) packs it for the next ones; one without either loads it.
    """
    global _packed_cut, _packed_kept
    dictionary = jieba_dictionary()
    assert dictionary is not None  # jieba imported
    files, changed = dictionary
    if changed:
        return jieba.lcut  # type: ignore[no-any-return]
    if jieba.dt.initialized and _packed_kept:
        return jieba.lcut  # type: ignore[no-any-return]
    if _packed_cut is None:
        path = jieba_dict.dictionary_path(files)
        found = jieba_dict.read(path, files)
        if found is None:
            _load_default(jieba)
            jieba_dict.write(path, files, jieba.dt.FREQ, jieba.dt.total)
            _packed_kept = True
            return jieba.lcut  # type: ignore[no-any-return]
        _packed_cut = jieba_dict.packed_cut(jieba, *found)
        _packed_kept = True
    return jieba.lcut if jieba.dt.initialized else _packed_cut


def jieba_dictionary() -> tuple[str, bool] | None:
    """What jieba's words depend on, and whether this process may have changed it; ``None``: no jieba.

    The first item names jieba's code and dictionary files (paths, sizes,
    mtimes), found without importing jieba or loading its dictionary (once
    a process). The second is True when jieba's dictionary was loaded in
    this process by someone else, or its total of frequencies moved since,
    or it was set to another file: ``jieba.add_word``, ``load_userdict``
    and ``set_dictionary`` change words only in a process that did so, so
    segmentations made elsewhere cannot be reused there.
    """
    files = _jieba_files()
    if files is None:
        return None
    loaded = sys.modules.get("jieba")
    dt = getattr(loaded, "dt", None)
    changed = dt is not None and (
        getattr(dt, "dictionary", None) is not None
        or (bool(getattr(dt, "initialized", False)) and getattr(dt, "total", None) != _default_total)
    )
    return files, changed


@lru_cache(maxsize=1)
def _jieba_files() -> str | None:
    if not jieba_available():
        return None
    spec = find_spec("jieba")
    if spec is None or spec.origin is None:
        return None
    package = Path(spec.origin).parent
    parts = []
    for name in ("__init__.py", "dict.txt", "finalseg/__init__.py", "finalseg/prob_emit.p",
                 "finalseg/prob_start.p", "finalseg/prob_trans.p"):
        try:
            st = (package / name).stat()
        except OSError:
            parts.append(f"{name}:-")
            continue
        parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return f"{package}|{'|'.join(parts)}"


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
    return _jieba_module


def cjk_run_tokens(run: str) -> list[str]:
    """The bigram rule: a CJK run's character bigrams, or the one character of a one-character run."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _bigram_tokens(lowered: str) -> list[str]:
    out: list[str] = []
    append = out.append
    extend = out.extend
    for run in _RUNS.findall(lowered):
        if run[0] < "\x80":
            append(run)
        else:
            extend(cjk_run_tokens(run))
    return out


def _jieba_tokens(lowered: str, cut: Callable[[str], list[str]]) -> list[str]:
    out: list[str] = []
    append = out.append
    extend = out.extend
    for match in _RUNS_SPLIT.finditer(lowered):
        run = match.group()
        if match.group(1) is not None:
            # The run holds ideographs only, so every piece jieba returns is a
            # word: no punctuation or whitespace can come back.
            extend(cut(run))
        elif run[0] < "\x80":
            append(run)
        else:
            extend(cjk_run_tokens(run))
    return out


def words_state() -> Any:
    """What jieba's words depend on in this process now, to compare (``None``: jieba not imported here).

    A tokenization kept for later is valid only while this is equal:
    ``jieba.add_word``, ``load_userdict`` and ``set_dictionary`` change it.
    """
    jieba = _jieba_module
    if jieba is None:
        return None
    dt = jieba.dt
    return (getattr(dt, "initialized", None), getattr(dt, "total", None), getattr(dt, "dictionary", None))


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
            # The cut is chosen only for text with ideographs (it may read the packed dictionary).
            return _jieba_tokens(lowered, _cut(jieba) if _IDEOGRAPH_RUN.search(lowered) else jieba.lcut)
    return _bigram_tokens(lowered)


@lru_cache(maxsize=8192)
def est_tokens(text: str) -> int:
    """A cheap LLM-token estimate: one per latin word plus one per CJK character.

    Memoised: every result row asks it of its item's content, and a warm
    query's rows are mostly the last query's, and a regex pass over each
    row's content would weigh on a warm ``retrieve()`` as much as the
    search itself.
    """
    return len(_EST_UNITS.findall(text.lower()))
