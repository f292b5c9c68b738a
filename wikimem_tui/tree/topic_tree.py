"""The topic tree: RecallFiles with counts, items beneath, the diary as a branch.

Built for a 100,000-item store (harlequin's catalogue lesson): the tree only
ever holds file and day nodes plus the children of the branches the user
opened, added in chunks of ``CHUNK`` with a "more…" node, so expanding a
huge RecallFile or typing in the filter never adds 100k nodes at once. Names
come from the shared ``Catalogue`` (built off the UI thread); every label is
untrusted text and goes through ``safe_line``. What the nodes and labels are
for a catalogue under a filter is decided in ``tree_model``; this widget adds
them, and owns the keys, the focus and the workers.

Keys follow one model, the one the footer shows: single keys are commands
(the app's ``e``, ``d``, ``q``…), and typing goes into the filter box. ``f``
puts the focus in the box; so does any printable key that is *not* a command
where the focus is (it becomes the first character of the filter), so
typing a name mostly just works while a command key never types. In the box,
the tree narrows as you type (names at once, content after a scan in a
worker) and the cursor jumps to the best match (type-ahead); ``up``/``down``
move that cursor without leaving the box, ``enter`` opens it, ``escape``
clears the filter and goes back to the tree.

Enter on a RecallFile expands it and shows the whole file in the item pane,
but only for files of at most ``CHUNK`` items: rendering a 5,000-item file
as one page blocks the UI thread past any goal (bench/bench_tree.py
measures it), and such a
file is browsed in the tree, not read whole.

Derived items (text written from recall answers, ``badges.badge_for``) carry
the derived badge, and a diary day says how many of its entries are
derived. Which ones are is found by ``badges.DerivedMarks`` in a thread
worker after each new catalogue (re-reading only the files whose stat
changed); the tree then redraws its labels.

Below ``NARROW`` columns (the App's ``-narrow`` breakpoint class on the
screen) the tree is a sidebar: open (``-open``) while the focus is inside it,
hidden as soon as another pane takes the focus, so the panes get the whole
width; ``t`` brings it back. Picking an item or a day hands the focus to the
item pane, which closes the sidebar.
"""

from __future__ import annotations

import threading

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from wikimem_tui.core.backend import Backend
from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.common.messages import OpenDiaryDay, OpenItem, OpenRecallFile
from wikimem_tui.common.badges import DerivedMarks
from wikimem_tui.common.safe_tree import SafeTree
from wikimem_tui.tree.tree_filter import CONTENT_DELAY, FilterBox
from wikimem_tui.tree.tree_model import AUTO_EXPAND, CHUNK, NodeRef, TreeContents
from wikimem_tui.tree.tree_search import ContentHits

__all__ = ["CHUNK", "NARROW", "NodeRef", "SafeTree", "TopicTree"]

#: Below this many columns the tree is a sidebar (the App's breakpoint must match).
NARROW = 100


class TopicTree(Vertical):
    """Filter box over a lazily filled tree of the store."""

    HELP_TITLE = "Topic tree"
    HELP_NOTE = ("Any other printable key starts the filter with it. In the filter: ↑/↓ move the cursor, "
                 "enter opens the match, escape clears it.")

    DEFAULT_CSS = """
    TopicTree { height: 1fr; }
    TopicTree > SafeTree { height: 1fr; }
    """

    BINDINGS = [
        Binding("f", "filter", "Filter", id="tree.filter"),
        Binding("escape", "leave_filter", "Clear filter", id="tree-clear-filter", show=False),
    ]

    class DerivedFound(Message):
        """The derived scan finished with marks different from the ones shown."""

    def __init__(self, backend: Backend, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.backend = backend
        """The app's backend: the filter's content scan and the derived-badge scan read its store."""
        self.store = backend.store
        """Read (in a worker) to badge derived items and days."""
        self.derived = DerivedMarks()
        """Which items and how many entries per day are derived (as of the last scan)."""
        self._derived_lock = threading.Lock()
        self.catalogue: Catalogue | None = None
        """The names the tree shows; None until the first build finishes."""
        self.filter_text = ""
        """The filter in force (casefolded substring of names, then of content)."""
        self.content_hits: ContentHits | None = None
        """What the content scan found for ``filter_text`` (None while it runs or with no filter)."""
        self._shown: TreeContents | None = None
        """What the tree was last built from (branches opened later are filled from it)."""

    def compose(self) -> ComposeResult:
        yield FilterBox(self.backend.store)
        tree: SafeTree[NodeRef] = SafeTree("memory", id="topic-tree")
        tree.show_root = False
        tree.auto_expand = False
        tree.guide_depth = 2
        tree.fill = self._load  # children first, then the expand: one rebuild of the lines
        tree.root.add_leaf("loading…", NodeRef("loading"))
        yield tree

    def on_mount(self) -> None:
        self.watch(self.screen, "focused", self._follow_focus)

    @property
    def narrow(self) -> bool:
        """True while the screen is narrow enough for the tree to be a sidebar."""
        return self.screen.has_class("-narrow")

    def _follow_focus(self, focused: Widget | None) -> None:
        """Open the sidebar while the focus is in the tree; close it when it leaves."""
        if focused is None:
            return  # a click on nothing: keep things as they are
        inside = self in focused.ancestors_with_self
        self.set_class(inside, "-open")
        if not inside and self.narrow:
            # ``t`` (show_pane) sets an inline ``display``; drop it so the narrow CSS hides the tree again.
            self.styles.clear_rule("display")

    def _hand_over(self) -> None:
        """Narrow: after opening something, give the focus (and the width) to the item pane."""
        if self.narrow:
            self.call_after_refresh(self.app.run_action, "pane('item')")

    @property
    def node_tree(self) -> SafeTree[NodeRef]:
        """The inner Tree widget (not ``tree``: that is the DOM node's own debugging view)."""
        return self.query_one(SafeTree)

    @property
    def filter_box(self) -> FilterBox:
        """The filter box above the tree."""
        return self.query_one(FilterBox)

    # -- data ---------------------------------------------------------------

    def set_catalogue(self, catalogue: Catalogue) -> None:
        """Show ``catalogue``, keeping open branches and the cursor where they were."""
        self.catalogue = catalogue
        self._rebuild()
        self._search_content(0.01)  # under a filter, content may have changed with the catalogue
        if self.store is not None:
            self._scan_derived()

    @work(thread=True, exclusive=True, group="tree-derived", exit_on_error=False)
    def _scan_derived(self) -> None:
        """Find derived items and entries off the UI thread (only files whose stat changed are read)."""
        assert self.store is not None
        with self._derived_lock:  # the marks are refreshed in place
            changed = self.derived.refresh(self.store)
        if changed:
            self.post_message(self.DerivedFound())

    def on_topic_tree_derived_found(self, message: DerivedFound) -> None:
        message.stop()
        self._rebuild()

    def refresh_from_store(self, change: StoreChange | None = None) -> None:
        """Nothing to read here: the app hands a new catalogue via ``set_catalogue``."""

    def _rebuild(self, *, jump: bool = False) -> None:
        """Refill the tree from the catalogue and the filter; ``jump``: cursor to the best match."""
        tree = self.node_tree
        cat = self.catalogue
        if cat is None:
            return
        shown = self._shown = TreeContents(cat, self.filter_text, self.content_hits, self.derived)
        opened = {n.data.file for n in self._file_nodes() if n.is_expanded and n.data}
        diary_open = any(n.data and n.data.kind == "diary" and n.is_expanded for n in tree.root.children)
        cursor = tree.cursor_node.data if tree.cursor_node is not None else None
        tree.clear()
        budget = AUTO_EXPAND  # a filter matching everything must not add 100k nodes
        for file in cat.names:
            matches = shown.matches(file)
            if matches == []:
                continue
            node = tree.root.add(shown.file_label(file, matches), NodeRef("file", file), expand=False)
            if matches is not None and budget > 0:
                budget -= 1
                self._add_chunk(node, matches, 0)
                node.expand()
            elif file in opened:
                self._load(node)
                node.expand()
        if shown.days() or not self.filter_text:
            diary = tree.root.add(shown.diary_label(), NodeRef("diary"), expand=False)
            if diary_open or self.filter_text:
                self._load(diary)
                diary.expand()
        if self.filter_text and not tree.root.children:
            tree.root.add_leaf(shown.empty_note(), NodeRef("none"))
        self.filter_box.show_status(shown.name_match_count(), self.content_hits, self._empty())
        restored = not jump and cursor is not None and cursor.kind != "loading" and tree.move_to_data(cursor)
        if restored:
            return
        if self.filter_text:
            self._jump_to_best()
        elif tree.root.children:
            tree.move_to(tree.root.children[0])

    def _empty(self) -> bool:
        """True when the filter left nothing (only the "no matches" node)."""
        children = self.node_tree.root.children
        return not children or (len(children) == 1 and children[0].data == NodeRef("none"))

    def _file_nodes(self) -> list[TreeNode[NodeRef]]:
        return [n for n in self.node_tree.root.children if n.data and n.data.kind == "file"]

    # -- lazy children --------------------------------------------------------

    def _children_of(self, ref: NodeRef) -> list[str]:
        return self._shown.children_of(ref) if self._shown is not None else []

    def _load(self, node: TreeNode[NodeRef]) -> None:
        """Fill an unloaded file/diary node with its first chunk."""
        if node.data is None or node.children:
            return
        self._add_chunk(node, self._children_of(node.data), 0)

    def _add_chunk(self, node: TreeNode[NodeRef], names: list[str], offset: int) -> None:
        assert node.data is not None and self._shown is not None
        for name in names[offset : offset + CHUNK]:
            node.add_leaf(*self._shown.child(node.data, name))
        rest = len(names) - offset - CHUNK
        if rest > 0:
            node.add_leaf(
                Text(f"more… ({rest} left)", style="italic dim"),
                NodeRef("more", node.data.file, node.data.kind, offset + CHUNK),
            )

    @on(Tree.NodeExpanded)
    def _expanded(self, event: Tree.NodeExpanded[NodeRef]) -> None:
        self._load(event.node)

    @on(Tree.NodeSelected)
    def _selected(self, event: Tree.NodeSelected[NodeRef]) -> None:
        event.stop()
        self._activate(event.node)

    def _activate(self, node: TreeNode[NodeRef]) -> None:
        """What enter does on ``node``: open an item or day, toggle a branch, load more."""
        ref = node.data
        if ref is None:
            return
        if ref.kind == "item":
            self.post_message(OpenItem(ref.file, ref.name))
            self._hand_over()
        elif ref.kind == "day":
            self.post_message(OpenDiaryDay(ref.name))
            self._hand_over()
        elif ref.kind == "file":
            if not node.is_expanded:
                self._load(node)  # before the expand: the tree's lines are rebuilt once, not twice
            node.toggle()
            small = self.catalogue is None or self.catalogue.count(ref.file) <= CHUNK
            if node.is_expanded and small:
                self.post_message(OpenRecallFile(ref.file))
        elif ref.kind == "diary":
            if not node.is_expanded:
                self._load(node)
            node.toggle()
        elif ref.kind == "more" and node.parent is not None:
            parent = node.parent
            node.remove()
            assert parent.data is not None
            self._add_chunk(parent, self._children_of(parent.data), ref.offset)

    # -- filter ---------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        """Type-to-filter: a printable key that is no command here starts the filter with it."""
        if not event.is_printable or not event.character or self.screen.focused is not self.node_tree:
            return
        active = self.screen.active_bindings.get(event.key)
        if event.character.isspace() or active is not None:
            return
        event.stop()
        event.prevent_default()
        self.filter_box.type(event.character)

    def action_filter(self) -> None:
        """Put the focus in the filter box (the tree narrows as you type)."""
        self.filter_box.input.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape only when there is a filter to leave (else it is the app's)."""
        if action == "leave_filter":
            box = self.filter_box.input
            return box.has_focus or bool(box.value)
        return True

    @on(FilterBox.Move)
    def _filter_move(self, event: FilterBox.Move) -> None:
        """Up/down in the filter box: move the tree's cursor (the match enter would open)."""
        event.stop()
        if event.delta > 0:
            self.node_tree.action_cursor_down()
        else:
            self.node_tree.action_cursor_up()

    @on(FilterBox.Changed)
    def _filter_settled(self, event: FilterBox.Changed) -> None:
        """Names now; content after a pause (the box's worker reads the files)."""
        event.stop()
        if event.text != self.filter_text:
            self.filter_text = event.text
            self.content_hits = None
        self._rebuild(jump=True)
        self._search_content(CONTENT_DELAY)

    def _search_content(self, delay: float) -> None:
        if self.filter_text and self.catalogue is not None:
            self.filter_box.search_content(self.catalogue.names, self.catalogue.diary_counts, delay=delay)

    @on(FilterBox.ContentFound)
    def _content_found(self, event: FilterBox.ContentFound) -> None:
        event.stop()
        if event.hits.text == self.filter_text:  # else the filter moved on meanwhile
            self.content_hits = event.hits
            self._rebuild()

    def _jump_to_best(self) -> None:
        """Type-ahead: the cursor on the first item (or day) whose name starts with the filter, else the first match."""
        needle = self.filter_text
        leaves = [n for n in self.node_tree.loaded_nodes() if n.data and n.data.kind in ("item", "day")]
        best = next((n for n in leaves if n.data and n.data.name.casefold().startswith(needle)), None)
        target = best or (leaves[0] if leaves else (self.node_tree.root.children[0] if self.node_tree.root.children else None))
        if target is not None:
            self.node_tree.move_to(target)

    def action_leave_filter(self) -> None:
        """Escape: clear the filter (if any) and hand the keys back to the tree.

        Without this, focus stuck in the filter swallows every letter key,
        including ``/`` and ``q``, and the app seems to ignore its bindings.
        """
        if self.filter_box.input.value:
            self.filter_box.clear()
        self.node_tree.focus()

    @on(FilterBox.Submitted)
    def _filter_submitted(self, event: FilterBox.Submitted) -> None:
        """Enter in the box: open the match under the cursor (or just go to the tree)."""
        event.stop()
        self.node_tree.focus()
        node = self.node_tree.cursor_node
        if node is not None and node.data is not None and node.data.kind in ("item", "day"):
            self._activate(node)

    # -- navigation -------------------------------------------------------------

    def reveal(self, file: str, name: str) -> None:
        """Expand ``file`` as far as needed and put the cursor on ``name``."""
        for node in self._file_nodes():
            assert node.data is not None
            if node.data.file != file:
                continue
            self._load(node)
            node.expand()
            while True:
                for child in node.children:
                    if child.data and child.data.kind == "item" and child.data.name == name:
                        self.node_tree.move_to(child)
                        return
                more = [c for c in node.children if c.data and c.data.kind == "more"]
                if not more:
                    return
                offset = more[0].data.offset if more[0].data else 0
                more[0].remove()
                self._add_chunk(node, self._children_of(node.data), offset)
