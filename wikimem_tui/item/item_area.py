"""The item area: item view, editor and day view behind one switcher, and the flows on them.

This widget owns its ids (``#item-switcher``, ``#item-view``,
``#item-editor``), what is on screen and how the user got there: showing
and navigating (open, with back/forward history like a browser) and
editing. The write flows (new, rename, move, delete, promote, copy) are
functions of the area in ``item_writes.py`` and the curation flows (audit,
retract, history) in ``item_curation.py``: they use only this class's
public face, so neither shares its state. Multi-step flows run as workers
of the area (:func:`item_flow`) that ``await push_screen_wait(...)``, so a
flow reads top to bottom. Every write goes through the injected
``Backend`` with the content as it was read (``expected``): if another
process changed the item since, nothing is written and the user is told.
Which of the item keys can run now is this pane's to say
(:meth:`ItemArea.disabled_reason`, from :data:`ITEM_GUARDS`). The App
only routes messages and keys here; this module knows nothing about the
App.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import update_wrapper
from typing import Any, Concatenate, Literal, ParamSpec

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import ContentSwitcher, TabbedContent, TabPane
from textual.worker import Worker

from wikimem import RecallItem
from wikimem_tui.core.backend import Backend
from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.common.confirm import DISCARD_KEYS, ConfirmScreen
from wikimem_tui.common.guards import Guard, reason_for
from wikimem_tui.common.panes import show_pane
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.core.curation_reads import CurationReader
from wikimem_tui.item.editor import ItemEditor
from wikimem_tui.item.item_view import EMPTY_MEMORY, PICK_SOMETHING, ItemView, address

__all__ = ["CURATION_ACTIONS", "ITEM_ACTIONS", "ITEM_GUARDS", "NOT_ON_A_DAY", "ItemArea", "item_flow"]

Shown = tuple[str, ...]
#: How many opened things back/forward remembers.
HISTORY = 100

P = ParamSpec("P")


def item_flow(
    flow: Callable[Concatenate[ItemArea, P], Coroutine[Any, Any, None]],
) -> Callable[Concatenate[ItemArea, P], Worker[None]]:
    """Run ``flow`` as a worker of the area, group ``item-flow``: it may await its dialogs.

    What ``@work(group="item-flow")`` does for a method, for a flow that is
    a function of the area: the worker belongs to the area (it ends with it)
    and ``push_screen_wait`` can be awaited inside.
    """

    def start(area: ItemArea, /, *args: P.args, **kwargs: P.kwargs) -> Worker[None]:
        return area.run_worker(flow(area, *args, **kwargs), name=flow.__name__, group="item-flow")

    update_wrapper(start, flow)
    return start


class ItemArea(Vertical):
    """Shows one item, RecallFile or diary day, or edits one item."""

    DEFAULT_CSS = """
    ItemArea { height: 1fr; }
    ItemArea > ContentSwitcher { height: 1fr; }
    ItemArea #item-view, ItemArea #item-editor { height: 1fr; }
    """

    BINDINGS = [
        Binding("backspace", "back", "Back", id="item.back", show=False),
    ]

    class Opened(Message):
        """An item is on screen (the tree reveals it)."""

        def __init__(self, file: str, name: str) -> None:
            super().__init__()
            self.file = file
            self.name = name

    class ShownChanged(Message):
        """Something else is on screen (item, file or day): the keys that depend on it may change."""

    def __init__(self, backend: Backend, *, cursor_blink: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.backend = backend
        self.catalogue: Catalogue | None = None
        """Names and links (for link marks and backlinks); None until the first build."""
        self.cursor_blink = cursor_blink
        """False in tests and snapshots: the editor and the flows' dialogs do not blink."""
        self.curation = CurationReader(backend.root)
        """The warm snapshot audit and retraction read (``item_curation.py``); kept current by store changes."""
        self._history: list[Shown] = []
        self._position = -1

    def compose(self) -> ComposeResult:
        with ContentSwitcher(initial="item-view", id="item-switcher"):
            yield ItemView(id="item-view")
            yield ItemEditor(self.backend, cursor_blink=self.cursor_blink, id="item-editor")

    @property
    def view(self) -> ItemView:
        """The read-only view."""
        return self.query_one(ItemView)

    @property
    def editor(self) -> ItemEditor:
        """The editor."""
        return self.query_one(ItemEditor)

    @property
    def editing(self) -> bool:
        """True while the editor (not the view) is shown."""
        return self.query_one(ContentSwitcher).current == "item-editor"

    @property
    def dirty(self) -> bool:
        """True while the editor holds unsaved edits."""
        return self.editing and self.editor.dirty

    @property
    def shown_day(self) -> tuple[str, str | None] | None:
        """``(date, time)`` when the view shows a diary day, else None."""
        shown = self.view.shown
        if self.editing or not shown or shown[0] != "day":
            return None
        return shown[1], shown[2] or None

    @property
    def can_go_back(self) -> bool:
        """Whether back has somewhere to go."""
        return self._position > 0

    @property
    def can_go_forward(self) -> bool:
        """Whether forward has somewhere to go."""
        return 0 <= self._position < len(self._history) - 1

    def disabled_reason(self, action: str) -> str | None:
        """Why the item key ``action`` cannot run on what is shown now (None: it can); see :data:`ITEM_GUARDS`."""
        return reason_for(ITEM_GUARDS, self, action)

    def hides(self, action: str) -> bool:
        """True: ``action`` means nothing for what is shown (edit on a diary day): the footer leaves it out.

        Dimmed, ``e Edit`` / ``d Delete`` on a diary day read as "not yet"
        and took the footer's room from the day's own keys; pressed, they
        still say why (:data:`ITEM_GUARDS`).
        """
        return action in NOT_ON_A_DAY and self.shown_day is not None

    # -- showing -------------------------------------------------------------------

    def _switch(self, to: Literal["item-view", "item-editor"]) -> None:
        """Show the view or the editor and make this area the visible tab.

        Focus left in another tab, or on the half of this area now hidden,
        would be handed to a neighbour in the hidden pane and make the tabs
        switch right back (``common/panes``), so it moves here in the same
        step as the switch; focus elsewhere (the tree) stays where it is.
        The focus asked about is this screen's, not the app's: when a dialog
        (go to, a promotion) opened the item, the app's focus is in the
        dialog, and the widget this screen gives the focus back to when the
        dialog closes would be left in a hidden tab.
        """
        self.query_one(ContentSwitcher).current = to
        self.screen.set_class(to == "item-editor", "-editing")  # toasts move off the editor (app.tcss)
        pane = next((a for a in self.ancestors if isinstance(a, TabPane)), None)
        tabs = next((a for a in self.ancestors if isinstance(a, TabbedContent)), None)
        if pane is None or tabs is None or not pane.id:
            return
        focused = self.screen.focused
        shown: Widget = self.view if to == "item-view" else self.editor
        moved = focused is not None and tabs in focused.ancestors and shown not in focused.ancestors_with_self
        show_pane(tabs, pane.id, (self.view if to == "item-view" else self.editor.area) if moved else None)

    def blocked_by_draft(self) -> bool:
        """True (and says so) when unsaved edits stand in the way; leaves a clean editor."""
        if self.dirty:
            self.notify("unsaved edits: save (ctrl+s) or cancel (esc) first", severity="warning", markup=False)
            return True
        return False

    def open_item(self, file: str, name: str) -> None:
        """Show ``file:name`` (remembered for back/forward)."""
        self._open(("item", file, name))

    def open_file(self, file: str) -> None:
        """Show a whole RecallFile."""
        self._open(("file", file))

    def open_day(self, date: str, time: str | None = None) -> None:
        """Show one diary day (``time`` highlighted)."""
        self._open(("day", date, time or ""))

    def _open(self, shown: Shown, *, remember: bool = True) -> bool:
        if self.blocked_by_draft() or not self._read_into_view(shown, home=True):
            return False
        if remember:
            del self._history[self._position + 1 :]
            if not self._history or self._history[-1] != self.view.shown:
                self._history.append(self.view.shown)
            del self._history[:-HISTORY]
            self._position = len(self._history) - 1
        self._switch("item-view")
        self.post_message(self.ShownChanged())
        return True

    def _read_into_view(self, shown: Shown, *, home: bool) -> bool:
        """Read ``shown`` from disk into the view; False when it cannot be shown."""
        view, store = self.view, self.backend.store
        kind, *args = shown
        if kind == "item":
            item = store.get(args[0], args[1])
            if item is None:
                view.show_missing(args[0], args[1])
            else:
                view.show_item(item, self.catalogue, home=home)
                self.post_message(self.Opened(item.file, item.name))
        elif kind == "file":
            view.show_file(args[0], store.items(args[0]), self.catalogue, store.file_meta(args[0]))
        elif kind == "day":
            try:
                entries = self.backend.diary.day(args[0])
            except ValueError:
                self.notify(f"not a diary date: {args[0]}", severity="error", markup=False)
                return False
            view.show_day(args[0], entries, self.catalogue, args[1] or None)
        return True

    def reshow(self) -> None:
        """Re-read whatever the view shows (after a store change); scroll and tab stay."""
        if self.view.shown:
            self._read_into_view(self.view.shown, home=False)

    def set_catalogue(self, catalogue: Catalogue) -> None:
        """A new catalogue: link marks and backlinks may have changed."""
        self.catalogue = catalogue
        if not self.view.shown and not self.editing:  # nothing opened yet: the placeholder says where to start
            empty = not any(catalogue.names.values()) and not catalogue.diary_counts
            self.view.show_empty(EMPTY_MEMORY if empty else PICK_SOMETHING)
        self.reshow()

    def refresh_from_store(self, change: StoreChange | None = None) -> None:
        """A write, ours or another process's: audits re-read its files; an open draft may need a reload or a choice."""
        if change is None:
            return
        self.curation.changed(change)
        if change.external and self.editing and self.editor.file in change.wiki_files:
            self.editor.disk_changed()

    def go(self, step: int) -> None:
        """Back (-1) or forward (+1) through what was opened."""
        target = self._position + step
        if not 0 <= target < len(self._history):
            self.notify("no more history that way", markup=False)
            return
        if self._open(self._history[target], remember=False):
            self._position = target

    def action_back(self) -> None:
        """Back to what was open before."""
        self.go(-1)

    # -- editing ---------------------------------------------------------------------

    def _current_item(self) -> RecallItem | None:
        current = self.view.current
        item = self.backend.store.get(*current) if current else None
        if item is None:
            self.notify("open an item first (t tree, g go to)", markup=False)
        return item

    def show_editor(self, file: str, name: str, item: RecallItem | None) -> None:
        """Switch to the editor on ``file:name``: ``item`` as read (the save expects it), None for a new item."""
        self._switch("item-editor")
        self.editor.load(file, name, item)

    def edit(self) -> None:
        """Open the editor on the item shown (read fresh: that is what the save expects)."""
        if self.editing:
            self.editor.area.focus()
            return
        item = self._current_item()
        if item is not None:
            self.show_editor(item.file, item.name, item)

    def _draft_question(self, question: str) -> Text:
        return Text(question).append_text(address(self.editor.file, self.editor.item_name)).append("?")

    @work(group="item-flow")
    async def cancel_edit(self) -> None:
        """Leave the editor; ask first when the draft has changes."""
        if not self.editing:
            return
        if self.editor.dirty:
            question = ConfirmScreen(self._draft_question("Discard unsaved edits to "), yes="Discard", no="Keep editing",
                                     keys=DISCARD_KEYS)
            if not await self.app.push_screen_wait(question):
                return
        self.close_editor()

    def close_editor(self) -> None:
        """Back to the view of the item, focused."""
        self._switch("item-view")
        self.reshow()
        self.view.focus()

    async def confirm_quit(self) -> bool:
        """Ask whether to drop the draft and quit (call from a worker)."""
        question = ConfirmScreen(self._draft_question("Quit and discard unsaved edits to "), yes="Quit")
        quit_: bool | None = await self.app.push_screen_wait(question)
        return bool(quit_)

    @on(ItemEditor.Saved)
    def _saved(self, message: ItemEditor.Saved) -> None:
        message.stop()
        item = message.item
        self._open(("item", item.file, item.name))
        self.view.focus()  # the editor is gone: keys go back to the item, not the filter
        self.notify(f"saved {item.file}:{item.name} · ctrl+z undoes it", markup=False)

    @on(ItemEditor.Closed)
    def _editor_closed(self, message: ItemEditor.Closed) -> None:
        message.stop()
        self.cancel_edit()

    def external_editor(self, command: str) -> None:
        """Hand the draft (or the open item) to ``command``; what comes back is saved by the editor."""
        if not self.editing:
            item = self._current_item()
            if item is None:
                return
            self.show_editor(item.file, item.name, item)
        if not self.editor.run_external(command) and not self.editor.dirty:
            self.close_editor()


#: Item actions: on the item shown in the view.
ITEM_ACTIONS = frozenset({"edit", "rename", "move", "delete", "external_editor", "copy_link", "copy_block"})
#: Curation actions: on the item or diary day shown.
CURATION_ACTIONS = frozenset({"audit", "retract", "history"})
_FINISH_EDITING = "finish editing first (ctrl+s saves, esc cancels)"
#: Item actions that have no meaning on a diary day (append-only evidence): hidden there, and say why.
NOT_ON_A_DAY = frozenset({"edit", "rename", "move", "delete", "external_editor"})
_APPEND_ONLY = ("the diary is append-only: an entry is never edited or deleted "
                "(X retracts an entry and marks what rests on it, p promotes entries to the wiki, a appends)")

#: Why an item key cannot run on what the area shows; the first row that applies answers (``common/guards``).
ITEM_GUARDS: tuple[Guard[ItemArea], ...] = (
    Guard(ITEM_ACTIONS - {"edit", "external_editor"}, lambda a: a.editing, _FINISH_EDITING),
    Guard(NOT_ON_A_DAY, lambda a: a.shown_day is not None, _APPEND_ONLY),
    Guard(ITEM_ACTIONS, lambda a: not a.editing and a.view.item is None, "open an item first (t tree, g go to)"),
    Guard(CURATION_ACTIONS, lambda a: a.editing, _FINISH_EDITING),
    Guard({"audit", "retract"}, lambda a: a.view.item is None and a.shown_day is None,
          "open an item or a diary day first (t tree, g go to, c calendar)"),
    Guard({"history"}, lambda a: not a.view.shown or a.view.shown[0] != "item",
          "open an item first (t tree, g go to): history is per wiki item"),
    Guard({"promote"}, lambda a: a.shown_day is None, "open a diary day first (tree: diary, or the calendar)"),
    Guard({"back"}, lambda a: not a.can_go_back, "nothing to go back to"),
    Guard({"forward"}, lambda a: not a.can_go_forward, "nothing to go forward to"),
)
