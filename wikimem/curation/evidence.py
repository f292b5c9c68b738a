"""Curation queries over evidence lines: what a claim rests on, and what rests on it.

An item's evidence lines (:mod:`wikimem.disk.marks`) make a graph: items
cite diary entries and other items, and lint's :class:`~wikimem.lint.Snapshot`
holds it resolved (``wikimem.lint.graph``). These read-only questions walk
it: whether one citation exists and is independent (:func:`classify_evidence`,
anti-echo), the audit chain of an item (:func:`audit`), and everything that
rests on a diary entry or an item being retracted (:func:`retraction`).
A source is a Snapshot, or a store or a path read once into one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Union

from wikimem.disk.entry_id import EntryId, EntryRef, entry_ref
from wikimem.disk.marks import Evidence, EvidenceLine
from wikimem.disk.names import normalize_item_name
from wikimem.models import DiaryItem, RecallItem

if TYPE_CHECKING:
    from wikimem.lint.graph import EvidenceStatus
    from wikimem.lint.scan import ItemFacts
    from wikimem.lint.snapshot import Snapshot
    from wikimem.store import MemoryStore

__all__ = [
    "Audit",
    "Dependent",
    "EvidenceRef",
    "Source",
    "audit",
    "classify_evidence",
    "diary_entry",
    "diary_node",
    "retraction",
    "snapshot_of",
]

Source = Union["Snapshot", "MemoryStore", str, "os.PathLike[str]"]
#: ``("diary", date, HH:MM[#n])`` or ``("wiki", file, name)``: a node of the evidence graph.
Node = tuple[str, str, str]


def snapshot_of(source: Source) -> Snapshot:
    """``source`` as a Snapshot (a store or a path is read once)."""
    from wikimem.lint.snapshot import Snapshot

    if isinstance(source, Snapshot):
        return source
    if isinstance(source, (str, os.PathLike)):  # a Path has a .root too: test paths first
        return Snapshot.read(source)
    return Snapshot.read(source.root)


def classify_evidence(evidence: Evidence, snapshot: Snapshot) -> EvidenceStatus:
    """Whether cited evidence exists, and whether it is independent (anti-echo).

    A diary citation names one entry (the ``#n``-th of its minute, the
    first without ``#n``): it is derived when that entry carries the derived
    marker. A wiki
    citation is derived when the cited item is not grounded: it carries
    the marker, or its own evidence is only derived, however far down the
    chain (citation circles support nothing; see ``wikimem.lint.graph``).
    A source-only line cites the original conversation: it cannot be
    checked here, and it is independent by definition.
    """
    return snapshot.support.status(evidence, snapshot.wiki, snapshot.diary)


def _recall(file: str, item: ItemFacts) -> RecallItem:
    return RecallItem(file, item.name, item.content, item.owner, item.source_conv, item.ts)


def diary_entry(date: str, item: ItemFacts, ordinal: int = 1) -> DiaryItem:
    """The diary entry ``item`` of day ``date`` (the ``ordinal``-th of its minute), as a DiaryItem."""
    return DiaryItem(date, item.name, item.content, item.owner, item.source_conv, item.ts, ordinal)


def diary_node(entry: EntryId) -> Node:
    """The evidence-graph node of a diary entry (what ``Evidence.cited`` gives for a line citing it)."""
    return ("diary", entry.date, entry.key)


# -- the audit chain ---------------------------------------------------------------------


@dataclass(frozen=True)
class EvidenceRef:
    """One evidence line of an audited item, resolved: what it points at and its status.

    ``entries`` holds the cited diary entry (one, or none when it is
    missing); ``minute`` counts the entries of its minute, so a reader can
    say that a line without ``#n`` cites the first of several.
    """

    evidence: Evidence
    line: int
    status: EvidenceStatus
    entries: tuple[DiaryItem, ...] = ()
    item: RecallItem | None = None
    minute: int = 0


@dataclass(frozen=True)
class Dependent:
    """An item resting on the audited or retracted one.

    ``relation`` is ``"evidence"`` (it cites it) or ``"link"`` (it links to
    it); ``depth`` is 1 for a direct dependent; ``via`` is the chain from the
    retracted node to this item, as rendered targets; ``independent_left``
    counts its independent evidence that does not rest on the retraction.
    """

    file: str
    name: str
    relation: Literal["evidence", "link"]
    depth: int = 1
    via: tuple[str, ...] = ()
    independent_left: int = 0


@dataclass(frozen=True)
class Audit:
    """What an item rests on (its evidence) and what rests on it."""

    item: RecallItem
    evidence: list[EvidenceRef]
    malformed: list[EvidenceLine]
    rests_on_it: list[Dependent]


def _resting_on(snapshot: Snapshot, node: Node) -> list[tuple[str, str, str]]:
    """``(file, name, relation)`` of the wiki items citing or linking to ``node``, in store order.

    An item that both cites and links counts once, as evidence.
    """
    out = {key: "evidence" for key in snapshot.support.cites.get(node, ())}
    if node[0] == "wiki":
        for path, name in snapshot.links.into.get((node[1], node[2]), ()):
            if path.startswith("wiki/"):
                out.setdefault((path[5:-3], name), "link")
    wiki = snapshot.wiki
    rows = [(file, name, relation) for (file, name), relation in out.items() if (file, name) in wiki]
    return sorted(rows, key=lambda row: (row[0], wiki[(row[0], row[1])].line))


def audit(source: Source, file: str, name: str) -> Audit:
    """The audit chain of ``file:name``; ``KeyError`` when there is no such item."""
    snapshot = snapshot_of(source)
    name = normalize_item_name(name)
    item = snapshot.wiki.get((file, name))
    if item is None:
        raise KeyError(f"no item {file}:{name}")
    refs: list[EvidenceRef] = []
    malformed: list[EvidenceLine] = []
    for line in item.evidence:
        if line.evidence is None:
            malformed.append(line)
            continue
        ev = line.evidence
        entries: tuple[DiaryItem, ...] = ()
        cited: RecallItem | None = None
        minute = 0
        if ev.kind == "diary":
            found = snapshot.diary.get((ev.date or "", ev.time or ""), [])
            minute = len(found)
            if ev.ordinal <= minute:
                entries = (diary_entry(ev.date or "", found[ev.ordinal - 1], ev.ordinal),)
        elif ev.kind == "wiki" and ev.link is not None:
            target = snapshot.wiki.get((ev.link.file, ev.link.name))
            cited = _recall(ev.link.file, target) if target is not None else None
        refs.append(EvidenceRef(ev, item.first + line.index, classify_evidence(ev, snapshot), entries, cited,
                                minute))
    dependents = [Dependent(f, n, rel) for f, n, rel in  # type: ignore[arg-type]
                  _resting_on(snapshot, ("wiki", file, name))]
    return Audit(_recall(file, item), refs, malformed, dependents)


# -- retraction -----------------------------------------------------------------------------


def retraction(
    source: Source,
    *,
    entry: EntryRef | None = None,
    item: tuple[str, str] | None = None,
    follow_links: bool = False,
) -> list[Dependent]:
    """Everything that rests on a retracted diary ``entry`` or wiki ``item`` (file, name).

    ``entry`` is an :class:`~wikimem.disk.entry_id.EntryId` or ``(date, HH:MM[,
    ordinal])``; a pair is the minute's first entry, as a line without
    ``#n`` is, so only what cites that one entry is listed.

    Transitive over evidence: an item citing an item that cites the entry is
    listed too (depth 2), and so on, each once, nearest first. With
    ``follow_links`` items that merely link to a listed item are included as
    well. The retracted item itself is never listed.
    """
    if (entry is None) == (item is None):
        raise ValueError("retract exactly one of entry=(date, time) or item=(file, name)")
    snapshot = snapshot_of(source)
    start: Node = diary_node(entry_ref(entry)) if entry is not None else \
        ("wiki", item[0], normalize_item_name(item[1]))  # type: ignore[index]
    seen: set[Node] = {start}
    chain: dict[Node, tuple[str, ...]] = {start: (_render(start),)}
    out: list[Dependent] = []
    frontier = [start]
    depth = 0
    while frontier:
        depth += 1
        nxt: list[Node] = []
        for node in frontier:
            for file, name, relation in _resting_on(snapshot, node):
                if relation == "link" and not follow_links:
                    continue
                dep: Node = ("wiki", file, name)
                if dep in seen:
                    continue
                seen.add(dep)
                chain[dep] = (*chain[node], _render(dep))
                nxt.append(dep)
                out.append(Dependent(file, name, relation, depth, chain[dep][:-1]))  # type: ignore[arg-type]
        frontier = nxt
    return [_with_independent_left(dep, snapshot, seen) for dep in out]


def _render(node: Node) -> str:
    kind, a, b = node  # a diary node's b is already HH:MM[#n]
    return f"diary {a} {b}" if kind == "diary" else f"[[{a}:{b}]]"


def _with_independent_left(dep: Dependent, snapshot: Snapshot, retracted: set[Node]) -> Dependent:
    facts = snapshot.wiki[(dep.file, dep.name)]
    left = sum(
        1 for line in facts.evidence
        if line.evidence is not None and line.evidence.cited not in retracted
        and classify_evidence(line.evidence, snapshot) == "independent"
    )
    return Dependent(dep.file, dep.name, dep.relation, dep.depth, dep.via, left)
