"""The audit chain down to the source: item -> evidence line -> diary entry -> Evidence Card -> session log.

:func:`~wikimem.curation.evidence.audit` resolves an item's evidence lines
to diary entries; this module follows the last two hops (an entry's card
reference, the card's session log), read-only, and says where the chain
breaks. Agents delete old session logs: then the card is the last link,
and the answer says so rather than pretending the log is still there. A
source-only evidence line naming a captured session resolves to that
session's card directly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikimem.capture.card import card_id, session_log_path
from wikimem.capture.discover import AGENTS
from wikimem.capture.entry import CardRef, find_card_refs, snapshot_name
from wikimem.capture.snapshot import DaySnapshot, SnapshotError, list_snapshots, read_snapshot
from wikimem.curation.evidence import Audit, EvidenceRef, Source, audit, snapshot_of
from wikimem.models import DiaryItem, RecallItem

__all__ = ["CaptureChain", "CardLink", "ChainStep", "CardReader", "capture_chain", "entry_cards"]


@dataclass(frozen=True)
class CardLink:
    """One Evidence Card reached from an entry (or a source line): the card, or why it was not reached.

    ``card`` is the card as stored (``None`` when missing); ``problem`` says
    why in a sentence; ``session_path`` is the log it came from and
    ``session_exists`` whether that file is still there.
    """

    ref: CardRef
    card: dict[str, Any] | None
    problem: str | None = None
    session_path: str | None = None
    session_exists: bool = False

    @property
    def session_state(self) -> str:
        """``the session log is at PATH``, or why the chain ends at the card."""
        if self.card is None:
            return self.problem or "no card"
        if not self.session_path:
            return "the card names no session log"
        if self.session_exists:
            return f"session log {self.session_path}"
        return f"session log {self.session_path} no longer exists (the card is the only record left)"


@dataclass(frozen=True)
class ChainStep:
    """One evidence line of the item, followed down: the cited entry (if any) and the cards it names."""

    evidence: EvidenceRef
    entry: DiaryItem | None
    cards: list[CardLink] = field(default_factory=list)


@dataclass(frozen=True)
class CaptureChain:
    """The whole chain of one item: a step per evidence line, in the item's order, and its plain audit.

    ``audit`` is :func:`~wikimem.curation.evidence.audit`'s answer (malformed
    lines, what rests on the item), so a front end asks one question.
    """

    item: RecallItem
    steps: list[ChainStep]
    audit: Audit | None = None

    def cards_of(self, line: int) -> list[CardLink]:
        """The cards reached from the evidence line at file line ``line`` (``EvidenceRef.line``)."""
        return next((step.cards for step in self.steps if step.evidence.line == line), [])

    @property
    def sessions(self) -> list[str]:
        """Every session log the item rests on, in order, once each."""
        out: list[str] = []
        for step in self.steps:
            for link in step.cards:
                if link.session_path and link.session_path not in out:
                    out.append(link.session_path)
        return out


class CardReader:
    """Snapshots read once per chain (an item's evidence often cites one day several times)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._days: dict[str, DaySnapshot | str] = {}

    def day(self, date: str) -> DaySnapshot | str:
        if date not in self._days:
            try:
                self._days[date] = read_snapshot(self.root, date)
            except SnapshotError as exc:
                self._days[date] = str(exc)
        return self._days[date]

    def link(self, ref: CardRef) -> CardLink:
        """The card ``ref`` names, with its session log's state."""
        day = self.day(ref.date)
        if isinstance(day, str):
            return CardLink(ref, None, day)
        if day.origin is None:
            return CardLink(ref, None, f"{ref.snapshot} does not exist")
        card = day.cards.get(ref.card_id)
        if card is None:
            return CardLink(ref, None, f"{ref.snapshot} has no card {ref.card_id}")
        path = card.get("path") if isinstance(card.get("path"), str) else None
        log = session_log_path(path)
        return CardLink(ref, card, None, path, log is not None and os.path.exists(log))

    def by_id(self, cid: str) -> CardLink | None:
        """The card ``cid`` wherever it is (for a source line, which names no day)."""
        for date in list_snapshots(self.root):
            day = self.day(date)
            if not isinstance(day, str) and cid in day.cards:
                return self.link(CardRef(snapshot_name(date), date, cid, 0))
        return None


def entry_cards(root: str | os.PathLike[str], entry: DiaryItem, reader: CardReader | None = None) -> list[CardLink]:
    """The Evidence Cards a diary entry names (``[]`` for an entry that was not captured)."""
    reader = reader or CardReader(root)
    return [reader.link(ref) for ref in find_card_refs(entry.content)]


def _source_card(reader: CardReader, source: str | None) -> list[CardLink]:
    agent, _, session = (source or "").partition(":")
    if agent not in AGENTS or not session:
        return []
    found = reader.by_id(card_id(agent, session))
    return [found] if found is not None else []


def capture_chain(source: Source, file: str, name: str) -> CaptureChain:
    """The audit chain of ``file:name`` down to the session logs; ``KeyError`` when there is no such item."""
    snapshot = snapshot_of(source)
    result = audit(snapshot, file, name)
    reader = CardReader(snapshot.root)
    steps: list[ChainStep] = []
    for ref in result.evidence:
        entry = ref.entries[0] if ref.entries else None
        if entry is not None:
            cards = entry_cards(snapshot.root, entry, reader)
        elif ref.evidence.kind == "source":
            cards = _source_card(reader, ref.evidence.source)
        else:
            cards = []
        steps.append(ChainStep(ref, entry, cards))
    return CaptureChain(result.item, steps, result)
