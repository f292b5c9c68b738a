"""The writes the reconcile queue makes, as a small protocol, and the promotion's provenance rule.

The queue writes three things: a promoted wiki item, and "reviewed, not
promoted" marks (``reviewed.json``) set and taken back. It names exactly
those in :class:`CurationWriter` and nothing else, so the app can bind them
to its one writer: the app's ``Backend`` implements it (the store's checked
write, ``expected=`` compared under the store lock, ``by=`` the app's owner;
read-only refused before anything is touched; the own write recorded,
undoable and announced as a ``StoreChange`` like every other).

Provenance (:func:`promotion_owner`): extending an existing item keeps its
owner and source untouched (the journal line's ``by`` says who extended
it); a new item belongs to the entries' owner when they all share one, else
to the app's owner, and keeps the source conversation the entries share
(none when they differ). The evidence lines keep each entry's own owner and
source either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from wikimem import DiaryItem, RecallItem

__all__ = ["CurationWriter", "promotion_owner"]


class CurationWriter(Protocol):
    """What the reconcile queue writes; every method writes all or nothing."""

    @property
    def read_only(self) -> bool:
        """True when every write below is refused."""
        ...

    def promote_draft(
        self,
        entries: Sequence[DiaryItem],
        file: str,
        name: str,
        content: str,
        *,
        expected: str | None,
        owner: str | None,
        source: str | None,
        detail: str,
    ) -> RecallItem:
        """Write ``content`` to ``file:name`` if it still holds ``expected`` (None: must not exist).

        ``ConflictError`` when it changed, ``ValueError`` for invalid input,
        ``PermissionError`` when read-only; nothing written in each case.
        """
        ...

    def dismiss(self, entries: Sequence[DiaryItem], *, note: str | None = None) -> int:
        """Mark ``entries`` "reviewed, not promoted"; returns how many were new marks."""
        ...

    def undismiss(self, entries: Sequence[DiaryItem]) -> int:
        """Take the marks back; returns how many were removed."""
        ...


def promotion_owner(entries: Sequence[DiaryItem], existing: RecallItem | None, app_owner: str) -> tuple[str | None, str | None]:
    """``(owner, source)`` of the promoted item (the rule in the module docstring)."""
    if existing is not None:
        return existing.owner, existing.source_conv
    owners = {entry.owner for entry in entries}
    owner = owners.pop() if len(owners) == 1 else None
    sources = {entry.source_conv for entry in entries}
    source = sources.pop() if len(sources) == 1 else None
    return owner or app_owner, source
