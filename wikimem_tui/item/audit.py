"""The audit chain: what a claim rests on, and what rests on it, each row one key from its place.

For a wiki item (``wikimem.audit``): its evidence lines resolved — the diary
entries they cite with their owner, time and source conversation, cited wiki
items, source-only citations — each marked *independent*, *derived*
(anti-echo: written from recall answers, or resting only on such text) or
*missing*; malformed evidence lines with the reason; then the items whose
evidence or links point at it. For a diary day (or one entry of it): each
entry and every wiki item resting on it, transitively
(``wikimem.retraction``), so a curator sees what a wrong entry has spread
to. Review marks (``<!-- wikimem-review: … -->``) are listed with the key
that clears them once the item has been checked.

The screen only reads (in a thread worker, from the item area's warm
snapshot); it dismisses with what the user chose — a place to open, a
retraction to start, review marks to clear — and the item area acts on it.
All text is untrusted and built with ``wikimem_tui.common.safe``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from wikimem import DiaryItem, is_derived, review_reasons
from wikimem.curation import Audit, CaptureChain, CardLink, Dependent, EvidenceRef
from wikimem_tui.common.dialog import Dialog
from wikimem_tui.core.curation_reads import EntryCiters
from wikimem_tui.common.safe import safe_line
from wikimem_tui.common.badges import derived_badge, first_line
from wikimem_tui.core.words import count

__all__ = ["AuditChoice", "AuditScreen", "Row", "day_rows", "item_rows"]

#: What the screen dismisses with: ``("open", "item", file, name)``, ``("open", "day", date, key)``,
#: ``("retract", "item", file, name)``, ``("retract", "entry", date, key)`` or ``("reviewed", file, name)``;
#: a diary ``key`` is the entry's ``HH:MM[#n]`` (``EntryId.key``).
AuditChoice = tuple[str, ...]  # ("open", "card", date, card id) too: the evidence card of a captured entry
#: ``("item", file, name)``, ``("day", date, key)`` or ``("card", snapshot date, card id)``: where a row
#: leads (None: nowhere to go).
Place = tuple[str, str, str]

_STATUS = {
    "independent": ("✓ independent", "green"),
    "derived": ("↺ derived    ", "magenta"),
    "missing": ("✗ missing    ", "bold red"),
}


@dataclass(frozen=True)
class Row:
    """One line of the audit (or a heading when ``heading``); ``place`` is where enter leads."""

    text: Text
    place: Place | None = None
    heading: bool = False
    minute: tuple[str, str] | None = None
    """For a day audit: ``(date, HH:MM[#n])`` of the diary entry the row belongs to (what ``X`` retracts)."""
    mark: bool = False
    """A review mark of the audited item (``c`` clears them)."""


#: Rows are cut to this many cells (the dialog's widest), so an excerpt never wraps under its row; a
#: narrower terminal cuts them again at the dialog's edge (``text-wrap: nowrap`` in the CSS).
ROW_WIDTH = 94


def _excerpt(text: Text, content: str) -> Text:
    """``text`` followed by the first line of ``content``, cut with … to fit ``ROW_WIDTH`` (enter opens it whole)."""
    room = max(ROW_WIDTH - text.cell_len, 20)
    line = first_line(content)
    text.append_text(safe_line(line if len(line) <= room else line[: room - 1] + "…"))
    return text


def _heading(title: str, count: int | None = None) -> Row:
    text = Text(title, style="bold underline")
    if count is not None:
        text.append(f"  ({count})", style="dim")
    return Row(text, heading=True)


def _note(message: str) -> Row:
    return Row(Text(f"  {message}", style="italic dim"))


def _entry_line(entry: DiaryItem, indent: str = "      ") -> Text:
    """``owner · source · first line`` of a cited diary entry, with the derived badge."""
    text = Text(indent)
    text.append_text(safe_line(f"owner {entry.owner or '-'} · source {entry.source_conv or '-'}", "dim"))
    if is_derived(entry.content):
        text.append("  ")
        text.append_text(derived_badge())
    text.append("  ")
    return _excerpt(text, entry.content)


def _card_rows(link: CardLink) -> list[Row]:
    """The evidence card a captured entry names, and the session log it came from: where the entry's claim can be checked."""
    text = Text("      ⧉ ")
    if link.card is None:
        text.append_text(safe_line(f"evidence card {link.ref.card_id}", "bold"))
        text.append_text(safe_line(f"  — {link.problem or 'missing'}", "red"))
        return [Row(text)]
    card = link.card
    place: Place = ("card", link.ref.date, link.ref.card_id)
    text.append_text(safe_line(f"evidence card {card.get('id')}", "bold"))
    span = " → ".join(str(card[k])[11:16] for k in ("first", "last") if isinstance(card.get(k), str) and card[k])
    if span:
        text.append_text(safe_line(f" · {span} UTC", "dim"))
    log = Text("        ⤷ session log ")
    state = Text("  ✓", style="green") if link.session_exists else \
        Text("  ✗ no longer exists: the card is the only record", style="bold red")
    room = max(ROW_WIDTH - log.cell_len - state.cell_len, 24)
    log.append_text(safe_line(short_path(link.session_path or "-", room), "bold" if link.session_exists else ""))
    log.append_text(state)
    return [Row(text, place), Row(log, place)]


def short_path(path: str, room: int) -> str:
    """``path`` with the home folder as ``~``, cut in the middle to ``room`` cells (the card shows it whole)."""
    home = str(Path.home())
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        path = "~" + path[len(home):]
    if len(path) <= room:
        return path
    tail = path[-(room * 2 // 3):]
    return path[: room - len(tail) - 1] + "…" + tail


def _evidence_rows(ref: EvidenceRef, cards: Sequence[CardLink] = ()) -> list[Row]:
    label, style = _STATUS[ref.status]
    ev = ref.evidence
    text = Text("  ")
    text.append(label, style=style)
    text.append("  ")
    text.append_text(safe_line(ev.target, "bold"))
    extras = [f"owner {ev.owner}" if ev.owner else "", f"source {ev.source}" if ev.source else ""]
    if any(extras):
        text.append_text(safe_line(" · " + " · ".join(e for e in extras if e), "dim"))
    if ev.kind == "diary":
        key = ev.entry_id.key if ev.entry_id is not None else ""
        place: Place | None = ("day", ev.date or "", key)
        if ref.status == "missing":
            text.append("  — no diary entry at that minute" if not ref.minute else
                        f"  — that minute holds {count(ref.minute, 'entry')} only", style="red")
            place = ("day", ev.date or "", ev.time or "") if ref.minute else None
        elif ref.minute > 1 and ev.ordinal == 1:
            # An old line (or one written while the entry was alone) names the first entry of the minute.
            text.append(f"  (the first of {ref.minute} entries at that minute)", style="dim")
        rows = [Row(text, place)]
        rows += [Row(_entry_line(entry), place) for entry in ref.entries]
        for link in cards:
            rows += _card_rows(link)
        return rows
    if ev.kind == "wiki" and ev.link is not None:
        if ref.item is None:
            text.append("  — no such item", style="red")
            return [Row(text)]
        line = _excerpt(Text("      "), ref.item.content)
        place = ("item", ev.link.file, ev.link.name)
        return [Row(text, place), Row(line, place)]
    if cards:  # a captured session named as the source: its card is the place to look
        text.append("  — a captured agent session", style="dim")
        return [Row(text)] + [row for link in cards for row in _card_rows(link)]
    text.append("  — the original conversation: outside the memory, independent by definition", style="dim")
    return [Row(text)]


def _dependent_row(dep: Dependent, *, transitive: bool) -> Row:
    text = Text("  ")
    relation = "cites it" if dep.relation == "evidence" else "links to it"
    if transitive and dep.depth > 1:
        relation = f"through {dep.via[-1]}" if dep.via else f"depth {dep.depth}"
    text.append(f"{relation:<13}", style="cyan" if dep.depth == 1 else "dim cyan")
    text.append("  ")
    text.append_text(safe_line(f"[[{dep.file}:{dep.name}]]", "bold"))
    return Row(text, ("item", dep.file, dep.name))


def item_rows(chain: Audit, capture: CaptureChain | None = None) -> list[Row]:
    """The rows of a wiki item's audit: evidence (down to evidence cards and session logs), malformed lines,
    review marks, what rests on it."""
    rows = [_heading("Rests on", len(chain.evidence) + len(chain.malformed))]
    for ref in chain.evidence:
        rows += _evidence_rows(ref, capture.cards_of(ref.line) if capture is not None else [])
    for line in chain.malformed:
        text = Text("  ")
        text.append("✗ malformed  ", style="bold red")
        text.append("  ")
        text.append_text(safe_line(line.text[:80]))
        text.append_text(safe_line(f" — {line.error}", "red"))
        rows.append(Row(text))
    if not chain.evidence and not chain.malformed:
        rows.append(_note("no evidence lines: written or promoted by hand, vouched for by its owner only"))
    reasons = review_reasons(chain.item.content)
    if reasons:
        rows.append(_heading("Marked for review", len(reasons)))
        rows += [Row(safe_line(f"  ⚑ {reason or '(no reason given)'}", "bold yellow"), mark=True) for reason in reasons]
        rows.append(_note("c: reviewed — clear the marks (one checked, undoable write)"))
    rows.append(_heading("Rests on it", len(chain.rests_on_it)))
    rows += [_dependent_row(dep, transitive=False) for dep in chain.rests_on_it]
    if not chain.rests_on_it:
        rows.append(_note("no wiki item cites it as evidence or links to it (diary mentions are not counted)"))
    return rows


def day_rows(entries: list[EntryCiters]) -> list[Row]:
    """The rows of a diary day's audit: each entry (``diary DAY HH:MM[#n]``), then everything resting on it."""
    rows: list[Row] = []
    for cited in entries:
        key = (cited.date, cited.key)
        title = safe_line(f"diary {cited.date} {cited.key}", "bold underline")
        title.append(f"  rests under {count(len(cited.dependents), 'item')}" if cited.dependents else "", style="dim")
        rows.append(Row(title, ("day", *key), heading=False, minute=key))
        rows.append(Row(_entry_line(cited.entry, "  "), ("day", *key), minute=key))
        for dep in cited.dependents:
            row = _dependent_row(dep, transitive=True)
            rows.append(Row(row.text, row.place, minute=key))
        if not cited.dependents:
            rows.append(Row(Text("  no wiki item cites it yet: it waits in the reconcile queue (R)", style="italic dim"),
                            minute=key))
    if not entries:
        rows.append(_note("no entries on this day"))
    return rows


class AuditScreen(Dialog[AuditChoice | None]):
    """Rows built in a worker by ``load``; enter opens a row, X retracts, c clears review marks."""

    HELP_TITLE = "Audit chain"

    DEFAULT_CSS = """
    AuditScreen { align: center middle; }
    AuditScreen > Vertical { width: 110; max-width: 98%; height: auto; max-height: 90%; border: thick $primary;
                             background: $surface; padding: 0 1; }
    AuditScreen #audit-title { text-style: bold; height: auto; }
    AuditScreen #audit-subtitle { color: $text-muted; height: auto; }
    AuditScreen OptionList { height: auto; max-height: 75vh; border: none; margin-top: 1;
                             text-wrap: nowrap; text-overflow: ellipsis; }
    AuditScreen #audit-hint { color: $text-muted; height: auto; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="audit.close"),
        Binding("X", "retract", "Retract", id="audit.retract"),
        Binding("c", "reviewed", "Reviewed: clear marks", id="audit.reviewed"),
    ]

    def __init__(self, title: Text, subject: tuple[str, str, str], load: Callable[[], list[Row]],
                 subtitle: Text | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.subject = subject
        """``("item", file, name)`` or ``("day", date, time or "")``."""
        self.subtitle = subtitle or Text("")
        self._load = load
        self.rows: list[Row] = []
        """What is listed (option index → row); empty until the worker answered."""
        self.loaded = False
        """True once the rows are on screen (tests wait on it)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="audit-title")
            yield Static(self.subtitle, id="audit-subtitle")
            yield OptionList(Option(Text("reading the evidence graph…", style="italic dim"), disabled=True),
                             id="audit-rows")
            hint = "enter opens the row · X retracts (lists what rests on it) · escape closes"
            if self.subject[0] == "item":
                hint += " · c clears review marks"
            yield Static(Text(hint), id="audit-hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._read()

    @work(thread=True, exclusive=True, group="audit", exit_on_error=False)
    def _read(self) -> None:
        worker = get_current_worker()
        try:
            rows = self._load()
        except KeyError:
            rows = [_note("this item does not exist (any more)")]
        except Exception as exc:  # a damaged file must not take the screen down
            rows = [Row(safe_line(f"cannot read the evidence graph: {exc}", "red"))]
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, rows)

    def _show(self, rows: list[Row]) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        self.rows = rows
        for row in rows:
            options.add_option(Option(row.text, disabled=row.place is None and row.minute is None))
        first = next((i for i, row in enumerate(rows) if row.place is not None), None)
        if first is not None:
            options.highlighted = first
        self.loaded = True

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        row = self.rows[event.option_index] if 0 <= event.option_index < len(self.rows) else None
        if row is not None and row.place is not None:
            self.dismiss(("open", *row.place))

    def action_close(self) -> None:
        """Close; nothing was changed."""
        self.dismiss(None)

    def action_retract(self) -> None:
        """Retract the item audited, or the diary entry of the highlighted row."""
        if self.subject[0] == "item":
            self.dismiss(("retract", *self.subject))
            return
        index = self.query_one(OptionList).highlighted
        row = self.rows[index] if index is not None and 0 <= index < len(self.rows) else None
        if row is None or row.minute is None:
            self.notify("highlight a diary entry first", markup=False)
            return
        self.dismiss(("retract", "entry", *row.minute))

    def action_reviewed(self) -> None:
        """The item has been checked: close and clear its review marks."""
        if self.subject[0] != "item":
            self.notify("review marks are on wiki items; open one and audit it", markup=False)
            return
        if not any(row.mark for row in self.rows):
            self.notify("this item carries no review mark", markup=False)
            return
        self.dismiss(("reviewed", self.subject[1], self.subject[2]))
