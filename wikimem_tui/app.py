"""The App: layout, bindings, message routing. Nothing else.

It receives a ``Backend`` (store, index, owner, pinned clock, the one
writer) rather than building one, so tests and snapshots run against a
temporary memory with a fixed "today". Widgets get the backend through their
constructor and never talk to each other: they post messages from
``common/messages.py`` (or their own) and this class routes them. Its
collaborators own their state: :class:`~wikimem_tui.common.store_sync.StoreSync`
the catalogue, the index's and the watcher's readiness and the changes not
yet read (slow work in workers, so the first paint never waits for the
store; panes hear of it through typed listener protocols); the item area
what is on screen, with its flows (``item/item_writes.py``,
``item/item_curation.py``) that the item keys (``item/item_keys.py``) start; the key gate
the keys in flight. Actions that cannot run now (read-only, nothing open,
nothing to undo) are disabled through ``check_action`` -- dimmed in the
footer -- from two guard tables (``common/action_guards`` and the item
pane's), and say why when invoked anyway, from a key or the palette.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events, on, work
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from wikimem_tui.calendar.calendar import DiaryCalendar
from wikimem_tui.capture.capture_flow import start_capture
from wikimem_tui.core.capture_run import CaptureOutcome
from wikimem_tui.calendar.diary_append import DiaryAppendScreen
from wikimem_tui.common.commands import ItemCommands
from wikimem_tui.common.config import config_path, load_keymap
from wikimem_tui.common.footer import KeysFooter
from wikimem_tui.common.goto import GoToScreen
from wikimem_tui.common.action_guards import ActionGuards
from wikimem_tui.common.help import show_help
from wikimem_tui.common.key_gate import KeyGate
from wikimem_tui.common.keys import APP_BINDINGS
from wikimem_tui.common.main_screen import MainScreen
from wikimem_tui.common.panes import Panes, show_pane
from wikimem_tui.common.startup import StartUp
from wikimem_tui.common.startup_notices import StartupNotices
from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.common.messages import IndexReady, OpenDiaryDay, OpenItem, OpenRecallFile, StoreChanged
from wikimem_tui.common.safe import clean, clean_line
from wikimem_tui.common.status_line import StatusLine
from wikimem_tui.common.store_sync import GROUPS, StoreSync
from wikimem import foreign_folders
from wikimem_tui.core.backend import Backend, ReadOnlyError, UndoRefused
from wikimem_tui.health.health import HealthPane
from wikimem_tui.item.item_area import ItemArea
from wikimem_tui.item import item_curation, item_writes
from wikimem_tui.item.item_keys import external_editor, item_action
from wikimem_tui.journal.journal_tail import JournalTail
from wikimem_tui.query.embed import EmbedStatus
from wikimem_tui.query import query_routes
from wikimem_tui.query.pin_picker import PinPicker, pin_for
from wikimem_tui.query.query_panel import SHORT, QueryPanel
from wikimem_tui.query.why import WhyNotBox
from wikimem_tui.queue.reconcile import ReconcilePane
from wikimem_tui.tree.topic_tree import NARROW, TopicTree

__all__ = ["WikimemApp"]

#: What the user does: each keeps the index warm-up paused a moment longer (``core/activity``).
USER_EVENTS = (events.Key, events.Paste, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)


class WikimemApp(App[None]):
    """Inspect, edit and follow one wikimem memory directory."""

    CSS_PATH = "app.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]  # narrow: the tree is a sidebar (app.tcss)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT, "-tall")]  # short: panes budget their rows (query_panel)
    TITLE = "wikimem"
    COMMANDS = App.COMMANDS | {ItemCommands}

    BINDINGS = APP_BINDINGS

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
        self.sync = StoreSync(self, backend, status=self.update_status, progress=self.index_progress,
                              keys=self.refresh_keys, force_polling=force_polling)
        """The catalogue, the index's and the watcher's readiness, and the changes not yet read."""
        self.guards = ActionGuards(backend, self.BINDINGS, catalogue=lambda: self.sync.catalogue,
                                   pane=self.mounted_item_area)
        """Which actions can run now and why not (``common/action_guards``): the footer dims, a key says why."""
        self.keymap_config = load_keymap(config)
        self.config_file = config_path(config)
        self._watch = watch
        self._item_area: ItemArea | None = None
        self.last_capture: CaptureOutcome | None = None
        """The last capture's ``CaptureOutcome`` (None before the first; tests wait on it)."""
        self.key_gate = KeyGate(self)
        """Holds the keys that arrive while an earlier key may still move the focus (``common/key_gate``)."""
        self.startup = StartUp(self, lambda: self.sync.start(watch=self._watch))
        """The hidden panes mount after the first frame; the store is read once they are there (``common/startup``)."""
        self.notices = StartupNotices(self)
        """What stays true all session (demo copy, read-only): toasted until the first key (``common/startup_notices``)."""
        self.status_tag: str | None = None
        """A word for the status line beside the memory's name ("demo copy"); set before the app runs."""
        backend.subscribe(self._announce)

    def _announce(self, change: StoreChange) -> None:
        """A write's announcement, from whichever thread wrote (``post_message`` is thread-safe)."""
        self.post_message(StoreChanged(change))

    # -- what the store sync read (tests and benchmarks wait on these) ----------------

    @property
    def catalogue(self) -> Catalogue | None:
        """Names, counts and the link graph; None until the first build finishes."""
        return self.sync.catalogue

    @property
    def index_ready(self) -> bool:
        """True once the background index build finished."""
        return self.sync.index_ready

    @property
    def watcher_ready(self) -> bool:
        """True once the file watcher is armed (writes from then on are seen)."""
        return self.sync.watcher_ready

    @property
    def own_echoes(self) -> int:
        """Watcher batches that held only this app's own writes (and were dropped as such)."""
        return self.sync.own_echoes

    async def on_event(self, event: events.Event) -> None:
        """Keys and pastes from the terminal pass the key gate first: a burst never runs as commands."""
        if isinstance(event, USER_EVENTS):
            self.backend.activity.touch()  # background work that can wait stays paused (core/activity)
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            self.notices.dismiss()  # the user acts: nothing of the start-up is drawn over what the key opens
            if self.startup.hold(event) or not self.key_gate.admit(event):
                return
        await super().on_event(event)

    def on_unmount(self) -> None:
        self.key_gate.close()
        self.sync.close()

    # -- layout -----------------------------------------------------------------

    def get_default_screen(self) -> MainScreen:
        """Our screen: a lost focus goes to the pane on show, not to the first focusable widget."""
        return MainScreen(self.focus_home, id="_default")

    def focus_home(self) -> None:
        """Focus the pane on show (the item view or editor, the query box…) without switching tabs."""
        active = self.query_one("#panes", TabbedContent).active
        if active == "tab-item" and self.item_area.editing:
            self.item_area.editor.focus()
        elif active.startswith("tab-"):
            self.action_pane(active.removeprefix("tab-"))

    def compose(self) -> ComposeResult:
        backend = self.backend
        tree = TopicTree(backend, id="tree")
        area = self._item_area = ItemArea(backend, cursor_blink=self.cursor_blink, id="item-area")
        calendar = DiaryCalendar(backend, id="calendar-pane")
        journal = JournalTail(backend, id="journal-pane")
        query = QueryPanel(backend, id="query-pane")
        health = HealthPane(backend, id="health-pane")
        queue = ReconcilePane(backend, id="queue-pane")
        self.sync.listen(catalogue=[tree, calendar, area], store=[area, calendar, journal, query, health, queue])
        with Horizontal(id="body"):
            yield tree
            with Panes(id="panes", initial="tab-item"):
                with TabPane("Item", id="tab-item"):
                    yield area
                for name, title, pane in (("calendar", "Calendar", calendar), ("journal", "Journal", journal),
                                          ("query", "Query", query), ("health", "Health", health),
                                          ("queue", "Queue", queue)):
                    with TabPane(title, id=f"tab-{name}"):
                        yield self.startup.lazy(pane, self._pane_mounted)  # hidden: after the first frame
        yield StatusLine(self.backend, tag=self.status_tag, id="status")
        yield KeysFooter()

    def on_mount(self) -> None:
        if self.keymap_config.keymap:
            self.set_keymap(self.keymap_config.keymap)
        if self.keymap_config.error:
            self.notify(self.keymap_config.error, severity="warning", markup=False)
        self._no_blink(self)
        if self.backend.read_only:
            self.notices.show("read-only: nothing is written — no edits, no journal line, no lock file, no vector cache",
                              severity="warning")
        for folder, target in foreign_folders(self.backend.root):
            self.notices.show(f"{folder}/ is a symlink to {target}, outside this memory: its files are not shown "
                              "and every write is refused (Health: folder-outside)", severity="error")
        self.query_one("#topic-tree").focus()
        self.update_status()

    def _no_blink(self, root: App[None] | Widget) -> None:
        """Tests and snapshots: the text fields under ``root`` do not blink."""
        if not self.cursor_blink:
            for widget in root.query("Input, TextArea"):
                widget.cursor_blink = False  # type: ignore[attr-defined]

    def _pane_mounted(self, pane: Widget) -> None:
        """A hidden tab's pane is in place (after the first frame, before the store is read)."""
        self._no_blink(pane)
        if isinstance(pane, QueryPanel):
            pane.set_index_building(True, "index building… the query runs when it is ready")

    def update_status(self, note: str | None = None) -> None:
        """The status line: ``note`` (the index build's progress, a failure) or the index's state."""
        for status in self.query(StatusLine):  # none once the app is shutting down
            status.show(note, index_ready=self.index_ready)

    # -- query pane: build progress, why not recalled, embeddings (routing only) --

    def index_progress(self, pct: int, done: int, total: int) -> None:
        """The index build's progress: on the status line, and in the query pane (a query may be waiting)."""
        query_routes.index_progress(self, self.update_status, pct, done, total)

    @work(group="app-flow")
    async def action_why_not(self) -> None:
        """Pin an item in the query pane to see why the query does (not) recall it.

        The tree's item under the cursor, or the item open in the view; from
        anywhere else, pick one by name (the query row under the cursor first).
        """
        panel = self.query_one(QueryPanel)
        tree, area = self.query_one(TopicTree), self.item_area
        node, shown = tree.node_tree.cursor_node, area.view.item
        tree_item = (node.data.file, node.data.name) if node and node.data and node.data.kind == "item" else None
        key = pin_for(self.focused, tree, tree_item, area, (shown.file, shown.name) if shown else None)
        if key is None and self.catalogue is None:
            self.notify("still reading the store…", severity="warning", markup=False)
            return
        if key is None and self.catalogue is not None:
            picker = PinPicker(self.catalogue.all_items(), suggested=panel.suggested_pin(),
                               cursor_blink=self.cursor_blink)
            key = await self.push_screen_wait(picker)
        if key is not None:
            panel.pin(*key)
            self.action_pane("query")

    @on(WhyNotBox.PickRequested)
    def _pick_pin(self) -> None:
        self.action_why_not()

    def action_capture(self, agent: str = "all") -> None:
        """Capture agent sessions (``all``, ``claude-code`` or ``codex``) into the diary, in a worker (issue 16)."""
        start_capture(self, self.backend.root, agent, status=self.update_status, record=self._captured)

    def _captured(self, outcome: CaptureOutcome) -> None:
        self.last_capture = outcome

    def action_embeddings(self) -> None:
        """Embeddings: pause the running sync, or show what embedding costs and offer to start."""
        query_routes.embeddings(self)

    @on(EmbedStatus.Changed)
    def _embed_changed(self, message: EmbedStatus.Changed) -> None:
        query_routes.embed_changed(self, self.update_status, message)

    # -- routing ----------------------------------------------------------------

    @on(OpenItem)
    def _open_item(self, message: OpenItem) -> None:
        self.item_area.open_item(message.file, message.name)

    @on(OpenRecallFile)
    def _open_file(self, message: OpenRecallFile) -> None:
        self.item_area.open_file(message.file)

    @on(OpenDiaryDay)
    def _open_day(self, message: OpenDiaryDay) -> None:
        self.item_area.open_day(message.date, message.entry_key)

    @on(ItemArea.Opened)
    def _opened(self, message: ItemArea.Opened) -> None:
        for tree in self.query(TopicTree):  # none while the app shuts down
            tree.reveal(message.file, message.name)
        self.refresh_keys()

    @on(ItemArea.ShownChanged)
    def _shown_changed(self) -> None:
        self.refresh_keys()  # audit, promote, history… depend on what is shown

    @on(HealthPane.ShowJournal)
    def _show_journal(self) -> None:
        self.action_pane("journal")

    @on(StoreChanged)
    def _store_changed(self, message: StoreChanged) -> None:
        self.sync.changed(message.change)

    @on(IndexReady)
    def _index_ready(self) -> None:
        for panel in self.query(QueryPanel):  # none once the app is shutting down
            panel.set_index_building(False)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """A background job failed: say so and keep running (the files are untouched)."""
        if event.state == WorkerState.ERROR and event.worker.group in (*GROUPS, "undo"):
            self.notify_error(f"{event.worker.group} failed: {event.worker.error}")
            if event.worker.group == "index":
                self.update_status("index: failed (see notification)")

    # -- actions ----------------------------------------------------------------

    async def action_quit(self) -> None:
        """Quit; asks first when the editor holds unsaved edits."""
        self._quit()

    @work(group="app-flow")
    async def _quit(self) -> None:
        """The quit flow is a worker: the question it may ask is awaited."""
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
            self.screen_stack[0].remove_class("-no-tree")
            tree.node_tree.focus()
            return
        widget: Widget = self.item_area.view if pane == "item" else self.query_one(f"#{pane}-pane")
        # The query box for typing; the journal's rows, not its filters (keys then scroll and open).
        first = {"query": "#query-input", "journal": "#journal-view"}.get(pane, "*")
        target = widget if widget.focusable else next((w for w in widget.query(first) if w.focusable), None)
        show_pane(self.query_one("#panes", TabbedContent), f"tab-{pane}", target)  # the focus moves with the tab

    def action_toggle_tree(self) -> None:
        """Hide or show the topic tree."""
        tree = self.query_one(TopicTree)
        tree.display = not tree.display
        self.screen_stack[0].set_class(not tree.display, "-no-tree")  # toasts avoid the editor (app.tcss)

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

    # -- which actions can run now: asked of the guards -------------------------------

    def hides(self, action: str) -> bool:
        """True: the footer leaves ``action`` out, it means nothing for what is shown (``KeysFooter``)."""
        return self.guards.hides(action)

    def disabled_reason(self, action: str) -> str | None:
        """Why ``action`` cannot run right now (None: it can); the palette lists it beside the command."""
        return self.guards.disabled_reason(action)

    def refresh_keys(self) -> None:
        """Re-ask ``check_action`` for the footer (not while the app is shutting down)."""
        if self.screen_stack:
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Save/cancel exist only while editing; undo leaves text fields their own; others dim with a reason."""
        return self.guards.check_action(action, editing=self.editing, focused=self.focused)

    async def run_action(self, action: Any, default_namespace: Any = None, namespaces: Any = None) -> bool:
        """Run ``action``; an app action refused by ``check_action`` says why (keys and palette alike)."""
        handled = await super().run_action(action, default_namespace, namespaces)
        if not handled and isinstance(action, str) and default_namespace in (None, self):
            reason = self.disabled_reason(action.removeprefix("app.").partition("(")[0])
            if reason:
                self.notify(reason, severity="warning", markup=False)
        return handled

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every toast: hidden characters made visible, never markup (names in messages are untrusted)."""
        super().notify(clean(message), title=clean_line(title), severity=severity, timeout=timeout, markup=False)

    def notify_error(self, message: str) -> None:
        """An error toast with literal text."""
        self.notify(message, severity="error", markup=False)

    # -- the item area: found once, and the keys that act on what it shows ----------

    def mounted_item_area(self) -> ItemArea | None:
        """The item area, None before it is composed or once the app shuts down.

        Kept, not looked up: ``check_action`` asks for it for every binding
        each time the footer refreshes (dozens of times while the app
        starts), and a DOM query per ask was a quarter of the app's start-up CPU.
        """
        area = self._item_area
        return area if area is not None and area.is_attached else None

    @property
    def item_area(self) -> ItemArea:
        """The item view / editor area."""
        return self.mounted_item_area() or self.query_one(ItemArea)  # the query raises NoMatches

    @property
    def editing(self) -> bool:
        """True while the editor (not the item view) is shown."""
        return self.item_area.editing

    # Bound on the App so they act wherever the focus is; each hands over to the item area (``item/item_keys``).
    action_edit = item_action(ItemArea.edit, "Edit the open item.")
    action_save = item_action(lambda area: area.editor.save(), "Save the editor's draft.")
    action_cancel = item_action(ItemArea.cancel_edit, "Leave the editor (asks when there are unsaved edits).")
    action_new_item = item_action(item_writes.new_item, "Create a new item (asks for file and name).")
    action_new_file = item_action(lambda area: item_writes.new_item(area, new_file=True),
                                  "A new RecallFile, first item.")
    action_rename = item_action(item_writes.rename, "Rename the open item.")
    action_move = item_action(item_writes.move, "Move the open item to another RecallFile.")
    action_delete = item_action(item_writes.delete, "Delete the open item (asks, listing what links to it).")
    action_promote = item_action(item_writes.promote, "Promote entries of the diary day shown into a wiki item.")
    action_audit = item_action(item_curation.audit,
                               "What the item (or diary day) shown rests on, and what rests on it.")
    action_retract = item_action(item_curation.retract,
                                 "Retract the item or diary entry shown: mark or delete dependents.")
    action_history = item_action(item_curation.history, "Past versions of the item shown, from git: diff and restore.")
    action_forward = item_action(lambda area: area.go(1), "Forward again after going back.")
    action_copy_link = item_action(lambda area: item_writes.copy(area, "link"), "Copy the open item as [[file:name]].")
    action_copy_block = item_action(lambda area: item_writes.copy(area, "block"), "Copy the open item's markdown block.")
    action_external_editor = item_action(external_editor, "Edit the open item in $VISUAL/$EDITOR (suspends the app).")

    async def action_back(self) -> None:
        """Back to the item opened before (Textual's own ``back`` is this app's history, not a screen pop)."""
        self.item_area.go(-1)

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
