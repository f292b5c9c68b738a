"""A ``Tree`` for untrusted labels that is refilled often: no markup, and a cursor that survives.

Both trees of the app (the topic tree and the health findings) show names
an LLM wrote and are cleared and refilled on every catalogue, filter or
lint change. String labels are therefore cleaned and never parsed as Rich
markup, and the cursor is put back on the node standing for the same thing
(``move_to_data``) after a refill. Nodes added since the last paint have no
line number yet, so moving the cursor onto one first makes the tree compute
them (``move_to``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from wikimem_tui.common.safe import clean_line

__all__ = ["SafeTree"]

DataT = TypeVar("DataT")


class SafeTree(Tree[DataT]):
    """A Tree whose string labels are never parsed as markup."""

    HELP_TITLE = "Tree"

    def process_label(self, label: str | Text) -> Text:
        text = Text(clean_line(label)) if isinstance(label, str) else label
        return text.split()[0] if "\n" in text.plain else text  # split copies: only when there is a line to cut

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fill: Callable[[TreeNode[DataT]], None] | None = None
        """Called with a branch about to expand by a key, so its children are added before, not after."""
        self._label_widths: dict[int, tuple[Text, int]] = {}
        """Node id -> (its label, the label's width): measured once per label, not per rebuild of the lines."""

    def get_label_width(self, node: TreeNode[DataT]) -> int:
        """The label's width without rendering it: the same number ``render_label`` would give.

        Textual's default renders every label (copy, stylize, assemble) to
        measure it, and does so for *every* line each time the tree's lines
        are rebuilt, which is after any node is added or expanded: on a
        large store's topic tree, thousands of file nodes, expanding any
        file would cost all of them, whatever its size. The icon and the label's own
        width are all ``render_label`` puts on the line; the label's is
        kept (by node id) until the node's label is replaced.
        """
        icon = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE) if node.allow_expand else ""
        label = node._label  # the processed Text (``label`` is typed str | Text)
        known = self._label_widths.get(node.id)
        if known is None or known[0] is not label:  # a new node (ids restart after clear) or a new label
            known = self._label_widths[node.id] = (label, label.cell_len)
        return cell_len(icon) + known[1]

    def action_toggle_node(self) -> None:
        """Space: ``fill`` the branch under the cursor first, so the tree's lines are rebuilt once.

        Filled afterwards (on ``NodeExpanded``), the tree rebuilt its lines
        for the empty branch and again for its children: twice a walk of
        every line (5,000 files at 1M items). A click on the icon still
        expands first and fills on ``NodeExpanded``.
        """
        node = self.cursor_node
        if self.fill is None or node is None or not node.allow_expand:
            super().action_toggle_node()
            return
        if not node.is_expanded:
            self.fill(node)
        node.toggle()  # not the action again: it would look the cursor's line up in lines the fill made stale

    def loaded_nodes(self) -> list[TreeNode[DataT]]:
        """Every node added so far (collapsed branches' children too), depth first, root excluded."""
        out: list[TreeNode[DataT]] = []
        stack = list(reversed(self.root.children))
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
        return out

    def move_to(self, node: TreeNode[DataT]) -> None:
        """Move the cursor to ``node``, which may have been added since the last paint."""
        _ = self.last_line  # computes the line numbers of new nodes (move_cursor reads them)
        self.move_cursor(node)

    def move_to_data(self, data: DataT) -> bool:
        """Put the cursor on the node standing for ``data``; False if no loaded node does."""
        for node in self.loaded_nodes():
            if node.data == data:
                self.move_to(node)
                return True
        return False
