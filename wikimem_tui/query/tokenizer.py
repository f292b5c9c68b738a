"""The tokenizer knob's rebuild: a new index with jieba words or bigrams, built off the UI thread.

A tokenizer change re-tokenizes the whole store, so the query pane builds a
*new* ``MemoryIndex`` in a worker and swaps it in whole; the old one keeps
answering meanwhile. The new index keeps every other knob of the old one
(fusion, cos floor, who embeds, whether vectors reach the disk) and takes
over its vector caches (``share_vectors``), so a read-only app does not
embed the store again because the tokenizer changed.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wikimem_tui.core.backend import Backend
from wikimem_tui.query.knobs import parse_floor

if TYPE_CHECKING:
    from wikimem_tui.query.runner import QueryRunner

__all__ = ["NO_JIEBA", "analyzer_name", "floor_text", "jieba_installed", "rebuilding_note", "rebuilt_index",
           "rebuild_and_swap", "rebuilt_note", "tokens_name"]

NO_JIEBA = "jieba is not installed (pip install jieba): staying on bigrams"


def jieba_installed() -> bool:
    """Whether ``import jieba`` can work, asked now (not cached: it may be installed meanwhile)."""
    try:
        return importlib.util.find_spec("jieba") is not None
    except (ImportError, ValueError):
        return False


def tokens_name(use_jieba: bool) -> str:
    """What Chinese text is cut into, in words."""
    return "jieba" if use_jieba else "bigrams"


def rebuilding_note(use_jieba: bool, analyzer: str | None) -> str:
    """What the status line says while the index is rebuilt for a knob change."""
    if analyzer is not None:
        return f"rebuilding the index with the English analyzer {analyzer!r}…"
    return "loading jieba and rebuilding the index…" if use_jieba else "rebuilding the index with bigrams…"


def rebuilt_note(index: Any, use_jieba: bool, analyzer: str | None, seconds: float) -> str:
    """The toast once the new index is in: what it cuts text into, and what the rebuild cost."""
    english = f", English analyzer {index.analyzer.describe()}" if analyzer is not None else ""
    return f"index rebuilt with {tokens_name(use_jieba)}{english} in {seconds:.1f} s"


def floor_text(index: Any) -> str:
    """The cos floor as the knob shows it: what the index was given ("auto" unless set)."""
    source = getattr(index, "cos_floor_source", None)
    if source == "off":
        return "off"
    floor = getattr(index, "cos_floor", None)
    return f"{floor:g}" if source == "explicit" and floor is not None else "auto"


def analyzer_name(index: Any) -> str:
    """The English analyzer an index was asked for (``"none"`` for one without the knob)."""
    analyzer = getattr(index, "analyzer", None)
    return getattr(analyzer, "name", "none")


def rebuilt_index(backend: Backend, use_jieba: bool, analyzer: str | None = None) -> tuple[Any, str]:
    """``(index, "")`` built with ``use_jieba``, ``analyzer`` (None: the old one's) and the old index's knobs.

    ``(None, why not)`` when it cannot be built.

    Slow (the whole store is re-tokenized): for a worker thread.
    """
    from wikimem import MemoryIndex  # lazy: retrieval is only needed here

    old = backend.index
    kwargs: dict[str, Any] = {"use_jieba": use_jieba, "embedder": backend.embedder, "vectors_dir": backend.root}
    kwargs["analyzer"] = analyzer if analyzer is not None else analyzer_name(old) if old is not None else None
    for knob in ("fusion_weight", "fusion", "vector_sync", "vector_cache"):
        if hasattr(old, knob):
            kwargs[knob] = getattr(old, knob)
    if hasattr(old, "cos_floor_source"):
        kwargs["cos_floor"] = parse_floor(floor_text(old))
    try:
        index = MemoryIndex(backend.store, **kwargs)
        index.today = backend.today  # query time words resolve against the app's today
        if hasattr(old, "share_vectors"):
            index.share_vectors(old)
        index.rebuild()
    except Exception as exc:  # e.g. jieba failing to load: keep the old index
        return None, f"index not rebuilt: {exc!r}"
    if use_jieba and not index.use_jieba:  # installed but broken: the index fell back to bigrams
        index.close()
        return None, "jieba could not be loaded: staying on bigrams"
    return index, ""


def rebuild_and_swap(backend: Backend, runner: QueryRunner, use_jieba: bool, analyzer: str | None,
                     cancelled: Callable[[], bool]) -> tuple[str, bool] | None:
    """Build the new index and swap it in (in a worker): what to tell the user and whether it worked; None: cancelled."""
    started = time.perf_counter()
    index, problem = rebuilt_index(backend, use_jieba, analyzer)
    if index is None:
        return problem, False
    if cancelled():
        index.close()
        return None
    runner.swap(backend, index, use_jieba)
    return rebuilt_note(index, use_jieba, analyzer, time.perf_counter() - started), True
