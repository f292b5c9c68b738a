"""Errors the library raises on purpose, beyond ``ValueError`` for bad input.

``ConflictError`` is the answer of a *checked* write: the caller said what
it last read (``expected=``), the store re-read the file under its lock and
found something else, so nothing was written. It is not a ``ValueError``:
the input was fine, the world moved. Callers that never pass ``expected``
never see it (the reference library's behaviour).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wikimem.models import RecallItem

__all__ = ["ConflictError"]


class ConflictError(Exception):
    """A checked write found ``file:name`` changed since the caller read it; nothing written.

    ``expected`` is what the caller said it last read (``None``: "must not
    exist yet"); ``current`` is the content on disk now (``None``: absent)
    and ``item`` the whole current item (provenance included), so a caller
    can show both versions and let the user choose.
    """

    def __init__(self, file: str, name: str, expected: str | None, item: RecallItem | None) -> None:
        self.file = file
        self.name = name
        self.expected = expected
        self.item = item
        self.current: str | None = item.content if item is not None else None
        if item is None:
            state = "it no longer exists"
        elif expected is None:
            state = "it exists already"
        else:
            state = "its content changed on disk"
        super().__init__(f"{file}:{name} changed since it was read ({state}); nothing written")
