"""The topic tree: RecallFiles with counts, items beneath, the diary as a branch.

Built for a 100,000-item store (harlequin's catalogue lesson): the tree only
ever holds file and day nodes plus the children of the branches the user
opened, added in chunks of ``CHUNK`` with a "more…" node, so expanding a
huge RecallFile or typing in the filter never adds 100k nodes at once. Names
come from the shared ``Catalogue`` (built off the UI thread); every label is
untrusted text and goes through ``safe_line``.

Below ``NARROW`` columns (the App's ``-narrow`` breakpoint class on the
screen) the tree is a sidebar: open (``-open``) while the focus is inside it,
hidden as soon as another pane takes the focus, so the panes get the whole
width; ``t`` brings it back. Picking an item or a day hands the focus to the
item pane, which closes the sidebar. (Tried in tmux against a narrower
always-on tree: at 80 columns even a 22-column tree cut ``file:name`` in the
query table and wrapped the item view, while the sidebar costs one key.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, Tree
from textual.widgets.tree import TreeNode

from wikimem_tui.context import Catalogue
from wikimem_tui.messages import OpenDiaryDay, OpenItem, OpenRecallFile, StoreChange
from wikimem_tui.safe import clean_line, safe_line

__all__ = ["NARROW", "NodeRef", "TopicTree"]

#: Below this many columns the tree is a sidebar (the App's breakpoint must match).
NARROW = 100

CHUNK = 200
#: Under a filter, only this many matching files open by themselves.
AUTO_EXPAND = 20


@dataclass(frozen=True)
class NodeRef:
    """What a tree node stands for; ``offset`` is where a "more…" node resumes."""

    kind: Literal["file", "item", "diary", "day", "more", "loading"]
    file: str = ""
    name: str = ""
    offset: int = 0


class SafeTree(Tree[NodeRef]):
    """A Tree whose string labels are never parsed as markup."""

    def process_label(self, label: str | Text) -> Text:  # type: ignore[override]
        text = Text(clean_line(label)) if isinstance(label, str) else label
        return text.split()[0] if text.plain else text


class TopicTree(Vertical):
    """Filter input over a lazily filled tree of the store."""

    DEFAULT_CSS = """
    TopicTree { height: 1fr; }
    TopicTree > Input { height: 3; }
    TopicTree > SafeTree { height: 1fr; }
    """

    BINDINGS = [
        Binding("escape", "leave_filter", "Clear filter", id="tree-clear-filter", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.catalogue: Catalogue | None = None
        """The names the tree shows; None until the first build finishes."""
        self.filter_text = ""
        """The current filter (casefolded substring over file and item names)."""
        self._filter_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter…", id="tree-filter")
        tree = SafeTree("memory", id="topic-tree")
        tree.show_root = False
        tree.auto_expand = False
        tree.guide_depth = 2
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
    def tree(self) -> SafeTree:
        """The inner Tree widget."""
        return self.query_one(SafeTree)

    # -- data ---------------------------------------------------------------

    def set_catalogue(self, catalogue: Catalogue) -> None:
        """Show ``catalogue``, keeping open branches and the cursor where they were."""
        self.catalogue = catalogue
        self._rebuild()

    def refresh_from_store(self, change: StoreChange | None = None) -> None:
        """Nothing to read here: the app hands a new catalogue via ``set_catalogue``."""

    def _matches(self, file: str) -> list[str] | None:
        """Item names of ``file`` to show under the filter (None: show the file lazily)."""
        assert self.catalogue is not None
        names = self.catalogue.names.get(file, [])
        if not self.filter_text:
            return None
        hits = [n for n in names if self.filter_text in n.casefold()]
        if hits:
            return hits
        return None if self.filter_text in file.casefold() else []

    def _rebuild(self) -> None:
        tree = self.tree
        cat = self.catalogue
        if cat is None:
            return
        opened = {n.data.file for n in self._file_nodes() if n.is_expanded and n.data}
        diary_open = any(n.data and n.data.kind == "diary" and n.is_expanded for n in tree.root.children)
        cursor = tree.cursor_node.data if tree.cursor_node is not None else None
        tree.clear()
        budget = AUTO_EXPAND  # a filter matching everything must not add 100k nodes
        for file, names in cat.names.items():
            matches = self._matches(file)
            if matches == []:
                continue
            label = safe_line(file, "bold")
            shown = f"{len(matches)}/{len(names)}" if matches is not None else str(len(names))
            label.append(f" ({shown})", style="dim")
            node = tree.root.add(label, NodeRef("file", file), expand=False)
            if matches is not None and budget > 0:
                budget -= 1
                self._add_chunk(node, matches, 0)
                node.expand()
            elif file in opened:
                self._load(node)
                node.expand()
        days = [d for d in reversed(cat.diary_counts) if not self.filter_text or self.filter_text in d]
        if days or not self.filter_text:
            label = Text("diary", style="bold italic")
            label.append(f" ({len(cat.diary_counts)} days)", style="dim")
            diary = tree.root.add(label, NodeRef("diary"), expand=False)
            if diary_open or self.filter_text:
                self._load(diary)
                diary.expand()
        if cursor is not None and cursor.kind != "loading":
            self._restore_cursor(cursor)
        elif tree.root.children:
            tree.move_cursor(tree.root.children[0])

    def _file_nodes(self) -> list[TreeNode[NodeRef]]:
        return [n for n in self.tree.root.children if n.data and n.data.kind == "file"]

    def _restore_cursor(self, ref: NodeRef) -> None:
        for node in self._walk():
            if node.data == ref:
                self.tree.move_cursor(node)
                return

    def _walk(self) -> list[TreeNode[NodeRef]]:
        out: list[TreeNode[NodeRef]] = []
        for node in self.tree.root.children:
            out.append(node)
            out.extend(node.children)
        return out

    # -- lazy children --------------------------------------------------------

    def _children_of(self, ref: NodeRef) -> list[str]:
        cat = self.catalogue
        if cat is None:
            return []
        if ref.kind == "diary":
            return [d for d in reversed(cat.diary_counts) if self.filter_text in d]
        matches = self._matches(ref.file)
        return matches if matches is not None else cat.names.get(ref.file, [])

    def _load(self, node: TreeNode[NodeRef]) -> None:
        """Fill an unloaded file/diary node with its first chunk."""
        if node.data is None or node.children:
            return
        self._add_chunk(node, self._children_of(node.data), 0)

    def _add_chunk(self, node: TreeNode[NodeRef], names: list[str], offset: int) -> None:
        assert node.data is not None
        cat = self.catalogue
        for name in names[offset : offset + CHUNK]:
            if node.data.kind == "diary":
                label = Text(name)
                count = cat.diary_counts.get(name, 0) if cat else 0
                label.append(f" ({count})", style="dim")
                node.add_leaf(label, NodeRef("day", name=name))
            else:
                node.add_leaf(safe_line(name), NodeRef("item", node.data.file, name))
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
        ref = event.node.data
        if ref is None:
            return
        if ref.kind == "item":
            self.post_message(OpenItem(ref.file, ref.name))
            self._hand_over()
        elif ref.kind == "day":
            self.post_message(OpenDiaryDay(ref.name))
            self._hand_over()
        elif ref.kind == "file":
            event.node.toggle()
            self.post_message(OpenRecallFile(ref.file))
        elif ref.kind == "diary":
            event.node.toggle()
        elif ref.kind == "more" and event.node.parent is not None:
            parent = event.node.parent
            event.node.remove()
            assert parent.data is not None
            self._add_chunk(parent, self._children_of(parent.data), ref.offset)

    # -- filter ---------------------------------------------------------------

    @on(Input.Changed, "#tree-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._filter_timer is not None:
            self._filter_timer.stop()
        value = event.value.strip().casefold()
        self._filter_timer = self.set_timer(0.15, lambda: self._apply_filter(value))

    def _apply_filter(self, value: str) -> None:
        self.filter_text = value
        self._rebuild()

    def action_leave_filter(self) -> None:
        """Escape: clear the filter (if any) and hand the keys back to the tree.

        Without this, focus stuck in the filter swallows every letter key,
        including ``/`` and ``q``, and the app seems to ignore its bindings.
        """
        field = self.query_one("#tree-filter", Input)
        if field.value:
            field.value = ""
            if self._filter_timer is not None:
                self._filter_timer.stop()
            self._apply_filter("")
        self.tree.focus()

    @on(Input.Submitted, "#tree-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._apply_filter(event.value.strip().casefold())
        self.tree.focus()

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
                        self.tree.move_cursor(child)
                        return
                more = [c for c in node.children if c.data and c.data.kind == "more"]
                if not more:
                    return
                offset = more[0].data.offset if more[0].data else 0
                more[0].remove()
                self._add_chunk(node, self._children_of(node.data), offset)
