"""The item area's curation flows: audit chain (``A``), retraction (``X``) and git history (``H``).

Apart from ``item_area.py`` by concept. Each flow is a function of the
area, started as the area's worker (``item_flow``), that awaits its screen
and acts on what the screen dismissed with: the audit screen hands back a
place to open, a retraction to start or review marks to clear; the
retraction and history screens write through the ``Backend`` themselves
(checked, undoable) and hand back what they wrote. The audit and
retraction lists come from the area's one warm snapshot
(``ItemArea.curation``, a ``CurationReader``), so asking again after an
edit re-reads only the changed files.
"""

from __future__ import annotations

from functools import partial

from rich.text import Text

from wikimem import ConflictError, DiaryItem, RecallItem
from wikimem_tui.common.safe import safe_line
from wikimem_tui.core.backend import ReadOnlyError, Write
from wikimem_tui.item.audit import AuditScreen, Row, day_rows, item_rows
from wikimem_tui.item.card_view import CardScreen
from wikimem_tui.item.history import HistoryScreen
from wikimem_tui.item.item_area import ItemArea, item_flow
from wikimem_tui.item.item_view import provenance
from wikimem_tui.item.item_writes import refused
from wikimem_tui.item.retract import RetractScreen

__all__ = ["audit", "history", "retract"]


def _subject(area: ItemArea, what: str) -> tuple[str, str, str] | None:
    """``("item", file, name)`` or ``("day", date, time)`` of what is shown; None (with a hint) otherwise."""
    if area.editing:
        area.notify("finish editing first (ctrl+s saves, esc cancels)", markup=False)
        return None
    day = area.shown_day
    if day is not None:
        return ("day", day[0], day[1] or "")
    shown = area.view.shown
    if shown and shown[0] == "item" and (area.view.item is not None or what == "history"):
        return ("item", shown[1], shown[2])
    area.notify(f"open an item or a diary day first to {what} it (t tree, g go to)", markup=False)
    return None


# -- audit ---------------------------------------------------------------------


@item_flow
async def audit(area: ItemArea) -> None:
    """Show what the item shown rests on and what rests on it (for a day: what cites its entries)."""
    subject = _subject(area, "audit")
    if subject is None:
        return
    kind, a, b = subject
    item = area.view.item
    if kind == "item":
        assert item is not None
        title = safe_line(f"Audit of {a}:{b}", "bold")
        screen = AuditScreen(title, subject, partial(_item_rows, area, a, b), provenance(item))
    else:
        entries = area.backend.diary.day(a)
        title = Text(f"What rests on diary {a}" + (f" {b}" if b else ""), style="bold")
        note = Text("each entry, then every wiki item citing it, directly or through another item",
                    style="dim")
        screen = AuditScreen(title, subject, partial(_day_rows, area, a, entries, b or None), note)
    choice = await area.app.push_screen_wait(screen)
    if not choice:
        return
    if choice[0] == "open":
        if choice[1] == "item":
            area.open_item(choice[2], choice[3])
        elif choice[1] == "card":
            await area.app.push_screen_wait(CardScreen(area.curation.root, choice[3]))
        else:
            area.open_day(choice[2], choice[3] or None)
    elif choice[0] == "retract":
        await _retract(area, (choice[1], choice[2], choice[3]))
    elif choice[0] == "reviewed" and item is not None:
        _clear_marks(area, item)


def _item_rows(area: ItemArea, file: str, name: str) -> list[Row]:
    chain = area.curation.capture_chain(file, name)
    assert chain.audit is not None
    return item_rows(chain.audit, chain)


def _day_rows(area: ItemArea, date: str, entries: list[DiaryItem], time: str | None) -> list[Row]:
    return day_rows(area.curation.day(date, entries, time))


def _clear_marks(area: ItemArea, item: RecallItem) -> None:
    """The item has been reviewed as shown: its review mark lines go (checked against that text, undoable)."""
    try:
        area.backend.curate(clears=[item], what=f"review of {item.file}:{item.name}")
    except (ReadOnlyError, ConflictError, ValueError) as exc:
        refused(area, "cleared", exc)
        return
    area.notify(f"review marks of {item.file}:{item.name} cleared · ctrl+z undoes it", markup=False)
    area.open_item(item.file, item.name)


# -- retraction ----------------------------------------------------------------


@item_flow
async def retract(area: ItemArea) -> None:
    """Retract the item shown, or an entry of the diary day shown (asks which when the day has several)."""
    subject = _subject(area, "retract")
    if subject is None:
        return
    if subject[0] == "day":
        key = subject[2] or await _pick_entry(area, subject[1])
        if not key:
            return
        subject = ("entry", subject[1], key)
    await _retract(area, subject)


async def _pick_entry(area: ItemArea, date: str) -> str | None:
    """Which entry of ``date`` to retract (its ``HH:MM[#n]``): the only one, or the one picked on the day's audit."""
    entries = area.backend.diary.day(date)
    if len(entries) <= 1:
        return entries[0].entry_id.key if entries else None
    title = Text(f"Retract which entry of diary {date}?", style="bold")
    note = Text("highlight an entry (what rests on it is listed under it) and press X; enter opens it instead",
                style="dim")
    choice = await area.app.push_screen_wait(
        AuditScreen(title, ("day", date, ""), partial(_day_rows, area, date, entries, None), note))
    if choice and choice[0] == "retract":
        return choice[3]
    if choice and choice[0] == "open":
        area.open_day(choice[2], choice[3] or None)
    return None


async def _retract(area: ItemArea, subject: tuple[str, str, str]) -> None:
    kind, a, b = subject
    entries = [e for e in area.backend.diary.day(a) if e.entry_id.key == b] if kind == "entry" else []
    screen = RetractScreen(area.backend, area.curation, subject, entries, cursor_blink=area.cursor_blink)
    write: Write | None = await area.app.push_screen_wait(screen)
    if write is None:
        return
    marked = sum(1 for c in write.changes if c.after is not None)
    deleted = len(write.changes) - marked
    area.notify(f"{write.what}: marked {marked} for review, deleted {deleted} · ctrl+z undoes it", markup=False)
    area.reshow()


# -- history -------------------------------------------------------------------


@item_flow
async def history(area: ItemArea) -> None:
    """Past versions of the item shown, from git; restoring one is a checked, undoable write."""
    subject = _subject(area, "history")
    if subject is None:
        return
    if subject[0] != "item":
        area.notify("history is per wiki item (the diary is append-only: git log diary/ shows its days)",
                    markup=False)
        return
    item = await area.app.push_screen_wait(HistoryScreen(area.backend, subject[1], subject[2]))
    if item is not None:
        area.notify(f"restored {item.file}:{item.name} · ctrl+z undoes it", markup=False)
        area.open_item(item.file, item.name)
