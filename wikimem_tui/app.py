"""The App: layout, bindings, message routing, background workers. Nothing else.

It receives a ``Backend`` (store, index, owner, pinned clock) rather than
building one, so tests and snapshots run against a temporary memory with a
fixed "today". Widgets never talk to each other: they post messages from
``messages.py`` and this class routes them. Slow work (catalogue, index,
file watching) runs in workers so the first paint never waits for the store.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState, get_current_worker

from wikimem_tui import flows
from wikimem_tui.commands import ItemCommands
from wikimem_tui.config import config_path, load_keymap
from wikimem_tui.context import Backend, Catalogue
from wikimem_tui.messages import IndexReady, OpenDiaryDay, OpenItem, OpenRecallFile, StoreChange, StoreChanged
from wikimem_tui.safe import clean, clean_line
from wikimem_tui.screens.help import show_help
from wikimem_tui.widgets.calendar import DiaryCalendar
from wikimem_tui.widgets.editor import ItemEditor
from wikimem_tui.widgets.footer import KeysFooter
from wikimem_tui.widgets.health import HealthPane
from wikimem_tui.widgets.item_view import ItemView
from wikimem_tui.widgets.journal_tail import JournalTail
from wikimem_tui.widgets.query_panel import QueryPanel
from wikimem_tui.widgets.topic_tree import NARROW, TopicTree

__all__ = ["WikimemApp", "WRITE_ACTIONS"]

#: Actions that write; hidden from the footer and refused with a notice when read-only.
WRITE_ACTIONS = {"edit", "save", "new_item", "new_file", "rename", "move", "delete", "append_diary", "promote",
                 "external_editor"}

#: (pane name, tab title, widget class) of the panes beside the item pane.
PANES: list[tuple[str, str, type[Widget]]] = [
    ("calendar", "Calendar", DiaryCalendar),
    ("journal", "Journal", JournalTail),
    ("query", "Query", QueryPanel),
    ("health", "Health", HealthPane),
]


class WikimemApp(App[None]):
    """Inspect, edit and follow one wikimem memory directory."""

    CSS_PATH = "app.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]  # narrow: the tree is a sidebar (app.tcss)
    TITLE = "wikimem"
    COMMANDS = App.COMMANDS | {ItemCommands}

    BINDINGS = [
        # f1 has priority so it also works on modal screens (conflict, dialogs); ? must still type into boxes.
        Binding("f1", "help", "Help", id="help", key_display="F1", priority=True),
        Binding("question_mark", "help", "Help", id="help", show=False),
        Binding("slash", "pane('query')", "Query", id="focus-query", key_display="/"),
        Binding("t", "pane('tree')", "Tree", id="pane-tree"),
        Binding("c", "pane('calendar')", "Calendar", id="pane-calendar", show=False),
        Binding("j", "pane('journal')", "Journal", id="pane-journal", show=False),
        Binding("h", "pane('health')", "Health", id="pane-health", show=False),
        Binding("e", "edit", "Edit", id="edit"),
        Binding("ctrl+s", "save", "Save", id="save"),
        Binding("escape", "cancel", "Cancel", id="cancel", show=False),
        Binding("n", "new_item", "New", id="new-item"),
        Binding("N", "new_file", "New file", id="new-file", show=False),
        Binding("r", "rename", "Rename", id="rename", show=False),
        Binding("m", "move", "Move", id="move", show=False),
        Binding("d", "delete", "Delete", id="delete"),
        Binding("a", "append_diary", "Append diary", id="append-diary", show=False),
        Binding("p", "promote", "Promote", id="promote", show=False),
        Binding("g", "goto", "Go to", id="goto"),
        Binding("f4", "external_editor", "$EDITOR", id="external-editor", show=False),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    def __init__(
        self,
        backend: Backend,
        *,
        config: Path | str | None = None,
        watch: bool = True,
        cursor_blink: bool = True,
        force_polling: bool | None = None,
    ) -> None:
        super().__init__()
        self.backend = backend
        """Store, index, owner, clock: everything the app reads and writes."""
        self.animation_level = "none"
        self.cursor_blink = cursor_blink
        """False in tests and snapshots: inputs and text areas do not blink."""
        self.catalogue: Catalogue | None = None
        """Names, counts and the link graph; None until the first build finishes."""
        self.index_ready = False
        """True once the background index build finished."""
        self.keymap_config = load_keymap(config)
        self.config_file = config_path(config)
        self._watch = watch
        self._force_polling = force_polling
        self._pending: StoreChange = StoreChange(external=False)
        self._index_stale = False
        if backend.read_only:
            for key, bindings in list(self._bindings.key_to_bindings.items()):
                self._bindings.key_to_bindings[key] = [
                    dataclasses.replace(b, show=False) if b.action in WRITE_ACTIONS else b for b in bindings
                ]

    # -- layout -----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield TopicTree(id="tree")
            with TabbedContent(id="panes", initial="tab-item"):
                with TabPane("Item", id="tab-item"):
                    with ContentSwitcher(initial="item-view", id="item-switcher"):
                        yield ItemView(id="item-view")
                        yield ItemEditor(cursor_blink=self.cursor_blink, id="item-editor")
                for pane, title, widget in PANES:
                    with TabPane(title, id=f"tab-{pane}"):
                        yield widget(id=f"{pane}-pane")
        yield Static(id="status")
        yield KeysFooter()

    def on_mount(self) -> None:
        if self.keymap_config.keymap:
            self.set_keymap(self.keymap_config.keymap)
        if self.keymap_config.error:
            self.notify(self.keymap_config.error, severity="warning", markup=False)
        if not self.cursor_blink:
            for widget in self.query("Input, TextArea"):
                widget.cursor_blink = False  # type: ignore[attr-defined]
        self.query_one("#topic-tree").focus()
        self.update_status()
        self.build_catalogue()
        self.build_index()
        if self._watch:
            self.watch_files()

    def update_status(self, note: str | None = None) -> None:
        """One line: memory dir, index state, owner, read-only, embeddings."""
        b = self.backend
        text = Text()
        text.append(" wikimem ", style="reverse")
        text.append(f" {clean_line(b.root.name)}  ")
        text.append(note or ("index ready" if self.index_ready else "index: building…"), style="bold")
        text.append(f"  owner {clean_line(b.owner)}", style="dim")
        if b.embed_label:
            text.append(f"  embed {clean_line(b.embed_label)}", style="dim")
        if b.read_only:
            text.append("  READ-ONLY", style="bold red")
        self.query_one("#status", Static).update(text)

    # -- workers ----------------------------------------------------------------

    @work(thread=True, exclusive=True, group="catalogue", exit_on_error=False)
    def build_catalogue(self) -> None:
        """(Re)build the catalogue off the UI thread and hand it to the tree."""
        worker = get_current_worker()
        pending, current = self._pending, self.catalogue
        store = self.backend.store
        if current is None:
            catalogue = Catalogue.build(store)
        else:
            catalogue = current.updated(store, pending.wiki_files, pending.diary_dates)
        if not worker.is_cancelled:
            self.call_from_thread(self._catalogue_built, catalogue, pending)

    def _catalogue_built(self, catalogue: Catalogue, done: StoreChange) -> None:
        self.catalogue = catalogue
        p = self._pending
        self._pending = StoreChange(p.wiki_files - done.wiki_files, p.diary_dates - done.diary_dates, external=False)
        self.query_one(TopicTree).set_catalogue(catalogue)
        self.query_one(DiaryCalendar).set_catalogue(catalogue)
        flows.reshow(self)

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def build_index(self, files: frozenset[str] | None = None) -> None:
        """Build (or refresh) the search index with progress on the status line."""
        index = self.backend.index
        shown = [-1]

        def progress(done: int, total: int) -> None:
            pct = 100 * done // total if total else 100
            if pct != shown[0]:  # one UI update per percent, not per file
                shown[0] = pct
                self.call_from_thread(self.update_status, f"index: building {pct}% ({done}/{total} files)")

        if files is not None:
            index.refresh_files(sorted(files))
            self.call_from_thread(self._index_built)
            return
        index.build(progress=progress)
        self.call_from_thread(self._index_built)
        worker = get_current_worker()  # pack common terms now, not in the first queries needing them
        index.warm(should_stop=lambda: worker.is_cancelled)

    def _index_built(self) -> None:
        first = not self.index_ready
        self.index_ready = True
        self.update_status()
        self.post_message(IndexReady())
        if first and self._index_stale:
            self._index_stale = False
            self.build_index(frozenset(self.backend.store.files()))

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_files(self) -> None:
        """Follow edits by other processes under the memory directory."""
        from wikimem_tui.watch import watch_store

        def changed(change: StoreChange) -> None:
            self.post_message(StoreChanged(change))

        try:
            await watch_store(self.backend.root, changed, own=self.backend.own_writes, force_polling=self._force_polling)
        except Exception as exc:  # inotify limits, vanished directory…
            self.notify(f"live updates off: {exc}", severity="warning", markup=False)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """A background job failed: say so and keep running (the files are untouched)."""
        if event.state == WorkerState.ERROR and event.worker.group in ("catalogue", "index", "watch"):
            self.notify_error(f"{event.worker.group} failed: {event.worker.error}")
            if event.worker.group == "index":
                self.update_status("index: failed (see notification)")

    # -- routing ----------------------------------------------------------------

    @on(OpenItem)
    def _open_item(self, message: OpenItem) -> None:
        flows.open_item(self, message.file, message.name)

    @on(OpenRecallFile)
    def _open_file(self, message: OpenRecallFile) -> None:
        flows.open_file(self, message.file)

    @on(OpenDiaryDay)
    def _open_day(self, message: OpenDiaryDay) -> None:
        flows.open_day(self, message.date, message.time)

    @on(StoreChanged)
    def _store_changed(self, message: StoreChanged) -> None:
        change = message.change
        if not change.external:
            self.backend.note_write(change.wiki_files, change.diary_dates)
        p = self._pending
        self._pending = StoreChange(p.wiki_files | change.wiki_files, p.diary_dates | change.diary_dates, external=False)
        if change.wiki_files or change.diary_dates or self.catalogue is None:
            self.build_catalogue()
        if change.external:
            if change.wiki_files or change.diary_dates or change.journal:  # not for derived caches
                self.notify(f"changed on disk: {change.describe()}", title="live", markup=False)
            if change.wiki_files and self.index_ready:
                self.build_index(change.wiki_files)
            elif change.wiki_files:
                self._index_stale = True
            flows.check_conflict(self, change)
        for pane, *_ in PANES:  # every side pane has refresh_from_store
            self.query_one(f"#{pane}-pane").refresh_from_store(change)  # type: ignore[attr-defined]

    @on(ItemEditor.Saved)
    def _saved(self, message: ItemEditor.Saved) -> None:
        flows.saved(self, message.item)

    @on(ItemEditor.Conflict)
    def _conflict(self, message: ItemEditor.Conflict) -> None:
        flows.show_conflict(self, message.file, message.item_name, message.mine, message.disk)

    @on(ItemEditor.Closed)
    def _closed(self) -> None:
        self.action_cancel()

    # -- actions ----------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Save only while editing; write actions stay runnable when read-only (they explain the refusal)."""
        if action == "save":
            return self.editing
        return True

    @property
    def editing(self) -> bool:
        """True while the editor (not the item view) is shown."""
        return self.query_one("#item-switcher", ContentSwitcher).current == "item-editor"

    def _refuse_write(self) -> bool:
        if self.backend.read_only:
            self.notify("read-only: nothing written", severity="warning", markup=False)
        return self.backend.read_only

    async def action_quit(self) -> None:
        """Quit; asks first when the editor holds unsaved edits."""
        if self.editing and self.query_one(ItemEditor).dirty:
            flows.confirm_quit(self)
        else:
            self.exit()

    def action_help(self) -> None:
        """Show the keys of where the focus is first, then the global ones."""
        show_help(self, str(self.config_file))

    def action_pane(self, pane: str) -> None:
        """Show and focus a pane: tree, item, calendar, journal, query, health."""
        flows.show_pane(self, pane)

    def action_toggle_tree(self) -> None:
        """Hide or show the topic tree."""
        tree = self.query_one(TopicTree)
        tree.display = not tree.display

    def action_edit(self) -> None:
        """Edit the open item."""
        if not self._refuse_write():
            flows.edit(self)

    def action_save(self) -> None:
        """Save the editor's draft."""
        if not self._refuse_write() and self.editing:
            self.query_one(ItemEditor).save()

    def action_cancel(self) -> None:
        """Leave the editor (asks when there are unsaved edits)."""
        flows.cancel_edit(self)

    def action_new_item(self) -> None:
        """Create a new item (asks for file and name)."""
        if not self._refuse_write():
            flows.new_item(self)

    def action_new_file(self) -> None:
        """Create a new RecallFile with its first item."""
        if not self._refuse_write():
            flows.new_item(self, new_file=True)

    def action_rename(self) -> None:
        """Rename the open item."""
        if not self._refuse_write():
            flows.rename(self)

    def action_move(self) -> None:
        """Move the open item to another RecallFile."""
        if not self._refuse_write():
            flows.move(self)

    def action_delete(self) -> None:
        """Delete the open item after confirmation."""
        if not self._refuse_write():
            flows.delete(self)

    def action_append_diary(self) -> None:
        """Append a diary entry (append-only)."""
        if not self._refuse_write():
            flows.append_diary(self)

    def action_promote(self) -> None:
        """Promote entries of the diary day shown into a wiki item."""
        if not self._refuse_write():
            flows.promote(self)

    def action_goto(self) -> None:
        """Fuzzy-find an item and open it."""
        flows.goto(self)

    def action_external_editor(self) -> None:
        """Edit the open item in $EDITOR (suspends the app)."""
        if not self._refuse_write():
            flows.external_editor(self)

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every toast: control characters made visible (names in messages are untrusted)."""
        super().notify(clean(message), title=clean_line(title), severity=severity, timeout=timeout, markup=markup)

    def notify_error(self, message: str) -> None:
        """An error toast with literal text."""
        self.notify(message, severity="error", markup=False)
