"""``wikimem graph``: the wiki-link graph as Mermaid or JSON.

The graph is what retrieval's one-hop expansion walks: one node per wiki
item, one edge per distinct link, and an unresolved node for every target
that does not exist, so dangling links are visible. Labels are untrusted
text in a diagram that renders HTML: ``"``, ``#``, ``<`` and ``>`` become
Mermaid entity codes so a name can neither end the label nor inject markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wikimem.cli.io import json_text
from wikimem.disk.names import normalize_item_name
from wikimem.store import MemoryStore

__all__ = ["LinkGraph", "build_graph", "graph_json", "mermaid_label", "render_graph"]


@dataclass
class LinkGraph:
    """Nodes in order (wiki items first, then missing targets) and distinct edges."""

    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, str]] = field(default_factory=list)


def build_graph(store: MemoryStore) -> LinkGraph:
    """Collect nodes and edges from every RecallFile, in file and item order."""
    items = store.items()
    graph = LinkGraph()
    known: set[str] = set()
    for item in items:
        node_id = f"{item.file}:{item.name}"
        known.add(node_id)
        graph.nodes.append({"id": node_id, "file": item.file, "name": item.name, "unresolved": False})
    seen_edges: set[tuple[str, str]] = set()
    for item in items:
        source = f"{item.file}:{item.name}"
        for link in item.links:  # either spelling; a link to a whole RecallFile is no item node
            name = normalize_item_name(link.name)
            target = f"{link.file}:{name}"
            if target not in known:
                known.add(target)
                graph.nodes.append({"id": target, "file": link.file, "name": name, "unresolved": True})
            if (source, target) not in seen_edges:
                seen_edges.add((source, target))
                graph.edges.append({"source": source, "target": target})
    return graph


def mermaid_label(text: str) -> str:
    """``text`` made safe inside a quoted Mermaid label (``#`` first: it starts entities)."""
    return (
        text.replace("#", "#35;")
        .replace('"', "#quot;")
        .replace("<", "#lt;")
        .replace(">", "#gt;")
    )


def _mermaid(graph: LinkGraph) -> str:
    ids = {node["id"]: f"n{index}" for index, node in enumerate(graph.nodes)}
    lines = ["graph LR"]
    for node in graph.nodes:
        suffix = ":::unresolved" if node["unresolved"] else ""
        lines.append(f'{ids[node["id"]]}["{mermaid_label(node["id"])}"]{suffix}')
    lines.extend(f"{ids[edge['source']]} --> {ids[edge['target']]}" for edge in graph.edges)
    if any(node["unresolved"] for node in graph.nodes):
        lines.append("classDef unresolved stroke-dasharray: 5 5,stroke:#c33,color:#c33")
    return "\n".join(lines) + "\n"


def render_graph(store: MemoryStore, *, fmt: str = "mermaid") -> str:
    """The whole graph as text in ``fmt`` (``mermaid`` or ``json``)."""
    if fmt == "json":
        return json_text(graph_json(store), indent=2) + "\n"
    return _mermaid(build_graph(store))


def graph_json(store: MemoryStore) -> dict[str, Any]:
    """The graph as the JSON document ``graph --format json`` prints: ``{"nodes", "edges"}``."""
    graph = build_graph(store)
    return {"nodes": graph.nodes, "edges": graph.edges}
