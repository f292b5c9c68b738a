"""Errors the library raises on purpose, beyond ``ValueError`` for bad input.

``ConflictError`` is the answer of a *checked* write: the caller said what
it last read (``expected=``), the store re-read the file under its lock and
found something else, so nothing was written. It is not a ``ValueError``:
the input was fine, the world moved. Callers that never pass ``expected``
never see it (the reference library's behaviour).

``LossyWriteError`` is the answer of a write that would destroy what its
caller did not address: the block it addresses shares its heading with
another (which one did the caller mean?), holds bytes that are not UTF-8,
or the file is mid-merge (git conflict markers). It *is* a ``ValueError``
(the file, not the world, is the problem), so every caller that shows
"not saved: …" for bad input shows it too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wikimem.models import RecallItem

__all__ = ["ConflictError", "LossyWriteError"]


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


class LossyWriteError(ValueError):
    """A write was refused because it would lose data nobody asked to change; nothing written.

    ``path`` is the file (relative to the memory directory, e.g.
    ``wiki/notes.md``), ``problems`` says what would be lost, each with its
    line numbers. The fix is always a hand edit of the raw file first.
    """

    def __init__(self, path: str, what: str, problems: list[str]) -> None:
        self.path = path
        self.problems = list(problems)
        super().__init__(
            f"{what} would lose data in {path}: " + "; ".join(self.problems)
            + f". Nothing written: fix {path} by hand first (open the raw file, e.g. in $EDITOR), then retry"
        )
