"""wikimem: file-first memory for AI agents.

Markdown files are the only truth; the BM25 index and the vector caches are
derived and deletable. The core has zero mandatory dependencies, and
``import wikimem`` stays cheap: everything here is stdlib, retrieval loads on
first use, and numpy, httpx, jieba and textual are never imported
(``wikimem.vectors`` is not re-exported).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from wikimem.disk.blocks import parse_blocks
from wikimem.diary import Diary
from wikimem.disk.marks import (
    DERIVED_MARKER,
    DERIVED_TAG,
    EVIDENCE_PREFIX,
    Evidence,
    is_derived,
    is_derived_line,
    is_evidence_line,
    mark_derived,
    parse_evidence,
    strip_derived,
)
from wikimem.errors import ConflictError, LossyWriteError
from wikimem.journal import JOURNAL_FILE, Journal, JournalFollower, JournalRead, logged_entry_id
from wikimem.links import LinkRef, WikiLink, find_links, parse_wiki_links, render_link
from wikimem.disk.frontmatter import FileMeta
from wikimem.models import DiaryItem, RecallItem, RetrievalResult, RetrievedItem, TimeRange
from wikimem.disk.names import sanitize_item_name, validate_file
from wikimem.disk.hidden import ALWAYS_HIDDEN, JOINERS, escape_char, hidden_at, show_hidden
from wikimem.store import MemoryStore, path_stat
from wikimem.timeparse import parse_date_span, parse_time_range, parse_window
from wikimem.tokenize import est_tokens, tokenize
from wikimem.disk.tolerant import UnreadableError, loads_tolerant, open_regular, read_regular

# Imported eagerly on purpose: ``wikimem.memorize`` is also a submodule name,
# and once the submodule is imported Python binds the module to that
# attribute, so a lazy lookup would hand out the module, not the function.
from wikimem.memorize import (  # isort: skip
    DIARY_PROMPT,
    DIARY_TOOL_DESCRIPTION,
    LLM,
    diary_tool,
    handle_diary_tool,
    memorize,
)

if TYPE_CHECKING:
    from wikimem.curation import (
        audit,
        clear_review_marks,
        draft_promotion,
        mark_for_review,
        reconcile_queue,
        retraction,
        review_reasons,
    )
    from wikimem.disk.baseline import BASELINE_FILE
    from wikimem.ranking.explain import (
        TABLE_HEADER,
        explain_lines,
        footer_lines,
        header_lines,
        row_fields,
        row_note,
        why_not_lines,
    )
    from wikimem.lint import Finding, Linter, LintReport, Location
    from wikimem.lint.drift import accept_current_state
    from wikimem.disk.loader import FileBlocks, block_names, read_file_blocks
    from wikimem.disk.splice import BlockEdit
    from wikimem.retrieval import MemoryIndex, as_recall_item
    from wikimem.disk.reviewed import REVIEWED_FILE, dismiss, undismiss
    from wikimem.ranking.why_not import WhyNot
    from wikimem.ranking.where import Where
    from wikimem.capture.report import CaptureReport
    from wikimem.capture.run import capture_sessions

__version__ = "0.4.0"

# name -> module that defines it, imported on first attribute access.
_LAZY = {
    "MemoryIndex": "wikimem.retrieval",
    "as_recall_item": "wikimem.retrieval",
    # Curation (SPEC §4): lint and the read-only curation queries.
    "Linter": "wikimem.lint",
    "LintReport": "wikimem.lint",
    "Finding": "wikimem.lint",
    "Location": "wikimem.lint",
    "reconcile_queue": "wikimem.curation",
    "draft_promotion": "wikimem.curation",
    "audit": "wikimem.curation",
    "retraction": "wikimem.curation",
    "mark_for_review": "wikimem.curation",
    "review_reasons": "wikimem.curation",
    "clear_review_marks": "wikimem.curation",
    "dismiss": "wikimem.disk.reviewed",
    "undismiss": "wikimem.disk.reviewed",
    "accept_current_state": "wikimem.lint.drift",
    # The memory directory's derived curation files (a watcher tells them apart).
    "BASELINE_FILE": "wikimem.disk.baseline",
    "REVIEWED_FILE": "wikimem.disk.reviewed",
    # what a write changed, byte for byte (undo hands it to MemoryStore.revert)
    "BlockEdit": "wikimem.disk.splice",
    # The explain wording (``wikimem explain``'s lines, which a front end shows
    # as they are) and why an item was not recalled.
    "TABLE_HEADER": "wikimem.ranking.explain",
    "explain_lines": "wikimem.ranking.explain",
    "footer_lines": "wikimem.ranking.explain",
    "header_lines": "wikimem.ranking.explain",
    "row_fields": "wikimem.ranking.explain",
    "row_note": "wikimem.ranking.explain",
    "why_not_lines": "wikimem.ranking.explain",
    "WhyNot": "wikimem.ranking.why_not",
    # a recall filter on what is stored (owner, source, ts, a RecallFile's tags)
    "Where": "wikimem.ranking.where",
    # The bulk reader: a whole RecallFile's blocks without an object per item.
    "FileBlocks": "wikimem.disk.loader",
    "block_names": "wikimem.disk.loader",
    "read_file_blocks": "wikimem.disk.loader",
    # whether a directory is a memory store (the CLI and the app refuse /etc alike)
    "is_memory_dir": "wikimem.disk.store_dir",
    # a folder of the format leading out of the memory (writes refused, files not read): the app says so
    "foreign_folders": "wikimem.disk.store_dir",
    # agent sessions into Evidence Cards and diary entries (the app's capture action)
    "capture_sessions": "wikimem.capture.run",
    "CaptureReport": "wikimem.capture.report",
}

__all__ = [
    "ConflictError",
    "LossyWriteError",
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
    "parse_date_span",
    "parse_time_range",
    "parse_window",
    "parse_wiki_links",
    "sanitize_item_name",
    "tokenize",
    "validate_file",
    # curation (this project's addition, SPEC §4)
    "DERIVED_MARKER",
    "Evidence",
    "Finding",
    "LintReport",
    "Linter",
    "Location",
    "accept_current_state",
    "audit",
    "clear_review_marks",
    "dismiss",
    "draft_promotion",
    "is_derived",
    "mark_derived",
    "mark_for_review",
    "parse_evidence",
    "reconcile_queue",
    "retraction",
    "review_reasons",
    "undismiss",
    # a file's change signature, shared by the store, lint and the app
    "path_stat",
    # links in either spelling (the reference's [[file:name]], Obsidian's [[file#name]] and [[file]])
    "LinkRef",
    "find_links",
    "render_link",
    # a RecallFile's frontmatter, as Obsidian and basic-memory write it
    "FileMeta",
    # what a write changed, byte for byte
    "BlockEdit",
    # the file format, for a front end that reads files itself: the block
    # parser, the bulk reader, the derived marker and the evidence line
    "DERIVED_TAG",
    "EVIDENCE_PREFIX",
    "FileBlocks",
    "block_names",
    "is_derived_line",
    "is_evidence_line",
    "parse_blocks",
    "read_file_blocks",
    "strip_derived",
    # memory files read by the library's rules (regular files inside the memory only)
    "UnreadableError",
    "loads_tolerant",
    "open_regular",
    "read_regular",
    # the memory directory's own files; the journal, followed as it grows
    "BASELINE_FILE",
    "REVIEWED_FILE",
    "JOURNAL_FILE",
    "JournalFollower",
    "JournalRead",
    "logged_entry_id",  # which diary entry a journal line names
    # the explain wording and why-not
    "TABLE_HEADER",
    "WhyNot",
    "Where",
    "explain_lines",
    "footer_lines",
    "header_lines",
    "row_fields",
    "row_note",
    "why_not_lines",
    # whether a directory is a memory store (the CLI and the app refuse /etc alike)
    "is_memory_dir",
    "foreign_folders",
    # which characters of memory text are hidden from a reader: one rule for the CLI and the app
    "ALWAYS_HIDDEN",
    "JOINERS",
    "escape_char",
    "hidden_at",
    "show_hidden",
    # capture agent sessions (``wikimem.capture`` holds the rest)
    "CaptureReport",
    "capture_sessions",
]


# what an agent is handed for a query -- one text and one row shape
# for the CLI's ``recall``, the MCP server's ``recall`` tool and the app.
if TYPE_CHECKING:
    from wikimem.ranking.agent_text import agent_label, agent_rows, agent_text
_LAZY.update({name: "wikimem.ranking.agent_text" for name in ("agent_label", "agent_rows", "agent_text")})
__all__ += ["agent_label", "agent_rows", "agent_text"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'wikimem' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
