"""Messages that cross widget boundaries.

Widgets never reach into each other: a widget that wants an item opened, a
day shown or a status line changed posts one of these, and the App (which
owns the layout) routes it. Keeping them in one module lets every widget
depend on this file alone rather than on its siblings.
"""

from __future__ import annotations

from textual.message import Message

from wikimem_tui.core.changes import StoreChange


class OpenItem(Message):
    """Show the wiki item ``file:name`` in the item view."""

    def __init__(self, file: str, name: str) -> None:
        super().__init__()
        self.file = file
        self.name = name


class OpenDiaryDay(Message):
    """Show the entries of one diary day (``YYYY-MM-DD``), optionally one entry highlighted.

    ``entry_key`` names the entry as ``EntryId.key`` does: ``HH:MM`` for the
    minute's first entry, ``HH:MM#n`` for its n-th (``wikimem.diary_id``).
    Not ``time``: that is the message's own creation time, which Textual sets.
    """

    def __init__(self, date: str, entry_key: str | None = None) -> None:
        super().__init__()
        self.date = date
        self.entry_key = entry_key


class OpenRecallFile(Message):
    """Select a whole RecallFile (e.g. from the tree or a journal line)."""

    def __init__(self, file: str) -> None:
        super().__init__()
        self.file = file


class StoreChanged(Message):
    """Files changed (by another process, or by this app); views refresh themselves."""

    def __init__(self, change: StoreChange) -> None:
        super().__init__()
        self.change = change


class IndexReady(Message):
    """The background index build finished (or was refreshed)."""
