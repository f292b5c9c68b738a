"""Where users already keep their memory: importers from other tools' files, exporters to them.

One module per source or target; each importer reads its whole source
into an :class:`~wikimem.interop.plan.ImportPlan` (a bad file raises
:class:`~wikimem.interop.plan.SourceError` and writes nothing), and
:func:`~wikimem.interop.plan.apply` writes a plan in one commit,
idempotently, journaled with the source. Conversations become diary
entries dated when they happened; knowledge (graph entities, memories,
instruction-file sections, notes) becomes wiki items.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

from wikimem.interop.plan import ImportPlan, ImportReport, SourceError, apply

__all__ = ["IMPORTERS", "ImportPlan", "ImportReport", "SourceError", "apply", "read_source"]


def _chatgpt(path: Path, tz: dt.tzinfo | None) -> ImportPlan:
    from wikimem.interop.chatgpt import read_chatgpt

    return read_chatgpt(path, tz=tz)


def _claude(path: Path, tz: dt.tzinfo | None) -> ImportPlan:
    from wikimem.interop.claude import read_claude

    return read_claude(path, tz=tz)


def _mcp_memory(path: Path, tz: dt.tzinfo | None) -> ImportPlan:
    from wikimem.interop.mcp_memory import read_mcp_memory

    return read_mcp_memory(path)


def _mem0(path: Path, tz: dt.tzinfo | None) -> ImportPlan:
    from wikimem.interop.mem0 import read_mem0

    return read_mem0(path)


def _claude_md(path: Path, tz: dt.tzinfo | None) -> ImportPlan:
    from wikimem.interop.claude_md import read_claude_md

    return read_claude_md(path)


def _obsidian(path: Path, tz: dt.tzinfo | None) -> ImportPlan:
    from wikimem.interop.notes import read_notes

    return read_notes(path, source="obsidian")


def _basic_memory(path: Path, tz: dt.tzinfo | None) -> ImportPlan:
    from wikimem.interop.notes import read_notes

    return read_notes(path, source="basic-memory")


def _json(path: Path, tz: dt.tzinfo | None) -> ImportPlan:
    from wikimem.interop.json_doc import read_document

    return read_document(path)


#: Each source: what it reads, and the reader (``tz``: the diary's wall clock for conversations).
IMPORTERS: dict[str, tuple[str, Callable[[Path, dt.tzinfo | None], ImportPlan]]] = {
    "chatgpt": ("ChatGPT's data export: conversations.json (or the export's zip or folder)", _chatgpt),
    "claude": ("Claude.ai's data export: conversations.json (or the export's zip or folder)", _claude),
    "mcp-memory": ("the MCP memory server's knowledge graph: memory.json (JSON lines)", _mcp_memory),
    "mem0": ("mem0's exported memories: a JSON list, or {\"results\": [...]}", _mem0),
    "claude-md": ("CLAUDE.md, MEMORY.md or a memory-bank/ folder: sections become items", _claude_md),
    "obsidian": ("an Obsidian vault: a folder of notes, one item each, [[links]] mapped", _obsidian),
    "basic-memory": ("a basic-memory project folder: one item per note, [[links]] mapped", _basic_memory),
    "json": ("a document written by 'wikimem export json'", _json),
}


def read_source(source: str, path: str | Path, *, tz: dt.tzinfo | None = dt.timezone.utc) -> ImportPlan:
    """Read ``path`` as ``source`` (a key of :data:`IMPORTERS`) into a plan; ``SourceError`` when it cannot."""
    if source not in IMPORTERS:
        raise ValueError(f"unknown source {source!r}: expected one of {', '.join(IMPORTERS)}")
    return IMPORTERS[source][1](Path(path), tz)
