"""What an agent is handed for a query: one text, one row shape, for every front end.

``wikimem recall``, the MCP ``recall`` tool and the app's "copy as context"
must hand an agent the same thing, so the rendering lives here, once.

* **Only what retrieval kept**, in result order, within the budget.
* **Every row says where it lives** (``## file:name``, ``## diary DAY
  HH:MM[#n]``), so an agent can cite, re-read or update exactly that item.
* **Memory text is data**: copied verbatim, no instructions of ours around
  it (content cannot forge a row heading: the store refuses a ``## `` line).
* **The text ends with the derived marker**, so whatever an agent writes back
  from it is recognised as derived, never as independent evidence (SPEC §8).
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
