"""Promote diary entries of one day (events) into a wiki item (reviewed knowledge).

The diary is evidence, the wiki is the reviewed state: promotion copies the
chosen entries' text into a new or existing item and keeps a visible trail
back to them — one evidence line per entry, with its owner and source. This
is the same promotion as the reconcile queue's, not a second one: the
content, the journal detail and the anti-echo warnings come from the
library's ``wikimem.draft_promotion``, whose it becomes from
``promotion_owner``, and the write is ``Backend.promote_draft`` (one checked
``MemoryStore.add`` under the store lock, ``expected`` = the item as it was
read for the draft, undoable). A rejected write is shown here and nothing is
written.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, SelectionList, Static
from textual.widgets.selection_list import Selection

from wikimem import ConflictError, DiaryItem, RecallItem, draft_promotion, is_derived, sanitize_item_name, validate_file
from wikimem_tui.core.backend import Backend, ReadOnlyError
from wikimem_tui.common.confirm import confirm_discard
from wikimem_tui.common.safe import clean_line, safe_line
from wikimem_tui.common.badges import BADGE
from wikimem_tui.queue.reconcile_writer import promotion_owner

__all__ = ["PromoteScreen"]


class PromoteScreen(ModalScreen[RecallItem | None]):
    """Pick entries of one day and the item they become; dismisses with the item written."""

    DEFAULT_CSS = """
    PromoteScreen { align: center middle; }
    PromoteScreen > Vertical { width: 90; max-width: 95%; height: auto; max-height: 95%; border: thick $primary; background: $surface; padding: 0 1; }
    PromoteScreen SelectionList { height: auto; max-height: 12; }
    PromoteScreen #promote-error { color: $error; height: auto; }
    PromoteScreen #promote-warnings { color: $warning; text-style: bold; height: auto; }
    PromoteScreen Horizontal { height: auto; align-horizontal: right; }
    PromoteScreen Button { margin-left: 1; }
    """

    BINDINGS = [
        Binding("ctrl+s", "promote", "Promote", id="promote.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="promote.cancel"),
    ]

    def __init__(self, backend: Backend, date: str, entries: list[DiaryItem], time: str | None = None,
                 file: str = "") -> None:
        super().__init__()
        self.backend = backend
        self.date, self.entries, self.time, self.file = date, entries, time, file

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"Promote diary entries of {self.date} into a wiki item", style="bold"))
            selections = []
            for index, entry in enumerate(self.entries):
                first = entry.content.splitlines()[0] if entry.content else ""
                badge = f"{BADGE}  " if is_derived(entry.content) else ""
                label = Content(clean_line(f"{entry.entry_id.key}  {badge}{first[:70]}"))
                selections.append(Selection(label, index, self.time in (None, entry.entry_id.key)))
            yield SelectionList[int](*selections, id="promote-entries")
            yield Label("RecallFile")
            yield Input(self.file, placeholder="e.g. preferences", id="promote-file")
            yield Label("Item name (an existing item gets the entries appended)")
            yield Input(placeholder="e.g. likes-the-sea", id="promote-name")
            yield Static(id="promote-warnings")
            yield Static(id="promote-error")
            with Horizontal():
                yield Button("Promote ^s", id="promote-ok", variant="primary")
                yield Button("Cancel esc", id="promote-cancel")

    def on_mount(self) -> None:
        self.query_one("#promote-file" if not self.file else "#promote-name", Input).focus()
        self._show_warnings()

    def _error(self, message: str) -> None:
        self.query_one("#promote-error", Static).update(safe_line(message))

    def _chosen(self) -> list[DiaryItem]:
        return [self.entries[i] for i in sorted(self.query_one(SelectionList).selected)]

    def _target(self) -> tuple[str, str]:
        """The validated file and item name; ``ValueError`` naming what is wrong."""
        file = validate_file(self.query_one("#promote-file", Input).value.strip())
        return file, sanitize_item_name(self.query_one("#promote-name", Input).value)

    @on(SelectionList.SelectedChanged)
    def _show_warnings(self) -> None:
        """The draft's warnings for the entries chosen (every one derived: anti-echo; too many evidence lines)."""
        chosen = self._chosen()
        warnings: list[str] = []
        if chosen:
            try:
                existing = self.backend.store.get(*self._target())
            except ValueError:
                existing = None
            warnings = draft_promotion(chosen, existing).warnings
        self.query_one("#promote-warnings", Static).update(Text("\n").join(Text(f"⚠ {w}") for w in warnings))

    def action_promote(self) -> None:
        """Draft from the item as it is now, write it checked against that, close with what was written."""
        chosen = self._chosen()
        if not chosen:
            self._error("select at least one entry")
            return
        try:
            file, name = self._target()
            existing = self.backend.store.get(file, name)
            draft = draft_promotion(chosen, existing)
            owner, source = promotion_owner(chosen, existing, self.backend.owner)
            item = self.backend.promote_draft(chosen, file, name, draft.content,
                                              expected=existing.content if existing is not None else None,
                                              owner=owner, source=source, detail=draft.detail)
        except ConflictError as exc:
            self._error(f"not promoted: {exc.file}:{exc.name} changed on disk while promoting; nothing written "
                        "— promote again to extend the new version")
            return
        except (ValueError, ReadOnlyError) as exc:
            self._error(f"not promoted: {exc}")
            return
        self.dismiss(item)

    def action_cancel(self) -> None:
        """Close without writing; asks first when a file or name was typed."""
        typed = any(self.query_one(f"#promote-{key}", Input).value.strip() != default
                    for key, default in (("file", self.file), ("name", "")))
        if not typed:
            self.dismiss(None)
            return

        confirm_discard(self)

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._show_warnings()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "promote-file":
            self.query_one("#promote-name", Input).focus()
        else:
            self.action_promote()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "promote-ok":
            self.action_promote()
        else:
            self.action_cancel()
