"""Retract a diary entry or a wiki item: see everything that rests on it, then mark or delete, in one step.

A retracted source (an entry that turned out wrong, an item that was an
echo) leaves every claim built on it unsupported. ``wikimem.retraction``
lists them transitively — an item citing an item that cites the entry too —
with how much independent evidence each still has without it. Here the user
chooses per item (or for all at once) to mark it for review (a
``<!-- wikimem-review: … -->`` line lint reports until someone clears it),
delete it, or keep it; a retracted wiki item can itself be marked or
deleted in the same step. A diary entry cannot be deleted (the diary is
append-only), only what rests on it.

Nothing is written until ``ctrl+s``; then everything goes through
``Backend.curate`` as one checked write: each item is compared with what
was listed, under the store lock, so an agent's edit in between writes
nothing and the list is read again. One ``ctrl+z`` takes the whole step
back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Input, Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from wikimem import ConflictError, DiaryItem, RecallItem
from wikimem.curation import Dependent
from wikimem_tui.common.dialog import Dialog
from wikimem_tui.core.backend import Backend, ReadOnlyError, Write
from wikimem_tui.core.curation_reads import CurationReader
from wikimem_tui.common.safe import safe_line
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.common.safe_inputs import SafeInput
from wikimem_tui.core.words import count

__all__ = ["Action", "Candidate", "RetractScreen"]

Action = Literal["keep", "mark", "delete"]
_TAGS: dict[str, tuple[str, str]] = {
    "mark": ("MARK  ", "bold yellow"),
    "delete": ("DELETE", "bold red"),
    "keep": ("keep  ", "dim"),
}
_CYCLE: dict[str, Action] = {"mark": "delete", "delete": "keep", "keep": "mark"}


@dataclass
class Candidate:
    """One item the retraction may touch, as read (its content is the write's ``expected``)."""

    item: RecallItem
    dependent: Dependent | None
    """How it rests on the retracted source; None for the retracted item itself."""
    action: Action = "mark"


def _row(candidate: Candidate) -> Text:
    label, style = _TAGS[candidate.action]
    text = Text(f"[{label}] ", style=style)
    item, dep = candidate.item, candidate.dependent
    text.append_text(safe_line(f"[[{item.file}:{item.name}]]", "bold"))
    if dep is None:
        text.append("  the retracted item itself", style="italic")
        return text
    how = "cites it" if dep.relation == "evidence" else "links to it"
    if dep.depth > 1 and dep.via:
        how = f"through {' → '.join(dep.via[1:])}"
    text.append("  ")
    text.append_text(safe_line(how, "cyan"))
    left = dep.independent_left
    text.append(f"  · {count(left, 'independent evidence line')} left" if left else
                "  · no independent evidence left", style="green" if left else "red")
    return text


class RetractScreen(Dialog[Write | None]):
    """Lists what rests on ``subject``; m/d/k choose per row, M/D/K for all; ctrl+s applies."""

    HELP_TITLE = "Retract"

    DEFAULT_CSS = """
    RetractScreen { align: center middle; }
    RetractScreen > Vertical { width: 110; max-width: 98%; height: auto; max-height: 94%; border: thick $warning;
                               background: $surface; padding: 0 1; }
    RetractScreen #retract-title { text-style: bold; height: auto; }
    RetractScreen #retract-note { color: $text-muted; height: auto; }
    RetractScreen OptionList { height: auto; min-height: 3; max-height: 60vh; border: round $panel; }
    RetractScreen #retract-fields { height: auto; }
    RetractScreen #retract-fields Label { padding: 1 1 0 0; }
    RetractScreen #retract-reason { width: 1fr; }
    RetractScreen #retract-summary { height: auto; text-style: bold; }
    RetractScreen #retract-error { color: $error; height: auto; }
    RetractScreen #retract-buttons { height: auto; align-horizontal: right; }
    RetractScreen Button { margin-left: 1; }
    """

    BINDINGS = [
        Binding("ctrl+s", "apply", "Apply", id="retract.apply", priority=True),
        Binding("escape", "cancel", "Cancel", id="retract.cancel"),
        Binding("m", "set('mark')", "Mark", id="retract.mark"),
        Binding("d", "set('delete')", "Delete", id="retract.delete"),
        Binding("k", "set('keep')", "Keep", id="retract.keep"),
        Binding("space", "cycle", "Cycle", id="retract.cycle", show=False),
        Binding("M", "set_all('mark')", "All mark", id="retract.all-mark"),
        Binding("D", "set_all('delete')", "All delete", id="retract.all-delete"),
        Binding("K", "set_all('keep')", "All keep", id="retract.all-keep", show=False),
    ]

    def __init__(self, backend: Backend, reader: CurationReader, subject: tuple[str, str, str],
                 entries: Sequence[DiaryItem] = (), *, cursor_blink: bool = True) -> None:
        super().__init__()
        self.backend, self.reader = backend, reader
        self.subject = subject
        """``("item", file, name)`` or ``("entry", date, HH:MM[#n])`` (one entry: ``EntryId.key``)."""
        self.entries = list(entries)
        self.target = (f"[[{subject[1]}:{subject[2]}]]" if subject[0] == "item"
                       else f"diary {subject[1]} {subject[2]}")
        self.candidates: list[Candidate] = []
        """The rows (option index → candidate), the retracted item first when it is one."""
        self.loaded = False
        """True once the list is read (tests wait on it)."""
        self._cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(safe_line(f"Retract {self.target}", "bold"), id="retract-title")
            yield Static(self._note(), id="retract-note")
            yield Checkbox("also list items that only link to it (no evidence line)", id="retract-links")
            yield OptionList(Option(Text("reading what rests on it…", style="italic dim"), disabled=True),
                             id="retract-rows")
            with Horizontal(id="retract-fields"):
                yield Label("review reason")
                # Not the [[link]] form: a reason in the item's content must not add a link to what it retracts.
                reason = self.target.strip("[]") if self.subject[0] == "item" else self.target
                yield SafeInput(f"retracted: {reason}", id="retract-reason", cursor_blink=self._cursor_blink)
            yield Static(id="retract-summary")
            yield Static(id="retract-error")
            with Horizontal(id="retract-buttons"):
                yield Button("Apply ^s", id="retract-ok", variant="warning")
                yield Button("Cancel esc", id="retract-cancel")

    def _note(self) -> Text:
        text = Text("m mark for review · d delete · k keep (space cycles) · M / D / K: every item below at once. "
                    "Nothing is written before ctrl+s; then it is one checked write, undone by one ctrl+z.")
        if self.subject[0] == "entry":
            text.append("\nThe diary is append-only: the entry itself stays (and so does the evidence line "
                        "citing it, so the audit keeps the trail); what rests on it can be marked or deleted.",
                        style="italic")
            for entry in self.entries:
                text.append("\n  ")
                text.append_text(safe_line(entry.content.splitlines()[0][:100] if entry.content else "", "dim"))
        return text

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._read(False)

    # -- reading ---------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="retract-read", exit_on_error=False)
    def _read(self, follow_links: bool) -> None:
        worker = get_current_worker()
        kind, a, b = self.subject
        store = self.backend.store
        error = ""
        candidates: list[Candidate] = []
        try:
            if kind == "item":
                own = store.get(a, b)
                if own is not None:
                    candidates.append(Candidate(own, None))
                deps = self.reader.retraction(item=(a, b), follow_links=follow_links)
            else:
                deps = self.reader.retraction(entry=(a, b), follow_links=follow_links)
            for dep in deps:
                item = store.get(dep.file, dep.name)
                if item is not None:
                    candidates.append(Candidate(item, dep))
        except Exception as exc:  # a damaged file must not take the screen down
            error = f"cannot read what rests on it: {exc}"
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, candidates, error)

    def _show(self, candidates: list[Candidate], error: str) -> None:
        old = {(c.item.file, c.item.name): c.action for c in self.candidates}
        for candidate in candidates:  # a re-read keeps what the user already chose
            candidate.action = old.get((candidate.item.file, candidate.item.name), candidate.action)
        self.candidates = candidates
        self._render_rows()
        options = self.query_one(OptionList)
        if not candidates:
            options.add_option(Option(Text("nothing rests on it: no wiki item cites it"
                                           + (" or links to it" if self.query_one(Checkbox).value else ""),
                                           style="italic"), disabled=True))
        if error:  # otherwise keep what the last apply said (e.g. why the list was read again)
            self.query_one("#retract-error", Static).update(safe_line(error))
        self.loaded = True

    def _render_rows(self) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        for candidate in self.candidates:
            options.add_option(Option(_row(candidate)))
        if self.candidates:
            options.highlighted = min(highlighted or 0, len(self.candidates) - 1)
        self._summarise()

    def _summarise(self) -> None:
        counts = {action: sum(1 for c in self.candidates if c.action == action) for action in _TAGS}
        text = Text(f"will mark {counts['mark']} · delete {counts['delete']} · keep {counts['keep']}")
        if self.backend.read_only:
            text.append("  — read-only: nothing can be written", style="red")
        self.query_one("#retract-summary", Static).update(text)

    @on(Checkbox.Changed)
    def _links_toggled(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.loaded = False
        self._read(event.value)

    # -- choosing ----------------------------------------------------------------------

    def _highlighted(self) -> Candidate | None:
        index = self.query_one(OptionList).highlighted
        return self.candidates[index] if index is not None and 0 <= index < len(self.candidates) else None

    def action_set(self, action: Action) -> None:
        """Choose ``action`` for the highlighted item."""
        candidate = self._highlighted()
        if candidate is not None:
            candidate.action = action
            self._render_rows()

    def action_cycle(self) -> None:
        """mark → delete → keep → mark for the highlighted item."""
        candidate = self._highlighted()
        if candidate is not None:
            candidate.action = _CYCLE[candidate.action]
            self._render_rows()

    def action_set_all(self, action: Action) -> None:
        """Choose ``action`` for every item resting on the retracted one (not for the item itself)."""
        for candidate in self.candidates:
            if candidate.dependent is not None:
                candidate.action = action
        self._render_rows()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_cycle()

    # -- writing -----------------------------------------------------------------------

    @work(exclusive=True, group="retract-apply")
    async def action_apply(self) -> None:
        """Write every choice as one checked step (asks first when it deletes)."""
        error = self.query_one("#retract-error", Static)
        if not self.loaded:
            return
        marks = [c.item for c in self.candidates if c.action == "mark"]
        deletes = [c.item for c in self.candidates if c.action == "delete"]
        if not marks and not deletes:
            error.update(Text("nothing to write: every item is set to keep (escape closes)"))
            return
        if deletes:
            question = Text(f"Delete {count(len(deletes), 'item')}"
                            + (f" and mark {len(marks)} for review" if marks else "") + "?")
            question.append("\nThe journal keeps a record; ctrl+z undoes the whole step.", style="dim")
            lines = [safe_line(f"[[{item.file}:{item.name}]]") for item in deletes]
            if not await self.app.push_screen_wait(ConfirmScreen(question, yes="Delete", details=lines)):
                return
        reason = self.query_one("#retract-reason", SafeInput).raw
        try:
            write = self.backend.curate(marks, deletes, reason=reason, what=f"retraction of {self.target}")
        except ConflictError as exc:
            error.update(safe_line(f"nothing written: {exc.file}:{exc.name} changed on disk since it was listed; "
                                   "the list is read again — check it and apply again"))
            self.loaded = False
            self._read(self.query_one(Checkbox).value)
            return
        except (ReadOnlyError, ValueError) as exc:
            error.update(safe_line(f"nothing written: {exc}"))
            return
        self.dismiss(write)

    def action_cancel(self) -> None:
        """Close without writing."""
        self.dismiss(None)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(OptionList).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "retract-ok":
            self.action_apply()
        else:
            self.action_cancel()
