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

from typing import TypeVar

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
        return text.split()[0] if text.plain else text

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
