"""The App: layout, bindings, message routing, background workers. Nothing else.

It receives a ``Backend`` (store, index, owner, pinned clock, the one
writer) rather than building one, so tests and snapshots run against a
temporary memory with a fixed "today". Widgets get the backend through their
constructor and never talk to each other: they post messages from
``messages.py`` (or their own) and this class routes them. What happens to
the item in front of the user lives in ``ItemArea``; slow work (catalogue,
index, warm-up, file watching, undo) runs in workers so the first paint never
waits for the store. Actions that cannot run now (read-only, nothing open,
nothing to undo) are disabled through ``check_action`` — dimmed in the
footer — and say why when invoked anyway, from a key or the palette.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input, Static, TabbedContent, TabPane, TextArea
from textual.worker import Worker, WorkerState, get_current_worker

from wikimem_tui.backend import Backend, ReadOnlyError, UndoRefused
from wikimem_tui.catalogue import Catalogue
from wikimem_tui.commands import ItemCommands
from wikimem_tui.config import config_path, load_keymap
from wikimem_tui.live_notice import LiveNotices
from wikimem_tui.messages import IndexReady, OpenDiaryDay, OpenItem, OpenRecallFile, StoreChange, StoreChanged
from wikimem_tui.safe import clean, clean_line
from wikimem_tui.screens.diary_append import DiaryAppendScreen
from wikimem_tui.screens.goto import GoToScreen
from wikimem_tui.screens.help import show_help
from wikimem_tui.widgets.calendar import DiaryCalendar
from wikimem_tui.widgets.footer import KeysFooter
from wikimem_tui.widgets.health import HealthPane
from wikimem_tui.widgets.item_area import ItemArea
from wikimem_tui.widgets.journal_tail import JournalTail
from wikimem_tui.widgets.query_panel import QueryPanel
from wikimem_tui.widgets.reconcile import ReconcilePane
from wikimem_tui.widgets.topic_tree import NARROW, TopicTree

__all__ = ["WikimemApp", "WRITE_ACTIONS"]

#: Actions that write: disabled (with the reason) when read-only.
WRITE_ACTIONS = {"edit", "save", "new_item", "new_file", "rename", "move", "delete", "append_diary", "promote",
                 "external_editor", "undo"}
#: Actions on the item shown in the view.
ITEM_ACTIONS = {"edit", "rename", "move", "delete", "external_editor", "copy_link", "copy_block"}

#: (pane name, tab title, widget class) of the panes beside the item pane.
PANES: list[tuple[str, str, type[Widget]]] = [
    ("calendar", "Calendar", DiaryCalendar),
    ("journal", "Journal", JournalTail),
    ("query", "Query", QueryPanel),
    ("health", "Health", HealthPane),
    ("queue", "Queue", ReconcilePane),
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
        Binding("R", "pane('queue')", "Reconcile queue", id="pane-queue", show=False),
        Binding("e", "edit", "Edit", id="edit"),
        Binding("ctrl+s", "save", "Save", id="save"),
        Binding("escape", "cancel", "Cancel", id="cancel", show=False),
        Binding("n", "new_item", "New", id="new-item"),
        Binding("N", "new_file", "New file", id="new-file", show=False),
        Binding("r", "rename", "Rename", id="rename", show=False),
        Binding("m", "move", "Move", id="move", show=False),
        Binding("d", "delete", "Delete", id="delete"),
        Binding("ctrl+z", "undo", "Undo", id="undo", show=False),  # toasts after each write say "ctrl+z undoes it"
        Binding("a", "append_diary", "Append diary", id="append-diary", show=False),
        Binding("p", "promote", "Promote", id="promote", show=False),
        Binding("g", "goto", "Go to", id="goto"),
        Binding("alt+left", "back", "Back", id="back", show=False),
        Binding("alt+right", "forward", "Forward", id="forward", show=False),
        Binding("y", "copy_link", "Copy [[link]]", id="copy-link", show=False),
        Binding("Y", "copy_block", "Copy markdown", id="copy-block", show=False),
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
        """Store, index, owner, clock, and the one writer every write goes through."""
        self.animation_level = "none"
        self.cursor_blink = cursor_blink
        """False in tests and snapshots: inputs and text areas do not blink."""
        self.catalogue: Catalogue | None = None
        """Names, counts and the link graph; None until the first build finishes."""
        self.index_ready = False
        """True once the background index build finished."""
        self.watcher_ready = False
        """True once the file watcher is armed (writes from then on are seen)."""
        self.own_echoes = 0
        """Watcher batches that held only this app's own writes (and were dropped as such)."""
        self.keymap_config = load_keymap(config)
        self.config_file = config_path(config)
        self._watch = watch
        self._live: LiveNotices | None = None
        self._force_polling = force_polling
        self._pending: StoreChange = StoreChange(external=False)
        self._index_stale = False
        backend.subscribe(lambda change: self.post_message(StoreChanged(change)))  # from any thread

    # -- layout -----------------------------------------------------------------

    @property
    def _live_notices(self) -> LiveNotices:
        """Coalesces "changed on disk" toasts (made on first use: it needs the running app's timers)."""
        if self._live is None:
            self._live = LiveNotices(lambda text: self.notify(text, title="live", markup=False), self.set_timer)
        return self._live

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield TopicTree(self.backend, id="tree")
            with TabbedContent(id="panes", initial="tab-item"):
                with TabPane("Item", id="tab-item"):
                    yield ItemArea(self.backend, cursor_blink=self.cursor_blink, id="item-area")
                for pane, title, widget in PANES:
                    with TabPane(title, id=f"tab-{pane}"):
                        yield widget(self.backend, id=f"{pane}-pane")  # type: ignore[call-arg]
        yield Static(id="status")
        yield KeysFooter()

    @property
    def item_area(self) -> ItemArea:
        """The item view / editor area."""
        return self.query_one(ItemArea)

    @property
    def editing(self) -> bool:
        """True while the editor (not the item view) is shown."""
        return self.item_area.editing

    def on_mount(self) -> None:
        if self.keymap_config.keymap:
            self.set_keymap(self.keymap_config.keymap)
        if self.keymap_config.error:
            self.notify(self.keymap_config.error, severity="warning", markup=False)
        if not self.cursor_blink:
            for widget in self.query("Input, TextArea"):
                widget.cursor_blink = False  # type: ignore[attr-defined]
        if self.backend.read_only:
            self.notify("read-only: nothing is written — no edits, no journal line, no lock file, no vector cache",
                        severity="warning", markup=False)
        self.query_one("#topic-tree").focus()
        self.update_status()
        self.query_one(QueryPanel).set_index_building(True, "index building… the query runs when it is ready")
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
        for status in self.query("#status").results(Static):  # none once the app is shutting down
            status.update(text)

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
        if not self.query(ItemArea):  # the app is shutting down: nothing left to show it in
            return
        p = self._pending
        self._pending = StoreChange(p.wiki_files - done.wiki_files, p.diary_dates - done.diary_dates, external=False)
        self.query_one(TopicTree).set_catalogue(catalogue)
        self.query_one(DiaryCalendar).set_catalogue(catalogue)
        self.item_area.set_catalogue(catalogue)
        self._refresh_keys()

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def build_index(self, files: frozenset[str] | None = None) -> None:
        """Build (or refresh ``files`` of) the search index, with progress on the status line."""
        index = self.backend.index
        shown = [-1]

        def progress(done: int, total: int) -> None:
            pct = 100 * done // total if total else 100
            if pct != shown[0]:  # one UI update per percent, not per file
                shown[0] = pct
                self.call_from_thread(self.update_status, f"index: building {pct}% ({done}/{total} files)")

        if files is not None:
            index.refresh_files(sorted(files))
        else:
            index.build(progress=progress)
        self.call_from_thread(self._index_built, files is None)

    @work(thread=True, exclusive=True, group="warm", exit_on_error=False)
    def warm_index(self) -> None:
        """Pack common terms now, not in the first queries needing them.

        Its own group: a refresh after an external change (group ``index``)
        does not cancel it, and queries never wait for it (the index takes
        its lock per chunk only).
        """
        worker = get_current_worker()
        self.backend.index.warm(should_stop=lambda: worker.is_cancelled)

    def _index_built(self, full: bool) -> None:
        first = not self.index_ready
        self.index_ready = True
        self.update_status()
        self.post_message(IndexReady())
        if full:
            self.warm_index()
        if first and self._index_stale:
            self._index_stale = False
            self.build_index(frozenset(self.backend.store.files()))

    @on(IndexReady)
    def _index_ready(self) -> None:
        for panel in self.query(QueryPanel):  # none once the app is shutting down
            panel.set_index_building(False)

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_files(self) -> None:
        """Follow edits by other processes under the memory directory."""
        from wikimem_tui.watch import watch_store

        def changed(change: StoreChange) -> None:
            self.post_message(StoreChanged(change))

        def ready() -> None:
            self.watcher_ready = True

        def own() -> None:
            self.own_echoes += 1

        try:
            await watch_store(self.backend.root, changed, own=self.backend.own_writes,
                              force_polling=self._force_polling, on_ready=ready, on_own=own)
        except Exception as exc:  # inotify limits, vanished directory…
            self.notify(f"live updates off: {exc}", severity="warning", markup=False)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """A background job failed: say so and keep running (the files are untouched)."""
        if event.state == WorkerState.ERROR and event.worker.group in ("catalogue", "index", "warm", "watch", "undo"):
            self.notify_error(f"{event.worker.group} failed: {event.worker.error}")
            if event.worker.group == "index":
                self.update_status("index: failed (see notification)")

    # -- routing ----------------------------------------------------------------

    @on(OpenItem)
    def _open_item(self, message: OpenItem) -> None:
        self.item_area.open_item(message.file, message.name)

    @on(OpenRecallFile)
    def _open_file(self, message: OpenRecallFile) -> None:
        self.item_area.open_file(message.file)

    @on(OpenDiaryDay)
    def _open_day(self, message: OpenDiaryDay) -> None:
        self.item_area.open_day(message.date, message.time)

    @on(ItemArea.Opened)
    def _opened(self, message: ItemArea.Opened) -> None:
        for tree in self.query(TopicTree):  # none while the app shuts down
            tree.reveal(message.file, message.name)
        self._refresh_keys()

    @on(HealthPane.ShowJournal)
    def _show_journal(self) -> None:
        self.action_pane("journal")

    @on(StoreChanged)
    def _store_changed(self, message: StoreChanged) -> None:
        change = message.change  # own writes were recorded by the backend, under the store lock
        p = self._pending
        self._pending = StoreChange(p.wiki_files | change.wiki_files, p.diary_dates | change.diary_dates, external=False)
        if change.wiki_files or change.diary_dates or self.catalogue is None:
            self.build_catalogue()
        if change.external:
            if change.wiki_files or change.diary_dates or change.journal:  # not for derived caches
                self._live_notices.add(change)  # one toast per burst, not per write
            if change.wiki_files and self.index_ready:
                self.build_index(change.wiki_files)
            elif change.wiki_files:
                self._index_stale = True
        if not self.query(ItemArea):  # the app is shutting down
            return
        self.item_area.store_changed(change)
        for pane, *_ in PANES:  # every side pane has refresh_from_store
            self.query_one(f"#{pane}-pane").refresh_from_store(change)  # type: ignore[attr-defined]
        self._refresh_keys()

    # -- what can run now -------------------------------------------------------------

    def _refresh_keys(self) -> None:
        """Re-ask ``check_action`` for the footer (not while the app is shutting down)."""
        if self.screen_stack:
            self.refresh_bindings()

    def disabled_reason(self, action: str) -> str | None:
        """Why ``action`` cannot run right now (None: it can); shown when it is invoked anyway."""
        areas = self.query(ItemArea)
        if not areas:  # not composed yet, or shutting down
            return None
        area = areas.first()
        if action in WRITE_ACTIONS and self.backend.read_only:
            what = next((b.description for b in self.BINDINGS if isinstance(b, Binding) and b.action == action), action)
            return f"read-only (--read-only): {what} would write to the memory; nothing written"
        if action in ITEM_ACTIONS - {"edit", "external_editor"} and area.editing:
            return "finish editing first (ctrl+s saves, esc cancels)"
        if action in ITEM_ACTIONS and not area.editing and area.view.item is None:
            return "open an item first (t tree, g go to)"
        if action == "promote" and area.shown_day is None:
            return "open a diary day first (tree: diary, or the calendar)"
        if action == "undo" and self.backend.last_write is None:
            return "nothing to undo: the app has written nothing this session"
        if action == "back" and not area.can_go_back:
            return "nothing to go back to"
        if action == "forward" and not area.can_go_forward:
            return "nothing to go forward to"
        if action == "goto" and self.catalogue is None:
            return "still reading the store…"
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Save/cancel exist only while editing; undo leaves text fields their own; others dim with a reason."""
        if action in ("save", "cancel") and not self.editing:
            return False
        if action == "undo" and isinstance(self.focused, (Input, TextArea)):
            return False  # the text field's own undo
        return None if self.disabled_reason(action) else True

    async def run_action(self, action: Any, default_namespace: Any = None, namespaces: Any = None) -> bool:
        """Run ``action``; an app action refused by ``check_action`` says why (keys and palette alike)."""
        handled = await super().run_action(action, default_namespace, namespaces)
        if not handled and isinstance(action, str) and default_namespace in (None, self):
            reason = self.disabled_reason(action.removeprefix("app.").partition("(")[0])
            if reason:
                self.notify(reason, severity="warning", markup=False)
        return handled

    # -- actions ----------------------------------------------------------------

    @work(group="app-flow")
    async def action_quit(self) -> None:
        """Quit; asks first when the editor holds unsaved edits."""
        if self.item_area.dirty and not await self.item_area.confirm_quit():
            return
        self.exit()

    def action_help(self) -> None:
        """Show the keys of where the focus is first, then the global ones."""
        show_help(self, str(self.config_file))

    def action_pane(self, pane: str) -> None:
        """Show and focus a pane: tree, item, calendar, journal, query, health."""
        if pane == "tree":
            tree = self.query_one(TopicTree)
            tree.display = True
            tree.tree.focus()
            return
        self.query_one("#panes", TabbedContent).active = f"tab-{pane}"
        widget: Widget = self.item_area.view if pane == "item" else self.query_one(f"#{pane}-pane")
        # The query box for typing; the journal's rows, not its filters (keys then scroll and open).
        first = {"query": "#query-input", "journal": "#journal-view"}.get(pane, "*")
        targets = [w for w in widget.query(first) if w.focusable]
        if widget.focusable:
            widget.focus()
        elif targets:
            targets[0].focus()

    def action_toggle_tree(self) -> None:
        """Hide or show the topic tree."""
        tree = self.query_one(TopicTree)
        tree.display = not tree.display

    def action_edit(self) -> None:
        """Edit the open item."""
        self.item_area.edit()

    def action_save(self) -> None:
        """Save the editor's draft."""
        self.item_area.editor.save()

    def action_cancel(self) -> None:
        """Leave the editor (asks when there are unsaved edits)."""
        self.item_area.cancel_edit()

    def action_new_item(self) -> None:
        """Create a new item (asks for file and name)."""
        self.item_area.new_item()

    def action_new_file(self) -> None:
        """Create a new RecallFile with its first item."""
        self.item_area.new_item(new_file=True)

    def action_rename(self) -> None:
        """Rename the open item."""
        self.item_area.rename()

    def action_move(self) -> None:
        """Move the open item to another RecallFile."""
        self.item_area.move()

    def action_delete(self) -> None:
        """Delete the open item after confirmation (lists the items linking to it)."""
        self.item_area.delete()

    def action_promote(self) -> None:
        """Promote entries of the diary day shown into a wiki item."""
        self.item_area.promote()

    def action_back(self) -> None:
        """Back to the item opened before."""
        self.item_area.go(-1)

    def action_forward(self) -> None:
        """Forward again after going back."""
        self.item_area.go(1)

    def action_copy_link(self) -> None:
        """Copy the open item as ``[[file:name]]``."""
        self.item_area.copy("link")

    def action_copy_block(self) -> None:
        """Copy the open item as its markdown block."""
        self.item_area.copy("block")

    def action_external_editor(self) -> None:
        """Edit the open item in $VISUAL/$EDITOR (suspends the app)."""
        self.item_area.external_editor(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")

    @work(group="app-flow")
    async def action_append_diary(self) -> None:
        """Append a diary entry (append-only) to the day in view (calendar or item view), else today."""
        active = self.query_one("#panes", TabbedContent).active
        date: str | None = None
        if active == "tab-calendar":
            date = self.query_one(DiaryCalendar).selected_date
        elif active == "tab-item" and self.item_area.shown_day is not None:
            date = self.item_area.shown_day[0]
        entry = await self.push_screen_wait(DiaryAppendScreen(self.backend, date, cursor_blink=self.cursor_blink))
        if entry is not None:
            self.notify(f"appended diary {entry.date} {entry.time} (the diary is append-only)", markup=False)

    @work(group="app-flow")
    async def action_goto(self) -> None:
        """Fuzzy-find an item and open it."""
        if self.catalogue is None:
            return
        key = await self.push_screen_wait(GoToScreen(self.catalogue.all_items(), cursor_blink=self.cursor_blink))
        if key is not None:
            self.item_area.open_item(*key)

    @work(thread=True, exclusive=True, group="undo", exit_on_error=False)
    def action_undo(self) -> None:
        """Undo the app's last write (checked: refused when the item changed on disk since)."""
        try:
            write = self.backend.undo()
        except (UndoRefused, ReadOnlyError) as exc:
            self.call_from_thread(self.notify, str(exc), severity="warning", markup=False)
            return
        restored = next((c.before for c in write.changes if c.before is not None), None)
        self.call_from_thread(self.notify, f"undid the {write.what} (journaled)", markup=False)
        if restored is not None:
            self.call_from_thread(self.item_area.open_item, restored.file, restored.name)

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every toast: hidden characters made visible, never markup (names in messages are untrusted)."""
        super().notify(clean(message), title=clean_line(title), severity=severity, timeout=timeout, markup=False)

    def notify_error(self, message: str) -> None:
        """An error toast with literal text."""
        self.notify(message, severity="error", markup=False)
