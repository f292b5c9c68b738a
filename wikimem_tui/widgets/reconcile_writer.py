"""The writes the reconcile queue makes, as a small protocol, and the promotion's provenance rule.

The queue writes three things: a promoted wiki item, and "reviewed, not
promoted" marks (``reviewed.json``) set and taken back. It names exactly
those in :class:`CurationWriter` and nothing else, so the app can bind them
to its one writer; :class:`BackendWriter` is the interim binding over
today's ``Backend``: the store's checked write (``expected=`` compared under
the store lock, ``by=`` the app's owner), read-only refused before anything
is touched, the app's own write recorded and announced as a ``StoreChange``.

Provenance (:func:`promotion_owner`): extending an existing item keeps its
owner and source untouched (the journal line's ``by`` says who extended
it); a new item belongs to the entries' owner when they all share one, else
to the app's owner, and keeps the source conversation the entries share
(none when they differ). The evidence lines keep each entry's own owner and
source either way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from wikimem import DiaryItem, RecallItem, dismiss, undismiss
from wikimem_tui.messages import StoreChange

__all__ = ["BackendWriter", "CurationWriter", "ReadOnlyRefused", "promotion_owner"]


class ReadOnlyRefused(PermissionError):
    """The app is read-only: the write was not made (the message says which)."""


class CurationWriter(Protocol):
    """What the reconcile queue writes; every method writes all or nothing."""

    @property
    def read_only(self) -> bool:
        """True when every write below is refused."""
        ...

    def promote(
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


@dataclass
class BackendWriter:
    """:class:`CurationWriter` over today's ``Backend`` (store, owner, clock, read_only, note_write).

    ``announce`` receives the change of each memory write (the pane posts it
    as ``StoreChanged`` so every view refreshes); marks in ``reviewed.json``
    are curation state, not memory, and announce nothing.
    """

    backend: Any
    announce: Callable[[StoreChange], None] = lambda change: None

    @property
    def read_only(self) -> bool:
        """The backend's read-only flag."""
        return bool(self.backend.read_only)

    def _writable(self, what: str) -> None:
        if self.read_only:
            raise ReadOnlyRefused(f"read-only: {what} not made, nothing written")

    def promote(
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
        """One checked ``MemoryStore.add``; the journal line says the app wrote it (``by``)."""
        self._writable("promotion")
        b = self.backend
        item = b.store.add(file, name, content, owner=owner, source_conv=source, ts=b.clock(), detail=detail,
                           expected=expected, by=b.owner)
        self.announce(b.note_write([file]))
        return item

    def dismiss(self, entries: Sequence[DiaryItem], *, note: str | None = None) -> int:
        """``wikimem.dismiss`` under the store lock, signed with the app's owner."""
        self._writable("'reviewed, not promoted' mark")
        return len(dismiss(self.backend.root, list(entries), by=self.backend.owner, note=note,
                           ts=self.backend.clock().replace(microsecond=0).isoformat()))

    def undismiss(self, entries: Sequence[DiaryItem]) -> int:
        """``wikimem.undismiss`` under the store lock."""
        self._writable("removal of the 'reviewed, not promoted' mark")
        return undismiss(self.backend.root, list(entries))
