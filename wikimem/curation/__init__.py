"""Curation queries: what is not yet reviewed, what a claim rests on, what rests on it.

The diary is evidence; the wiki is reviewed knowledge that cites it (see
``wikimem.disk.marks``). These are the read-only questions an app asks while
curating, answered from a :class:`~wikimem.lint.Snapshot` (or a store or a
path, read once): the reconcile queue and a promotion draft (here), the
audit chain and what rests on a retraction (:mod:`wikimem.curation.evidence`,
re-exported here, as are the review marks of :mod:`wikimem.disk.marks`).
They never write: the app writes through the store's checked write path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wikimem.curation.evidence import (
    Audit,
    Dependent,
    EvidenceRef,
    Source,
    audit,
    classify_evidence,
    diary_entry,
    retraction,
    snapshot_of,
)
# the audit chain down to evidence cards and session logs
from wikimem.curation.chain import CaptureChain, CardLink, CardReader, ChainStep, capture_chain, entry_cards
from wikimem.disk.entry_id import EntryRef, entry_ref, ordinals
from wikimem.disk.marks import (
    REVIEW_RE,
    Evidence,
    clear_review_marks,
    find_evidence,
    is_derived,
    mark_for_review,
    review_reasons,
    strip_derived,
)
from wikimem.disk.reviewed import is_dismissed, load_dismissed
from wikimem.disk.names import validate_date
from wikimem.models import DiaryItem, RecallItem

if TYPE_CHECKING:
    from wikimem.lint.snapshot import Snapshot

__all__ = [
    "REVIEW_RE",
    "Audit",
    "CaptureChain",
    "CardLink",
    "CardReader",
    "ChainStep",
    "Dependent",
    "EntryRef",
    "EvidenceRef",
    "PromotionDraft",
    "QueueEntry",
    "audit",
    "capture_chain",
    "classify_evidence",
    "clear_review_marks",
    "draft_promotion",
    "entry_cards",
    "entry_ref",
    "mark_for_review",
    "reconcile_queue",
    "retraction",
    "review_reasons",
]


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
    snapshot = snapshot_of(source)
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
            entry = diary_entry(date, item, ordinal)
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

