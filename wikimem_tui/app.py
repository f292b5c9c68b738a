"""The App: layout, bindings, message routing. Nothing else.

It receives a ``Backend`` (store, index, owner, pinned clock, the one
writer) rather than building one, so tests and snapshots run against a
temporary memory with a fixed "today". Widgets get the backend through their
constructor and never talk to each other: they post messages from
``messages.py`` (or their own) and this class routes them. What happens to
the item in front of the user lives in ``ItemArea`` (the keys acting on it
in ``app_item_actions.py``); slow work (catalogue,
index, warm-up, file watching) runs in workers (``app_workers.py``) so the
first paint never waits for the store. Actions that cannot run now
(read-only, nothing open, nothing to undo) are disabled through
``check_action`` (``app_guards.py``) — dimmed in the footer — and say why
when invoked anyway, from a key or the palette.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from wikimem_tui.app_guards import ITEM_ACTIONS, WRITE_ACTIONS, AppGuards
from wikimem_tui.app_item_actions import AppItemActions
from wikimem_tui.app_workers import AppWorkers
from wikimem_tui.core.backend import Backend
from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.common.commands import ItemCommands
from wikimem_tui.common.config import config_path, load_keymap
from wikimem_tui.core.live_notice import LiveNotices
from wikimem_tui.common.main_screen import MainScreen
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.common.messages import OpenDiaryDay, OpenItem, OpenRecallFile, StoreChanged
from wikimem_tui.common.safe import clean, clean_line
from wikimem_tui.calendar.diary_append import DiaryAppendScreen
from wikimem_tui.common.goto import GoToScreen
from wikimem_tui.common.help import show_help
from wikimem_tui.query.pin_picker import PinPicker
from wikimem_tui.calendar.calendar import DiaryCalendar
from wikimem_tui.common.footer import KeysFooter
from wikimem_tui.health.health import HealthPane
from wikimem_tui.item.item_area import ItemArea
from wikimem_tui.journal.journal_tail import JournalTail
from wikimem_tui.common.key_gate import KeyGate
from wikimem_tui.query.embed import EmbedStatus
from wikimem_tui.query.query_panel import SHORT, QueryPanel
from wikimem_tui.query.why import WhyNotBox
from wikimem_tui.queue.reconcile import ReconcilePane
from wikimem_tui.tree.topic_tree import NARROW, TopicTree

__all__ = ["ITEM_ACTIONS", "WRITE_ACTIONS", "WikimemApp"]

#: (pane name, tab title, widget class) of the panes beside the item pane.
PANES: list[tuple[str, str, type[Widget]]] = [
    ("calendar", "Calendar", DiaryCalendar),
    ("journal", "Journal", JournalTail),
    ("query", "Query", QueryPanel),
    ("health", "Health", HealthPane),
    ("queue", "Queue", ReconcilePane),
]


class WikimemApp(AppWorkers, AppGuards, AppItemActions, App[None]):
    """Inspect, edit and follow one wikimem memory directory."""

    CSS_PATH = "app.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]  # narrow: the tree is a sidebar (app.tcss)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT, "-tall")]  # short: panes budget their rows (query_panel)
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
        Binding("A", "audit", "Audit", id="audit"),
        Binding("X", "retract", "Retract", id="retract", show=False),
        Binding("H", "history", "History", id="history", show=False),
        Binding("g", "goto", "Go to", id="goto"),
        Binding("w", "why_not", "Why not recalled?", id="why-not", show=False),
        Binding("E", "embeddings", "Embeddings", id="embeddings", show=False),
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
        self._embed_note: str | None = None
        self.key_gate = KeyGate(self)
        """Holds the keys that arrive while an earlier key may still move the focus (``common/key_gate``)."""
        backend.subscribe(lambda change: self.post_message(StoreChanged(change)))  # from any thread

    async def on_event(self, event: events.Event) -> None:
        """Keys and pastes from the terminal pass the key gate first: a burst never runs as commands."""
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            if not self.key_gate.admit(event):
                return
        await super().on_event(event)

    def on_unmount(self) -> None:
        self.key_gate.close()

    # -- layout -----------------------------------------------------------------

    @property
    def _live_notices(self) -> LiveNotices:
        """Coalesces "changed on disk" toasts (made on first use: it needs the running app's timers)."""
        if self._live is None:
            self._live = LiveNotices(lambda text: self.notify(text, title="live", markup=False), self.set_timer)
        return self._live

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
            embed = f"{b.embed_label} · {self._embed_note}" if self._embed_note else b.embed_label
            text.append(f"  embed {clean_line(embed)}", style="dim")
        if b.read_only:
            text.append("  READ-ONLY", style="bold red")
        for status in self.query("#status").results(Static):  # none once the app is shutting down
            status.update(text)

    # -- query pane: build progress, why not recalled, embeddings (routing only) --

    def _index_progress(self, pct: int, done: int, total: int) -> None:
        """The index build's progress: on the status line, and in the query pane (a query may be waiting)."""
        self.update_status(f"index: building {pct}% ({done}/{total} files)")
        for panel in self.query(QueryPanel):
            panel.index_progress(done, total)

    @work(group="app-flow")
    async def action_why_not(self) -> None:
        """Pin an item in the query pane to see why the query does (not) recall it.

        The tree's item under the cursor, or the item open in the view; from
        anywhere else, pick one by name (the query row under the cursor first).
        """
        panel = self.query_one(QueryPanel)
        focused = self.focused
        key: tuple[str, str] | None = None
        tree = self.query_one(TopicTree)
        node = tree.tree.cursor_node if focused is not None and tree in focused.ancestors_with_self else None
        if node is not None and node.data is not None and node.data.kind == "item":
            key = (node.data.file, node.data.name)
        elif focused is not None and self.item_area in focused.ancestors_with_self and self.item_area.view.item:
            item = self.item_area.view.item
            key = (item.file, item.name)
        elif self.catalogue is None:
            self.notify("still reading the store…", severity="warning", markup=False)
            return
        else:
            picker = PinPicker(self.catalogue.all_items(), suggested=panel.suggested_pin(),
                               cursor_blink=self.cursor_blink)
            key = await self.push_screen_wait(picker)
        if key is not None:
            panel.pin(*key)
            self.action_pane("query")

    @on(WhyNotBox.PickRequested)
    def _pick_pin(self) -> None:
        self.action_why_not()

    def action_embeddings(self) -> None:
        """Embeddings: pause the running sync, or show what embedding costs and offer to start."""
        embed = self.query_one(QueryPanel).embed_status
        if embed is None:
            self.notify("embeddings are off: start with --embed local (offline) or --embed URL", markup=False)
            return
        embed.toggle()

    @on(EmbedStatus.Changed)
    def _embed_changed(self, message: EmbedStatus.Changed) -> None:
        self._embed_note = message.text
        self.update_status()

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

    @on(ItemArea.ShownChanged)
    def _shown_changed(self) -> None:
        self._refresh_keys()  # audit, promote, history… depend on what is shown

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
            self.screen_stack[0].remove_class("-no-tree")
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

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every toast: hidden characters made visible, never markup (names in messages are untrusted)."""
        super().notify(clean(message), title=clean_line(title), severity=severity, timeout=timeout, markup=False)

    def notify_error(self, message: str) -> None:
        """An error toast with literal text."""
        self.notify(message, severity="error", markup=False)
