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

from collections.abc import Callable, Iterator
from contextlib import contextmanager
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

    @contextmanager
    def adding(self) -> Iterator[None]:
        """Add many nodes with one rebuild request: Textual invalidates the whole tree per node added."""
        self._adding += 1
        try:
            yield
        finally:
            self._adding -= 1
            if not self._adding:
                super()._invalidate()

    def _invalidate(self) -> None:
        if not self._adding:
            super()._invalidate()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fill: Callable[[TreeNode[DataT]], None] | None = None
        """Called with a branch about to expand, so its children are added before, not after."""
        self._adding = 0

    def get_label_width(self, node: TreeNode[DataT]) -> int:
        """The label's width without rendering it: the same number ``render_label`` would give.

        Textual's default renders every label (copy, stylize, assemble) to
        measure it, and does so for *every* line each time the tree's lines
        are rebuilt, which is after any node is added or expanded. With the
        topic tree's 5,000 file nodes at 1M items that made expanding any
        file cost ~1 s, whatever its size. The icon and the label's own
        width are all ``render_label`` puts on the line; the label's is
        kept on the node until its label is replaced.
        """
        icon = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE) if node.allow_expand else ""
        label = node._label  # the processed Text (``label`` is typed str | Text)
        known: tuple[Text, int] | None = getattr(node, "_safe_width", None)
        if known is None or known[0] is not label:
            known = (label, label.cell_len)
            setattr(node, "_safe_width", known)  # noqa: B010 (TreeNode declares no such attribute)
        return cell_len(icon) + known[1]

    def _toggle_node(self, node: TreeNode[DataT]) -> None:
        """Space or a click on the icon: ``fill`` the branch first, so the lines are rebuilt once.

        Filled afterwards (on ``NodeExpanded``), the tree rebuilt its lines
        for the empty branch and again for its children: twice a walk of
        every line (5,000 files at 1M items).
        """
        if self.fill is not None and node.allow_expand and not node.is_expanded:
            self.fill(node)
        super()._toggle_node(node)

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
