"""Curation queries: what is not yet reviewed, what a claim rests on, what rests on it.

The diary is evidence; the wiki is reviewed knowledge that cites it (see
``wikimem.disk.marks``). These are the read-only questions an app asks while
curating, answered from a :class:`~wikimem.lint.Snapshot` (or a store or a
path, read once): the reconcile queue, a promotion draft, the audit chain of
an item, and everything that rests on an entry or item being retracted.
They never write: the app writes through the store's checked write path,
and the only curation state outside the markdown (entries dismissed as
"reviewed, not promoted") lives in ``wikimem.disk.reviewed``.

Mark for review: an item is marked by a line ``<!-- wikimem-review: REASON
-->`` in its own content (:func:`mark_for_review`), written like any other
edit. The mark travels with the item through moves, copies and git, needs no
side file that could go stale, and lint reports it as ``marked-for-review``
until someone deletes the line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Union

from wikimem.disk.entry_id import EntryId, EntryRef, entry_ref, ordinals
from wikimem.disk.marks import Evidence, EvidenceLine, find_evidence, is_derived, strip_derived
from wikimem.models import DiaryItem, RecallItem
from wikimem.disk.names import normalize_item_name, validate_date
from wikimem.disk.reviewed import is_dismissed, load_dismissed

if TYPE_CHECKING:
    from wikimem.lint.graph import EvidenceStatus
    from wikimem.lint.scan import ItemFacts
    from wikimem.lint.snapshot import Snapshot
    from wikimem.store import MemoryStore

__all__ = [
    "REVIEW_RE",
    "Audit",
    "Dependent",
    "EntryRef",
    "EvidenceRef",
    "PromotionDraft",
    "QueueEntry",
    "audit",
    "classify_evidence",
    "clear_review_marks",
    "draft_promotion",
    "entry_ref",
    "mark_for_review",
    "reconcile_queue",
    "retraction",
    "review_reasons",
]

Source = Union["Snapshot", "MemoryStore", str, "os.PathLike[str]"]
#: ``("diary", date, HH:MM[#n])`` or ``("wiki", file, name)``: a node of the evidence graph.
Node = tuple[str, str, str]


#: A review mark line; group 1 is the reason.
REVIEW_RE = re.compile(r"^[ \t]*<!--\s*wikimem-review:\s*(.*?)\s*-->[ \t]*$", re.M)


def _snapshot(source: Source) -> Snapshot:
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


def _entry(date: str, item: ItemFacts, ordinal: int = 1) -> DiaryItem:
    return DiaryItem(date, item.name, item.content, item.owner, item.source_conv, item.ts, ordinal)


def diary_node(entry: EntryId) -> Node:
    """The evidence-graph node of a diary entry (what ``Evidence.cited`` gives for a line citing it)."""
    return ("diary", entry.date, entry.key)


# -- the reconcile queue -------------------------------------------------------------


@dataclass(frozen=True)
class QueueEntry:
    """A diary entry waiting for review: the entry (with its ordinal), its line, and how to show it."""

    entry: DiaryItem
    line: int
    derived: bool
    dismissed: bool = False


def cited_entries(snapshot: Snapshot) -> set[tuple[str, str]]:
    """``(date, EntryId.key)`` of every diary entry some wiki item cites as evidence.

    The key is ``HH:MM`` for a minute's first entry and ``HH:MM#n`` for the
    n-th: citing one entry of a minute leaves the others uncited.
    """
    return {(date, key) for kind, date, key in snapshot.support.cites if kind == "diary"}


def reconcile_queue(
    source: Source,
    *,
    start: str | None = None,
    end: str | None = None,
    owner: str | None = None,
    include_dismissed: bool = False,
) -> list[QueueEntry]:
    """Diary entries no wiki item cites yet, newest first.

    ``start``/``end`` bound the days (inclusive; either may be omitted;
    reversed bounds are swapped); ``owner`` keeps one owner's entries.
    Entries dismissed as "reviewed, not promoted" are left out unless
    ``include_dismissed`` (then they come flagged). Each entry is one
    diary entry, not a minute: two entries of one minute are two rows, and
    citing or dismissing one leaves the other queued (``entry.entry_id``).
    """
    snapshot = _snapshot(source)
    low = validate_date(start) if start else None
    high = validate_date(end) if end else None
    if low and high and low > high:
        low, high = high, low
    cited = cited_entries(snapshot)
    dismissals = load_dismissed(snapshot.root)
    out: list[QueueEntry] = []
    for facts in reversed(snapshot.diary_files()):
        date = facts.stem
        if (low and date < low) or (high and date > high):
            continue
        numbered = list(zip(facts.items, ordinals(item.name for item in facts.items)))
        for item, ordinal in sorted(reversed(numbered), key=lambda pair: pair[0].name, reverse=True):
            entry = _entry(date, item, ordinal)
            if (date, entry.entry_id.key) in cited or (owner is not None and item.owner != owner):
                continue
            was_dismissed = is_dismissed(entry, dismissals)
            if was_dismissed and not include_dismissed:
                continue
            out.append(QueueEntry(entry, item.line, item.derived, was_dismissed))
    return out


# -- promotion -------------------------------------------------------------------------


@dataclass(frozen=True)
class PromotionDraft:
    """What promoting some entries would write: content, provenance, and warnings.

    ``content`` is ready for ``MemoryStore.add``; ``detail`` is the journal
    note; ``warnings`` are complete sentences for the user (nothing is
    refused: the user decides).
    """

    content: str
    evidence: list[Evidence]
    source_conv: str | None
    detail: str
    warnings: list[str] = field(default_factory=list)
    all_derived: bool = False


def draft_promotion(entries: Sequence[DiaryItem], existing: RecallItem | str | None = None) -> PromotionDraft:
    """Draft a wiki item from diary ``entries`` (appended to ``existing`` when given).

    Each entry's text (without the derived marker: the evidence line says
    where it came from) is followed by its evidence line, which names the
    entry by its identity (``diary DATE HH:MM``, ``…#n`` for a later entry of
    a shared minute: ``entry.ordinal``) and keeps its owner and source
    conversation. The source conversation of the item is kept when all
    entries share one.
    """
    if not entries:
        raise ValueError("nothing to promote: no diary entries selected")
    base = existing.content if isinstance(existing, RecallItem) else existing
    evidence = [Evidence.entry(e.entry_id, owner=e.owner, source=e.source_conv) for e in entries]
    parts = [base] if base else []
    parts += [f"{strip_derived(e.content)}\n{ev.render()}" for e, ev in zip(entries, evidence)]
    sources = {e.source_conv for e in entries}
    source_conv = sources.pop() if len(sources) == 1 else None
    if source_conv is None and isinstance(existing, RecallItem):
        source_conv = existing.source_conv
    warnings: list[str] = []
    all_derived = all(is_derived(e.content) for e in entries)
    if all_derived:
        warnings.append("every selected entry is derived (written from recall answers): the promoted "
                        "item would rest on no independent evidence (anti-echo)")
    total = len(find_evidence(base or "")) + len(evidence)
    if total > 3:
        warnings.append(f"the item would carry {total} evidence lines (more than three): consider "
                        "splitting it by independent outcome")
    detail = "promoted from diary " + ", ".join(e.entry_id.render() for e in entries)
    return PromotionDraft("\n\n".join(parts), evidence, source_conv, detail, warnings, all_derived)


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
    snapshot = _snapshot(source)
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
                entries = (_entry(ev.date or "", found[ev.ordinal - 1], ev.ordinal),)
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
    snapshot = _snapshot(source)
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


# -- mark for review ---------------------------------------------------------------------------


def mark_for_review(content: str, reason: str) -> str:
    """``content`` with a review mark line added (its last content line).

    The reason is one line (whitespace collapsed; ``-->`` refused). Write the
    result with ``MemoryStore.add(..., expected=old_content)``.
    """
    text = " ".join(reason.split())
    if "-->" in text or "<!--" in text:
        raise ValueError("invalid review reason: must not contain a comment delimiter")
    return content.rstrip() + f"\n<!-- wikimem-review: {text} -->"


def review_reasons(content: str) -> list[str]:
    """The reasons of every review mark in ``content`` (``[]`` when unmarked)."""
    return REVIEW_RE.findall(content) if "wikimem-review" in content else []


def clear_review_marks(content: str) -> str:
    """``content`` without its review mark lines (the item has been reviewed)."""
    return "\n".join(line for line in content.split("\n") if not REVIEW_RE.match(line)).strip()
