"""The reference MCP memory server's knowledge graph (``memory.json``) as wiki items.

An entity becomes an item in the RecallFile of its type, its observations
a bullet list, its outgoing relations links, so the graph survives as this
memory's link graph (a relation to an entity the file does not hold stays
text). The file has no times: items are stamped at import. A repeated
entity (the server appends) merges its observations; a line that is not
JSON refuses the whole file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wikimem.interop.plan import ImportPlan, SourceError
from wikimem.models import RecallItem
from wikimem.interop.source_file import load_json_lines
from wikimem.interop.text import clean, defuse_links, item_name, provenance, slug, storable

__all__ = ["read_mcp_memory"]

OWNER = "import:mcp-memory"


def _records(path: Path) -> list[Any]:
    records = load_json_lines(path)
    if len(records) == 1 and isinstance(records[0], dict) and "entities" in records[0]:  # a whole-graph document
        graph = records[0]
        return [{"type": "entity", **e} for e in graph.get("entities") or [] if isinstance(e, dict)] + \
               [{"type": "relation", **r} for r in graph.get("relations") or [] if isinstance(r, dict)]
    return records


def read_mcp_memory(path: Path) -> ImportPlan:
    """The plan for an MCP memory server's ``memory.json``."""
    entities: dict[str, tuple[str, list[str]]] = {}
    relations: dict[str, list[tuple[str, str]]] = {}  # from -> (relation, to), in file order
    for number, record in enumerate(_records(path), 1):
        if not isinstance(record, dict) or record.get("type") not in ("entity", "relation"):
            raise SourceError(f"{path}: record {number} is neither an entity nor a relation: nothing imported")
        if record["type"] == "entity":
            name = record.get("name")
            if not isinstance(name, str) or not name.strip():
                raise SourceError(f"{path}: record {number}: an entity without a name: nothing imported")
            kind = record.get("entityType") if isinstance(record.get("entityType"), str) else ""
            observations = [o if isinstance(o, str) else str(o.get("content", "")) if isinstance(o, dict) else str(o)
                            for o in record.get("observations") or []]
            old = entities.get(name)
            entities[name] = (old[0] if old else str(kind), (old[1] if old else []) + observations)
        else:
            ends = (record.get("from"), record.get("to"), record.get("relationType"))
            if all(isinstance(x, str) and x.strip() for x in ends):
                relations.setdefault(str(ends[0]), []).append((str(ends[2]), str(ends[1])))
    plan = ImportPlan("mcp-memory")
    address = {name: (slug(kind, "entities"), item_name(name) or "entity") for name, (kind, _) in entities.items()}
    for name, (kind, observations) in entities.items():
        file, item = address[name]
        lines = [f"- {defuse_links(clean(o).strip())}" for o in observations if o.strip()]
        out = relations.get(name, [])
        if out:
            lines += ["", "Relations:"] + [
                f"- {defuse_links(clean(rel))} " + (f"[[{address[to][0]}:{address[to][1]}]]" if to in address
                                                    else defuse_links(clean(to)))
                for rel, to in out]
        content = storable("\n".join(lines)) or f"({kind or 'entity'} with no observations)"
        plan.items.append(RecallItem(file, item, content, OWNER, provenance(f"mcp-memory:{name}")))
    if not entities:
        plan.notes.append("no entities")
    return plan
