"""wikimem: file-first memory for AI agents.

Markdown files are the only truth; the BM25 index and the vector caches are
derived and deletable. The core has zero mandatory dependencies, and
``import wikimem`` stays cheap: the storage layer loads at once, retrieval,
time parsing and memorize load on first use, and numpy, httpx, jieba and
textual are never imported here (``wikimem.vectors`` is not re-exported).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from wikimem.diary import Diary
from wikimem.journal import Journal
from wikimem.links import WikiLink, parse_wiki_links
from wikimem.models import DiaryItem, RecallItem, RetrievalResult, RetrievedItem, TimeRange
from wikimem.names import sanitize_item_name, validate_file
from wikimem.store import MemoryStore

if TYPE_CHECKING:
    from wikimem.memorize import (
        DIARY_PROMPT,
        DIARY_TOOL_DESCRIPTION,
        LLM,
        diary_tool,
        handle_diary_tool,
        memorize,
    )
    from wikimem.retrieval import MemoryIndex, as_recall_item
    from wikimem.timeparse import parse_time_range
    from wikimem.tokenize import est_tokens, tokenize

__version__ = "0.4.0"

# name -> module that defines it, imported on first attribute access.
_LAZY = {
    "MemoryIndex": "wikimem.retrieval",
    "as_recall_item": "wikimem.retrieval",
    "tokenize": "wikimem.tokenize",
    "est_tokens": "wikimem.tokenize",
    "parse_time_range": "wikimem.timeparse",
    "LLM": "wikimem.memorize",
    "memorize": "wikimem.memorize",
    "diary_tool": "wikimem.memorize",
    "handle_diary_tool": "wikimem.memorize",
    "DIARY_PROMPT": "wikimem.memorize",
    "DIARY_TOOL_DESCRIPTION": "wikimem.memorize",
}

__all__ = [
    "DIARY_PROMPT",
    "DIARY_TOOL_DESCRIPTION",
    "LLM",
    "Diary",
    "DiaryItem",
    "Journal",
    "MemoryIndex",
    "MemoryStore",
    "RecallItem",
    "RetrievalResult",
    "RetrievedItem",
    "TimeRange",
    "WikiLink",
    "as_recall_item",
    "diary_tool",
    "est_tokens",
    "handle_diary_tool",
    "memorize",
    "parse_time_range",
    "parse_wiki_links",
    "sanitize_item_name",
    "tokenize",
    "validate_file",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'wikimem' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
