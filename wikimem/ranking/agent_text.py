"""What an agent is handed for a query: one text, one row shape, for every front end.

The CLI's ``wikimem recall``, the MCP server's ``recall`` tool and the app's
"copy as context" must hand an agent the same thing, or an agent attached
one way would be told something else than the person checking it another
way. So the rendering lives here, once, below every front end.

Design constraints:

* **Only what retrieval kept.** Hits and their link targets in result order,
  within the budget; dropped rows are left out (that is what the budget is
  for).
* **Every row says where it lives**: ``## file:name`` (``## diary DAY
  HH:MM[#n]`` for a diary entry), so an agent can cite, re-read
  (``read_item``) or update (``remember`` with ``expected``) exactly that
  item; a link row says which hit pulled it in.
* **Memory text is data.** Content is copied verbatim and nothing else is
  added: no instructions, no prompt text of ours around it. (Content cannot
  forge a row heading: the store refuses content with a ``## `` line, and
  a hand-written one would have been parsed as a heading of its own.)
* **The text ends with the derived marker** (``DERIVED_MARKER`` on a line of
  its own), so whatever an agent writes back from it carries the marker and
  is recognised as derived, never as independent evidence (SPEC §8).
"""

from __future__ import annotations

from typing import Any

from wikimem.disk.marks import DERIVED_MARKER
from wikimem.models import RetrievalResult, RetrievedItem

__all__ = ["NOTHING_RECALLED", "agent_label", "agent_rows", "agent_text"]

#: The body of the text when retrieval kept nothing (the marker still follows).
NOTHING_RECALLED = "(nothing recalled)"


def agent_label(entry: RetrievedItem) -> str:
    """Where a row lives: ``file:name`` for a wiki item, ``diary DAY HH:MM[#n]`` for a diary entry."""
    item = entry.item
    if entry.entry_id is not None:
        return f"diary {item.file} {entry.entry_id.key}"
    return f"{item.file}:{item.name}"


def agent_text(result: RetrievalResult) -> str:
    """The text an agent is handed: each kept row as ``## label`` + content, then the derived marker.

    Ends with a newline. Rows are separated by a blank line; a link row's
    heading adds ``(linked from <hit name>)``.
    """
    parts = []
    for entry in result.items:
        head = f"## {agent_label(entry)}"
        if entry.source == "link" and entry.via:
            head += f" (linked from {entry.via})"
        parts.append(f"{head}\n{entry.item.content.strip()}\n")
    body = "\n".join(parts) if parts else f"{NOTHING_RECALLED}\n"
    return f"{body}\n{DERIVED_MARKER}\n"


def agent_rows(result: RetrievalResult) -> list[dict[str, Any]]:
    """The kept rows as plain JSON-ready dicts, in the order of :func:`agent_text`.

    Keys: ``label``, ``kind`` (``"wiki"`` or ``"diary"``), ``file``, ``name``
    (for a diary row: the day and ``HH:MM``; ``entry`` is then its
    ``HH:MM[#n]``, ``day`` and ``time`` its day and minute, ``None`` on a
    wiki row), ``source`` (``"hit"``/``"link"``), ``rank`` (1-based
    among the hits, ``None`` for a pure link target), ``score``, ``via``,
    ``content``, ``owner``, ``source_conv``, ``ts``, ``tokens`` and
    ``matched`` (the query words the row matched, as typed).
    """
    rows = []
    for entry in result.items:
        item = entry.item
        diary = entry.entry_id is not None
        rows.append({
            "label": agent_label(entry),
            "kind": "diary" if diary else "wiki",
            "file": item.file,
            "name": item.name,
            "entry": entry.entry_id.key if entry.entry_id is not None else None,
            "day": entry.entry_id.date if entry.entry_id is not None else None,
            "time": entry.entry_id.time if entry.entry_id is not None else None,
            "source": entry.source,
            "rank": entry.rank,
            "score": entry.score,
            "via": entry.via,
            "content": item.content,
            "owner": item.owner,
            "source_conv": item.source_conv,
            "ts": item.ts,
            "tokens": entry.tokens_est,
            "matched": result.typed(entry.matched_terms),
        })
    return rows
