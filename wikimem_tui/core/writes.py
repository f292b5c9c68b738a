"""What the app's writes are, as records: for undo, for refusals, and for who wrote them.

Kept apart from ``backend.py`` (the one writer) because many modules need
these names (a screen catches ``ReadOnlyError``, undo reads ``Write``)
without needing the writer itself.
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from typing import Any

from wikimem import BlockEdit, DiaryItem, RecallItem

__all__ = ["KEEP", "ItemChange", "ReadOnlyError", "UndoRefused", "Write", "content_of", "default_owner"]


def default_owner() -> str:
    """``tui:<login>``: who the journal says edited, when no --owner is given."""
    try:
        login = getpass.getuser()
    except Exception:  # no login name in some containers
        login = "unknown"
    return f"tui:{login}"


class ReadOnlyError(PermissionError):
    """The app runs with --read-only: the write was not made (the message says what it would have been)."""


class UndoRefused(Exception):
    """Undo did not write anything; the message says why."""


class _Keep:
    def __repr__(self) -> str:
        return "KEEP"


#: ``owner=`` / ``source=`` default of :meth:`Backend.save`: keep what the item has.
KEEP: Any = _Keep()


@dataclass(frozen=True)
class ItemChange:
    """One item as a write found it (``before``) and left it (``after``); None: absent."""

    file: str
    name: str
    before: RecallItem | None
    after: RecallItem | None


@dataclass(frozen=True)
class Write:
    """One write the app made, as undo needs it: what it was and what it changed."""

    what: str
    """Human words for it: "edit of preferences:tea"."""
    changes: tuple[ItemChange, ...] = ()
    """The items it changed, as the app shows them (the moved item first)."""
    diary: DiaryItem | None = None
    """Set for a diary append: append-only, never undone."""
    edits: tuple[BlockEdit, ...] = ()
    """Every block's raw bytes before and after: undo puts exactly these back (``MemoryStore.revert``)."""


def content_of(item: RecallItem | None) -> str | None:
    """The item's content; None when there is no item (what ``expected=`` means by "must not exist")."""
    return item.content if item is not None else None
