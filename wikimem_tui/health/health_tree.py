"""The health pane's findings tree: severity, then code, then the findings, filled lazily.

A 100k-item store can yield tens of thousands of findings (orphans are
info), so the tree holds only the severity and code nodes plus the children
of the groups the user opened, added ``CHUNK`` at a time behind a "more…"
node. Which groups are open is remembered by severity and code, so a re-lint
or a new filter refills the tree without closing what the user opened or
losing the cursor. Labels are built as ``Text`` (``SafeTree``): finding
messages quote memory text. A row wider than the pane ends in "…" (the pane
shows the highlighted one whole below the tree).

Enter on a group opens or closes it and on "more…" loads the next chunk;
enter on a finding is left to the pane (the ``NodeSelected`` bubbles), which
knows where a finding leads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rich.style import Style
from rich.text import Text
from textual import on
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from wikimem.lint import CODES, SEVERITIES, Finding
from wikimem_tui.health.health_model import PLURAL, SEVERITY_STYLES, Group, finding_label
from wikimem_tui.common.safe_tree import SafeTree

__all__ = ["AUTO_OPEN", "CHUNK", "FindingTree", "HealthRef"]

#: Findings added to an opened group at a time (a "more…" node loads the next ones).
CHUNK = 200
#: Error and warning groups up to this size open by themselves; bigger ones (and infos) stay closed.
AUTO_OPEN = 30


@dataclass(frozen=True)
class HealthRef:
    """What a tree node stands for; ``offset`` is where a "more…" node resumes."""

    kind: Literal["severity", "code", "finding", "more", "none"]
    severity: str = ""
    code: str = ""
    finding: Finding | None = None
    offset: int = 0


def _key(ref: HealthRef) -> str:
    return f"s:{ref.severity}" if ref.kind == "severity" else f"c:{ref.severity}:{ref.code}"


class FindingTree(SafeTree[HealthRef]):
    """The findings, grouped; labels are built as Text, never parsed as markup."""

    HELP_TITLE = "Findings"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("findings", id=id)
        self.show_root = False
        self.auto_expand = False
        self.guide_depth = 2
        self.groups: dict[str, list[Group]] = {}
        """What the tree shows: severity -> code groups (after the pane's filter)."""
        self._opened: dict[str, bool] = {}

    def show(self, groups: dict[str, list[Group]], empty_note: str) -> None:
        """Refill with ``groups``, keeping opened groups and the cursor; ``empty_note`` when there are none."""
        self.groups = groups
        cursor = self.cursor_node.data if self.cursor_node is not None else None
        self.clear()
        for severity in SEVERITIES:
            groups_here = self.groups.get(severity, [])
            if not groups_here:
                continue
            shown = sum(len(g.shown) for g in groups_here)
            total = sum(g.total for g in groups_here)
            label = Text(PLURAL[severity], style=SEVERITY_STYLES[severity])
            label.append(f" {shown}" if shown == total else f" {shown}/{total}", style="bold")
            node = self.root.add(label, HealthRef("severity", severity), expand=self._is_open(f"s:{severity}", True))
            for group in groups_here:
                key = f"c:{severity}:{group.code}"
                default = severity != "info" and len(group.shown) <= AUTO_OPEN
                label = Text(group.code, style="bold")
                n = len(group.shown)
                label.append(f" {n}" if n == group.total else f" {n}/{group.total}")
                label.append(f"  {CODES[group.code].what}" if group.code in CODES else "", style="dim")
                child = node.add(label, HealthRef("code", severity, group.code), expand=False)
                if self._is_open(key, default):
                    self._add_chunk(child, 0)
                    child.expand()
        if not self.root.children:
            self.root.add_leaf(Text(empty_note, style="italic dim"), HealthRef("none"))
        if cursor is None or not self.move_to_data(cursor):
            first = self._first_finding()
            if first is not None:
                self.move_to(first)

    def render_label(self, node: TreeNode[HealthRef], base_style: Style, style: Style) -> Text:
        """The row's label, cut with "…" where the pane ends (the pane shows the highlighted row whole below).

        Textual crops a row at the edge without a sign, so a cut message read
        as a complete one. The room is the width less the row's guides
        (``guide_depth`` per level below the severities; the root is hidden).
        """
        text = super().render_label(node, base_style, style)
        depth, parent = 0, node.parent
        while parent is not None:
            depth, parent = depth + 1, parent.parent
        room = self.scrollable_content_region.width - max(0, depth - 1) * self.guide_depth
        if 0 < room < text.cell_len:
            text.truncate(room, overflow="ellipsis")
        return text

    def group(self, ref: HealthRef) -> Group | None:
        """The code group a node belongs to (None if the filter no longer shows it)."""
        return next((g for g in self.groups.get(ref.severity, []) if g.code == ref.code), None)

    def _is_open(self, key: str, default: bool) -> bool:
        return self._opened.get(key, default)

    def _add_chunk(self, node: TreeNode[HealthRef], offset: int) -> None:
        ref = node.data
        group = self.group(ref) if ref is not None else None
        if ref is None or group is None:
            return
        for finding in group.shown[offset:offset + CHUNK]:
            node.add_leaf(finding_label(finding), HealthRef("finding", ref.severity, ref.code, finding))
        rest = len(group.shown) - offset - CHUNK
        if rest > 0:
            node.add_leaf(Text(f"more… ({rest} left)", style="italic dim"),
                          HealthRef("more", ref.severity, ref.code, offset=offset + CHUNK))

    def _first_finding(self) -> TreeNode[HealthRef] | None:
        nodes = self.loaded_nodes()
        return next((n for n in nodes if n.data and n.data.kind == "finding"), nodes[0] if nodes else None)

    @on(Tree.NodeExpanded)
    def _expanded(self, event: Tree.NodeExpanded[HealthRef]) -> None:
        event.stop()
        ref = event.node.data
        if ref is None:
            return
        self._opened[_key(ref)] = True
        if ref.kind == "code" and not event.node.children:
            self._add_chunk(event.node, 0)

    @on(Tree.NodeCollapsed)
    def _collapsed(self, event: Tree.NodeCollapsed[HealthRef]) -> None:
        event.stop()
        if event.node.data is not None:
            self._opened[_key(event.node.data)] = False

    @on(Tree.NodeSelected)
    def _selected(self, event: Tree.NodeSelected[HealthRef]) -> None:
        """Groups open and close, "more…" loads the next chunk; a finding is the pane's to open."""
        node = event.node
        ref = node.data
        if ref is None or ref.kind == "finding":
            return
        event.stop()
        if ref.kind in ("severity", "code"):
            node.toggle()
        elif ref.kind == "more" and node.parent is not None:
            parent = node.parent
            node.remove()
            self._add_chunk(parent, ref.offset)
