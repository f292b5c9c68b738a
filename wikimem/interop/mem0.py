"""mem0's exported memories as wiki items.

What mem0's ``get_all`` returns (and its export writes): a list, or
``{"results": [...]}``, of ``{id, memory, user_id?, agent_id?, metadata?,
categories?, created_at, updated_at?}``. Each memory is one fact, so one
item in ``wiki/mem0.md``, named by its first words and found again by its
id (``source_conv`` = ``mem0:<id>``): a memory mem0 later rewrote updates
its item instead of adding a second. ``ts`` is when mem0 last changed it.
Whose memory it was and its categories are kept as a last line.
"""

from __future__ import annotations

from pathlib import Path

from wikimem.interop.plan import ImportPlan, SourceError
from wikimem.models import RecallItem
from wikimem.interop.source_file import load_json
from wikimem.interop.text import clean, defuse_links, item_name, provenance, storable, to_ts

__all__ = ["read_mem0"]

OWNER = "import:mem0"
FILE = "mem0"


def read_mem0(path: Path) -> ImportPlan:
    """The plan for a mem0 export (a JSON list of memories, or ``{"results": [...]}``)."""
    data = load_json(path)
    if isinstance(data, dict):
        data = data.get("results", data.get("memories"))
    if not isinstance(data, list):
        raise SourceError(f"{path}: not a mem0 export (expected a list of memories or {{\"results\": [...]}})")
    plan = ImportPlan("mem0")
    for position, memory in enumerate(data):
        raw_text = memory.get("memory", memory.get("text")) if isinstance(memory, dict) else None
        if not isinstance(memory, dict) or not isinstance(raw_text, str):
            raise SourceError(f"{path}: memory {position} has no text: not a mem0 export")
        text = clean(raw_text).strip()
        if not text:
            plan.notes.append(f"memory {memory.get('id', position)}: empty")
            continue
        ident = memory.get("id")
        ident = str(ident) if isinstance(ident, (str, int)) and str(ident).strip() else f"#{position}"
        about = [f"{key}: {memory[key]}" for key in ("user_id", "agent_id", "run_id")
                 if isinstance(memory.get(key), str) and memory[key]]
        categories = memory.get("categories")
        if isinstance(categories, list) and categories:
            about.append("categories: " + ", ".join(str(c) for c in categories))
        content = storable(defuse_links(text + ("\n\n(" + "; ".join(about) + ")" if about else "")))
        name = item_name(" ".join(text.split()[:8]), limit=60) or f"memory {ident}"
        ts = to_ts(memory.get("updated_at")) or to_ts(memory.get("created_at"))
        plan.items.append(RecallItem(FILE, name, content, OWNER, provenance(f"mem0:{ident}"), ts))
    return plan
