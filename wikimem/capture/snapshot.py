"""The Evidence Snapshot: ``captures/YYYY-MM-DD.capture.json``, the cards of one day's sessions.

Kept, not a cache: agents delete old session logs, so a snapshot may become
the only record of a session a reviewed claim rests on. Nothing rebuilds
it, lint never offers to delete it, and capture never rewrites one it
cannot read. The same cards give the same bytes (fixed key order and
layout), which is what makes a second capture change nothing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikimem.capture.entry import CAPTURES_DIR, snapshot_name
from wikimem.disk.names import validate_date
from wikimem.disk.store_dir import ForeignFolderError, foreign_folder, own_folder
from wikimem.disk.tolerant import UnreadableError, nesting_depth, parse_json, read_regular, repair_surrogates

__all__ = ["FORMAT", "DaySnapshot", "SnapshotError", "list_snapshots", "read_snapshot", "render_snapshot"]

#: The format version written in every snapshot.
FORMAT = 1
_SUFFIX = ".capture.json"
#: Deepest nesting a snapshot may have: its own shape is a handful of levels.
_MAX_DEPTH = 32


class SnapshotError(ValueError):
    """A snapshot file that exists but cannot be used (unreadable, not JSON, not a snapshot)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path} is not a readable Evidence Snapshot ({problem})")
        self.path = path
        self.problem = problem


@dataclass
class DaySnapshot:
    """One day's cards by id, and the bytes the file had when read (``None``: no file yet)."""

    date: str
    cards: dict[str, dict[str, Any]] = field(default_factory=dict)
    origin: bytes | None = None

    @property
    def relative(self) -> str:
        return snapshot_name(self.date)


def list_snapshots(root: Path) -> list[str]:
    """The dates that have a snapshot file, ascending (other files in ``captures/`` are not snapshots)."""
    try:
        names = os.listdir(root / CAPTURES_DIR) if own_folder(root, CAPTURES_DIR) else []
    except OSError:
        return []
    dates = []
    for name in names:
        if name.endswith(_SUFFIX):
            try:
                dates.append(validate_date(name[: -len(_SUFFIX)]))
            except ValueError:
                continue
    return sorted(dates)


def read_snapshot(root: Path, date: str) -> DaySnapshot:
    """The snapshot of ``date`` (empty when there is none); :class:`SnapshotError` when it is damaged."""
    relative = snapshot_name(date)
    outside = foreign_folder(root, CAPTURES_DIR)
    if outside is not None:
        raise SnapshotError(relative, str(ForeignFolderError(CAPTURES_DIR, outside)))
    try:
        data = read_regular(root / relative, root=root)
    except UnreadableError as exc:
        raise SnapshotError(relative, str(exc)) from None
    if data is None:
        return DaySnapshot(date)
    try:
        doc = parse_json(data.decode("utf-8"))  # ValueError, never RecursionError, for a deep file
    except (UnicodeDecodeError, ValueError) as exc:
        raise SnapshotError(relative, f"not JSON: {exc}") from None
    if nesting_depth(doc, _MAX_DEPTH) > _MAX_DEPTH:
        raise SnapshotError(relative, f"nested more than {_MAX_DEPTH} levels deep")
    if b"\\u" in data and repair_surrogates(doc)[1]:  # it could never be written back as UTF-8
        raise SnapshotError(relative, "a string holds a lone surrogate (\\ud800-\\udfff), not Unicode")
    if not isinstance(doc, dict) or not isinstance(doc.get("cards"), list):
        raise SnapshotError(relative, "no list of cards")
    if doc.get("date") != date:
        raise SnapshotError(relative, f"its date is {doc.get('date')!r}, not {date}")
    if not isinstance(doc.get("format"), int) or doc["format"] > FORMAT:
        raise SnapshotError(relative, f"format {doc.get('format')!r} is not one this version writes")
    cards: dict[str, dict[str, Any]] = {}
    for card in doc["cards"]:
        if not isinstance(card, dict) or not isinstance(card.get("id"), str):
            raise SnapshotError(relative, "a card without an id")
        if card["id"] in cards:
            raise SnapshotError(relative, f"card {card['id']} twice")
        cards[card["id"]] = card
    return DaySnapshot(date, cards, data)


def render_snapshot(snapshot: DaySnapshot) -> bytes:
    """The file's bytes: stable for the same cards."""
    cards = sorted(snapshot.cards.values(), key=lambda c: (c.get("first") or "", c["id"]))
    doc = {"format": FORMAT, "date": snapshot.date, "kept": "evidence of record: not a cache, do not delete",
           "cards": cards}
    return (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
