"""The one promote flow: diary entries become reviewed knowledge, after a look at what already exists.

Both ways into a promotion end here: the reconcile queue hands over the
entries it has selected, and the item pane a diary day whose entries the
user picks on this screen (the highlighted one, or all, pre-selected).
The point is reviewed knowledge without duplicates, so before anything is
written the screen shows the wiki items most similar to the entries
(``MemoryIndex.retrieve`` on their text: BM25, fused with cosine when an
embedder is on), and picking one turns the promotion into an extension of
that item. Everything the write will do is on screen before it happens:
the target and whose it will be (``promotion_owner``), the warnings of
``draft_promotion`` (every entry derived: anti-echo; too many evidence
lines) and the exact content. The write is one checked
``CurationWriter.promote_draft`` with ``expected`` = the content the
preview was drafted from, so an agent writing the item meanwhile is never
overwritten: the preview is refreshed and the user decides again. Escape
with a target typed asks first, as every dialog of the app does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Button, Input, Label, OptionList, SelectionList, Static
from textual.widgets.option_list import Option
from textual.widgets.selection_list import Selection
from textual.worker import get_current_worker

from wikimem import (
    ConflictError,
    DiaryItem,
    MemoryStore,
    RecallItem,
    RetrievedItem,
    draft_promotion,
    is_derived,
    sanitize_item_name,
    validate_file,
)
from wikimem_tui.common.badges import BADGE, clip_words, first_line
from wikimem_tui.common.confirm import confirm_discard
from wikimem_tui.common.dialog import Dialog
from wikimem_tui.common.fit_input import FitInput
from wikimem_tui.common.safe import clean_line, safe_line, safe_text
from wikimem_tui.core.words import count
from wikimem_tui.queue.promote_text import entry_summary, similar_option, similarity_text
from wikimem_tui.queue.reconcile_writer import CurationWriter, promotion_owner

__all__ = ["SIMILAR_LIMIT", "PromoteScreen"]

#: How many similar items are shown.
SIMILAR_LIMIT = 5
_TIME_NAME_RE = re.compile(r"\d\d:\d\d")  # a diary row of retrieve (wiki names cannot hold ':')
_PREVIEW_DELAY = 0.15




class PromoteScreen(Dialog[RecallItem | None]):
    """Entries, similar items, target, provenance, warnings and preview; ctrl+s writes; dismisses with the item."""

    HELP_TITLE = "Promote"

    DEFAULT_CSS = """
    PromoteScreen { align: center middle; }
    PromoteScreen > Vertical { width: 100; max-width: 98%; height: 94%; border: thick $primary;
                               background: $surface; padding: 0 1; }
    PromoteScreen #rp-body { height: 1fr; }
    PromoteScreen #rp-title { text-style: bold; }
    PromoteScreen #rp-warnings { color: $warning; text-style: bold; height: auto; }
    PromoteScreen #rp-entries { height: auto; max-height: 4; }
    PromoteScreen #rp-pick { height: auto; max-height: 8; }
    PromoteScreen .rp-label { margin-top: 1; text-style: bold; }
    PromoteScreen #rp-similar { height: auto; max-height: 7; }
    PromoteScreen #rp-fields { height: auto; }
    PromoteScreen #rp-fields Input { width: 1fr; }
    PromoteScreen #rp-target { height: auto; color: $text-muted; }
    PromoteScreen #rp-preview { height: auto; background: $boost; padding: 0 1; }
    PromoteScreen #rp-error { color: $error; height: auto; }
    PromoteScreen #rp-buttons { height: auto; align-horizontal: right; }
    PromoteScreen Button { margin-left: 1; }
    """

    BINDINGS = [
        Binding("ctrl+s", "promote", "Promote", id="promote.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="promote.cancel"),
        Binding("down", "to_similar", "Similar items", show=False, id="promote.similar"),
    ]

    def __init__(
        self,
        entries: Sequence[DiaryItem],
        *,
        store: MemoryStore,
        index: Any | None,
        writer: CurationWriter,
        app_owner: str,
        file: str = "",
        name: str = "",
        pick: bool = False,
        time: str | None = None,
    ) -> None:
        super().__init__()
        self.entries = list(entries)
        """The entries offered (one diary day's when ``pick``), or promoted (the queue's selection)."""
        self.pick = pick
        """True: the user picks which of ``entries`` to promote, ``time``'s entry (all when None) pre-selected."""
        self._time = time
        self.store, self.index, self.writer, self.app_owner = store, index, writer, app_owner
        self.similar: list[RecallItem] = []
        """The similar items listed (option index -> item)."""
        self.similar_ready = False
        """True once the similarity search answered (tests wait on it)."""
        self.target: tuple[str, str] | None = None
        """``(file, name)`` the preview was drafted for (None: the fields are not valid yet)."""
        self.existing: RecallItem | None = None
        """The item at ``target`` when the preview was drafted (its content is the write's ``expected``)."""
        # Not ``self._name``: that is the DOM node's own name (``Screen.name``).
        self._initial_file, self._initial_name = file, name
        self._timer: Timer | None = None
        self._outcome = 0
        self._attempted: tuple[str, str] | None = None  # the fields as the last ctrl+s read them
        """Bumped by each thing that decides what the screen says (a keystroke's coming preview, a
        promotion attempt): a late preview drawn for an older number would overwrite a newer outcome."""
        self._preview_due = False  # typed since the last preview
        self._lookup = 0  # the newest similarity lookup's number: an older one's answer is dropped

    @property
    def chosen(self) -> list[DiaryItem]:
        """The entries the promotion writes: those picked, else all of them."""
        if not self.pick:
            return self.entries
        return [self.entries[i] for i in sorted(self.query_one("#rp-pick", SelectionList).selected)]

    def compose(self) -> ComposeResult:
        n = len(self.entries)
        with Vertical():
            with VerticalScroll(id="rp-body"):
                if self.pick:
                    day = self.entries[0].date if self.entries else ""
                    yield Static(Text(f"Promote diary entries of {day} into a wiki item"), id="rp-title")
                else:
                    yield Static(Text(f"Promote {count(n, 'diary entry')} into a wiki item"), id="rp-title")
                yield Static(id="rp-warnings")
                if self.pick:
                    yield SelectionList[int](*self._selections(), id="rp-pick")
                else:
                    yield Static(Text("\n").join(entry_summary(e) for e in self.entries), id="rp-entries")
                yield Label("Similar items in the wiki — ↓ ⏎ extends one instead of adding a near-duplicate",
                            classes="rp-label")  # whole at 80 columns
                yield OptionList(Option(Text("looking for similar items…", style="italic dim"), disabled=True),
                                 id="rp-similar")
                with Horizontal(id="rp-fields"):
                    yield FitInput(self._initial_file, placeholder="RecallFile, e.g. preferences", id="rp-file")
                    yield FitInput(self._initial_name, placeholder="item name (an existing item is extended)", id="rp-name")
                yield Static(id="rp-target")
                yield Label("What will be written", classes="rp-label")
                yield Static(id="rp-preview")
            yield Static(id="rp-error")
            with Horizontal(id="rp-buttons"):
                yield Button("Promote ^s", id="rp-ok", variant="primary")
                yield Button("Cancel esc", id="rp-cancel")

    def _selections(self) -> list[Selection[int]]:
        """One line per entry of the day: ``HH:MM[#n]``, the derived badge, the first line; ``time``'s selected."""
        selections = []
        for index, entry in enumerate(self.entries):
            badge = f"{BADGE}  " if is_derived(entry.content) else ""
            label = Content(clean_line(f"{entry.entry_id.key}  {badge}{clip_words(clean_line(first_line(entry.content)), 70)}"))
            selections.append(Selection(label, index, self._time in (None, entry.entry_id.key)))
        return selections

    def on_mount(self) -> None:
        self.query_one("#rp-file", Input).focus()  # a typist types the target at once; ↓ goes to the similar items
        self._refresh_preview()
        self._look_up_similar()

    @on(SelectionList.SelectedChanged, "#rp-pick")
    def _picked(self, event: SelectionList.SelectedChanged[int]) -> None:
        """Other entries picked: the preview, the warnings and the similar items follow."""
        event.stop()
        self._refresh_preview()
        self._look_up_similar()

    # -- similar items ------------------------------------------------------------

    def _look_up_similar(self) -> None:
        """Look up the items similar to the entries chosen (none chosen: say what to do instead)."""
        chosen = self.chosen
        if not chosen:
            self._show_similar([], "select an entry: the items similar to it are listed here")
            return
        self._lookup += 1
        self._find_similar(similarity_text(chosen), self._lookup)

    @work(thread=True, exclusive=True, group="reconcile-similar", exit_on_error=False)
    def _find_similar(self, text: str, lookup: int) -> None:
        """BM25 (+ cosine when embeddings are on) over the entries' text, off the UI thread."""
        worker = get_current_worker()
        note = ""
        rows: list[RetrievedItem] = []
        if self.index is None:
            note = "no search index: similar items cannot be looked up"
        else:
            try:
                result = self.index.retrieve(text, limit=SIMILAR_LIMIT, expand_links=False)
                rows = [r for r in result.items if not _TIME_NAME_RE.fullmatch(r.item.name)]
                if not rows:
                    note = "no similar items: this would be new knowledge"
                elif result.embedding_used:
                    note = "ranked by BM25 fused with embeddings (cos)"
            except Exception as exc:  # a failing index must not block the promotion
                note = f"similar items unavailable: {exc}"
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_similar, rows, note, lookup)

    def _show_similar(self, rows: list[RetrievedItem], note: str, lookup: int | None = None) -> None:
        if lookup is not None and lookup != self._lookup:
            return  # the entries chosen changed since: their own lookup is on its way
        options = self.query_one("#rp-similar", OptionList)
        if rows and not options.scrollable_content_region.width:  # not laid out yet: rows fitted to 20 cells
            self.call_after_refresh(self._show_similar, rows, note, lookup)
            return
        options.clear_options()
        self.similar = [row.item for row in rows]
        width = max(options.scrollable_content_region.width - 4, 20)  # the excerpt's indent and the border
        for row in rows:
            options.add_option(similar_option(row, width))
        if note:
            options.add_option(Option(Text(note, style="italic dim"), disabled=True))
        if rows:
            options.highlighted = 0  # ↓ from the fields, then ⏎, extends the most similar one
        self.similar_ready = True

    def action_to_similar(self) -> None:
        """↓ in the target fields: into the similar items (their label says ↓ ⏎ extends one)."""
        options = self.query_one("#rp-similar", OptionList)
        if self.similar and isinstance(self.focused, Input):
            options.focus()
            if options.highlighted is None:
                options.highlighted = 0

    @on(OptionList.OptionSelected, "#rp-similar")
    def _pick_similar(self, event: OptionList.OptionSelected) -> None:
        """Extend the picked item: its address goes into the fields and the preview follows."""
        event.stop()
        if 0 <= event.option_index < len(self.similar):
            item = self.similar[event.option_index]
            self.query_one("#rp-file", Input).value = item.file
            self.query_one("#rp-name", Input).value = item.name
            self._refresh_preview()
            self.query_one("#rp-ok", Button).focus()

    # -- target, provenance, preview ----------------------------------------------

    @on(Input.Changed)
    def _fields_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._field_values() == self._attempted:
            # A change that ctrl+s already read (its message came after the key): the refusal on
            # screen answers these very fields, and a preview now would wipe it.
            return
        self._stop_timer()
        # One file read per pause, not per key. The timer's callback is queued when it fires, so
        # stopping the timer cannot take back a preview already on its way: its number can.
        self._timer = self.set_timer(_PREVIEW_DELAY, partial(self._late_preview, self._next_outcome()))
        self._preview_due = True

    def _next_outcome(self) -> int:
        self._outcome += 1
        return self._outcome

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _late_preview(self, outcome: int) -> None:
        """The preview a pause in typing asked for, unless something newer is on screen (a refusal)."""
        if outcome == self._outcome:
            self._refresh_preview()

    def _field_values(self) -> tuple[str, str]:
        return self.query_one("#rp-file", Input).value, self.query_one("#rp-name", Input).value

    def _missing(self) -> Input | None:
        """The first of the two target fields still empty, if any."""
        return next((f for f in self.query("#rp-file, #rp-name").results(Input) if not f.value.strip()), None)

    def _fields(self) -> tuple[str, str]:
        """The validated target; ``ValueError`` naming what is wrong."""
        file = validate_file(self.query_one("#rp-file", Input).value.strip())
        return file, sanitize_item_name(self.query_one("#rp-name", Input).value)

    def _refresh_preview(self) -> None:
        """Re-read the target and show whose it will be, the warnings and the exact content."""
        self._preview_due = False
        self.query_one("#rp-error", Static).update("")
        target_line = self.query_one("#rp-target", Static)
        chosen = self.chosen
        try:
            file, name = self._fields()
        except ValueError as exc:
            self.target, self.existing = None, None
            target_line.update(Text("type a RecallFile and an item name, or pick a similar item above", style="italic")
                               if self._missing() else safe_line(f"not a valid target: {exc}", "red"))
            self._show_draft(chosen, None)
            return
        existing = self.store.get(file, name)
        self.target, self.existing = (file, name), existing
        owner, source = promotion_owner(chosen, existing, self.app_owner)
        if existing is not None:
            line = safe_line(f"extends {file}:{existing.name}", "bold")
            line.append_text(safe_line(f" · keeps its owner {existing.owner or '-'} and source {existing.source_conv or '-'}"))
        else:
            why = "the entries' owner" if _shared_owner(chosen) else "the app's owner: the entries share none"
            line = safe_line(f"new item {file}:{name}", "bold")
            line.append_text(safe_line(f" · owner {owner} ({why}) · source {source or '-'}"))
        target_line.update(line)
        self._show_draft(chosen, existing)

    def _show_draft(self, chosen: list[DiaryItem], existing: RecallItem | None) -> None:
        """The warnings and the exact content the write would make (nothing chosen: say so)."""
        if not chosen:
            self.query_one("#rp-warnings", Static).update("")
            self.query_one("#rp-preview", Static).update(Text("select at least one entry", style="italic"))
            return
        draft = draft_promotion(chosen, existing)
        self.query_one("#rp-warnings", Static).update(Text("\n").join(Text(f"⚠ {w}") for w in draft.warnings))
        self.query_one("#rp-preview", Static).update(safe_text(draft.content))

    # -- writing ------------------------------------------------------------------------

    def action_promote(self) -> None:
        """Write the preview, checked against the content it was drafted from; stay open on any refusal."""
        error = self.query_one("#rp-error", Static)
        self._stop_timer()
        self._next_outcome()  # what this attempt shows is newer than any preview still on its way
        self._attempted = self._field_values()
        if self._preview_due:  # typed since the last preview: show what the fields say now, then the outcome
            self._refresh_preview()
        if self.writer.read_only:
            error.update(Text("read-only: nothing written", style="bold"))
            return
        chosen = self.chosen
        if not chosen:
            error.update(Text("select at least one entry"))
            return
        try:
            target = self._fields()
        except ValueError as exc:
            missing = self._missing()  # ctrl+s on an empty field said "invalid RecallFile name ''": say which, go there
            if missing is not None:
                what = "a RecallFile (e.g. preferences)" if missing.id == "rp-file" else "an item name"
                missing.focus()
            error.update(safe_line(f"not promoted: {exc}" if missing is None else
                                   f"not promoted: type {what}, or pick a similar item above"))
            return
        if target != self.target:  # typed after the last preview: draft from what is there now
            self._refresh_preview()
        existing = self.existing
        draft = draft_promotion(chosen, existing)
        owner, source = promotion_owner(chosen, existing, self.app_owner)
        file, name = target
        try:
            item = self.writer.promote_draft(chosen, file, name, draft.content,
                                             expected=existing.content if existing is not None else None,
                                             owner=owner, source=source, detail=draft.detail)
        except ConflictError:
            self._refresh_preview()
            error.update(safe_line(f"not promoted: {file}:{name} changed on disk since the preview; "
                                   "the preview now shows it — check it and promote again"))
            return
        except (ValueError, PermissionError) as exc:
            error.update(safe_line(f"not promoted: {exc}"))
            return
        self.dismiss(item)

    def action_cancel(self) -> None:
        """Close without writing; asks first when a target was typed."""
        typed = (self.query_one("#rp-file", Input).value.strip() != self._initial_file
                 or self.query_one("#rp-name", Input).value.strip() != self._initial_name)
        if typed:
            confirm_discard(self)
        else:
            self.dismiss(None)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "rp-file":
            self.query_one("#rp-name", Input).focus()
        else:
            self.action_promote()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "rp-ok":
            self.action_promote()
        else:
            self.action_cancel()


def _shared_owner(entries: Sequence[DiaryItem]) -> bool:
    owners = {entry.owner for entry in entries}
    return len(owners) == 1 and None not in owners
