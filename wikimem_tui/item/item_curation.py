"""The item area's curation flows: audit chain (``A``), retraction (``X``) and git history (``H``).

Split from ``item_area.py`` by concept. Each flow is a ``@work`` method that
awaits its screen and acts on what the screen dismissed with: the audit
screen hands back a place to open, a retraction to start or review marks to
clear; the retraction and history screens write through the ``Backend``
themselves (checked, undoable) and hand back what they wrote. The audit
and retraction lists come from one warm snapshot (``CurationReader``), so
asking again after an edit re-reads only the changed files. ``ItemCuration``
is a mixin of ``ItemArea``; the attributes it relies on are declared below.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.widget import Widget

from wikimem import ConflictError, DiaryItem, RecallItem
from wikimem_tui.core.backend import Backend, ReadOnlyError, Write
from wikimem_tui.core.curation_reads import CurationReader
from wikimem_tui.common.safe import safe_line
from wikimem_tui.item.audit import AuditScreen, Row, day_rows, item_rows
from wikimem_tui.item.history import HistoryScreen
from wikimem_tui.item.retract import RetractScreen
from wikimem_tui.item.item_view import provenance

if TYPE_CHECKING:
    from wikimem_tui.item.item_view import ItemView

__all__ = ["ItemCuration"]


class ItemCuration(Widget):
    """Audit, retract and history for the item or diary day shown."""

    backend: Backend
    curation: CurationReader
    _cursor_blink: bool

    if TYPE_CHECKING:
        @property
        def view(self) -> ItemView: ...
        @property
        def editing(self) -> bool: ...
        @property
        def shown_day(self) -> tuple[str, str | None] | None: ...
        def open_item(self, file: str, name: str) -> None: ...
        def open_day(self, date: str, time: str | None = None) -> None: ...
        def reshow(self) -> None: ...
        def _refused(self, what: str, exc: BaseException | None) -> None: ...

    def _subject(self, what: str) -> tuple[str, str, str] | None:
        """``("item", file, name)`` or ``("day", date, time)`` of what is shown; None (with a hint) otherwise."""
        if self.editing:
            self.notify("finish editing first (ctrl+s saves, esc cancels)", markup=False)
            return None
        day = self.shown_day
        if day is not None:
            return ("day", day[0], day[1] or "")
        shown = self.view.shown
        if shown and shown[0] == "item" and (self.view.item is not None or what == "history"):
            return ("item", shown[1], shown[2])
        self.notify(f"open an item or a diary day first to {what} it (t tree, g go to)", markup=False)
        return None

    # -- audit -------------------------------------------------------------------------------

    @work(group="item-flow")
    async def audit(self) -> None:
        """Show what the item shown rests on and what rests on it (for a day: what cites its entries)."""
        subject = self._subject("audit")
        if subject is None:
            return
        kind, a, b = subject
        item = self.view.item
        if kind == "item":
            assert item is not None
            title = safe_line(f"Audit of {a}:{b}", "bold")
            screen = AuditScreen(title, subject, lambda: item_rows(self.curation.audit(a, b)), provenance(item))
        else:
            entries = self.backend.diary.day(a)
            title = Text(f"What rests on diary {a}" + (f" {b}" if b else ""), style="bold")
            note = Text("each entry, then every wiki item citing it, directly or through another item",
                        style="dim")
            screen = AuditScreen(title, subject, partial(self._day_rows, a, entries, b or None), note)
        choice = await self.app.push_screen_wait(screen)
        if not choice:
            return
        if choice[0] == "open":
            if choice[1] == "item":
                self.open_item(choice[2], choice[3])
            else:
                self.open_day(choice[2], choice[3] or None)
        elif choice[0] == "retract":
            await self._retract((choice[1], choice[2], choice[3]))
        elif choice[0] == "reviewed" and item is not None:
            self._clear_marks(item)

    def _day_rows(self, date: str, entries: list[DiaryItem], time: str | None) -> list[Row]:
        return day_rows(self.curation.day(date, entries, time))

    def _clear_marks(self, item: RecallItem) -> None:
        """The item has been reviewed as shown: its review mark lines go (checked against that text, undoable)."""
        try:
            self.backend.curate(clears=[item], what=f"review of {item.file}:{item.name}")
        except (ReadOnlyError, ConflictError, ValueError) as exc:
            self._refused("cleared", exc)
            return
        self.notify(f"review marks of {item.file}:{item.name} cleared · ctrl+z undoes it", markup=False)
        self.open_item(item.file, item.name)

    # -- retraction ----------------------------------------------------------------------------

    @work(group="item-flow")
    async def retract(self) -> None:
        """Retract the item shown, or an entry of the diary day shown (asks which when the day has several)."""
        subject = self._subject("retract")
        if subject is None:
            return
        if subject[0] == "day":
            key = subject[2] or await self._pick_entry(subject[1])
            if not key:
                return
            subject = ("entry", subject[1], key)
        await self._retract(subject)

    async def _pick_entry(self, date: str) -> str | None:
        """Which entry of ``date`` to retract (its ``HH:MM[#n]``): the only one, or the one picked on the day's audit."""
        entries = self.backend.diary.day(date)
        if len(entries) <= 1:
            return entries[0].entry_id.key if entries else None
        title = Text(f"Retract which entry of diary {date}?", style="bold")
        note = Text("highlight an entry (what rests on it is listed under it) and press X; enter opens it instead",
                    style="dim")
        choice = await self.app.push_screen_wait(
            AuditScreen(title, ("day", date, ""), partial(self._day_rows, date, entries, None), note))
        if choice and choice[0] == "retract":
            return choice[3]
        if choice and choice[0] == "open":
            self.open_day(choice[2], choice[3] or None)
        return None

    async def _retract(self, subject: tuple[str, str, str]) -> None:
        kind, a, b = subject
        entries = [e for e in self.backend.diary.day(a) if e.entry_id.key == b] if kind == "entry" else []
        screen = RetractScreen(self.backend, self.curation, subject, entries, cursor_blink=self._cursor_blink)
        write: Write | None = await self.app.push_screen_wait(screen)
        if write is None:
            return
        marked = sum(1 for c in write.changes if c.after is not None)
        deleted = len(write.changes) - marked
        self.notify(f"{write.what}: marked {marked} for review, deleted {deleted} · ctrl+z undoes it", markup=False)
        self.reshow()

    # -- history -------------------------------------------------------------------------------

    @work(group="item-flow")
    async def history(self) -> None:
        """Past versions of the item shown, from git; restoring one is a checked, undoable write."""
        subject = self._subject("history")
        if subject is None:
            return
        if subject[0] != "item":
            self.notify("history is per wiki item (the diary is append-only: git log diary/ shows its days)",
                        markup=False)
            return
        item = await self.app.push_screen_wait(HistoryScreen(self.backend, subject[1], subject[2]))
        if item is not None:
            self.notify(f"restored {item.file}:{item.name} · ctrl+z undoes it", markup=False)
            self.open_item(item.file, item.name)
