"""What the topic tree shows: its nodes and labels for one catalogue, filter and content scan.

Pure (no widget, no Textual): ``TopicTree`` builds one ``TreeContents``
whenever the catalogue, the filter or the content hits change, and only
adds the nodes it describes and moves the cursor. Keeping the decisions here
(which files and days survive a filter, which names a branch lists, how a
label reads) lets them be tested without an App, and keeps the widget about
keys and focus.

A filter is a casefolded substring. It keeps an item whose *name* contains
it (found at once, from the catalogue) or whose *content* does (found later
by the content scan, ``ContentHits``); an item kept only for its content is
drawn in italics, so the user sees why it is there. A file whose own name
matches keeps all its items. Every label is untrusted text and goes through
``safe_line``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rich.text import Text

from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.common.safe import safe_line
from wikimem_tui.common.badges import BADGE_STYLE, DerivedMarks, derived_badge
from wikimem_tui.tree.tree_search import ContentHits
from wikimem_tui.core.words import count

__all__ = ["AUTO_EXPAND", "CHUNK", "Kind", "NodeRef", "TreeContents"]

#: A branch adds its children this many at a time, with a "more…" node for the rest.
CHUNK = 200
#: Under a filter, only this many matching files open by themselves.
AUTO_EXPAND = 20

Kind = Literal["file", "item", "diary", "day", "more", "loading", "none"]


@dataclass(frozen=True)
class NodeRef:
    """What a tree node stands for; ``offset`` is where a "more…" node resumes."""

    kind: Kind
    file: str = ""
    name: str = ""
    offset: int = 0


@dataclass(frozen=True)
class TreeContents:
    """The tree for ``catalogue`` under ``filter_text`` (casefolded; "" for no filter)."""

    catalogue: Catalogue
    filter_text: str = ""
    content_hits: ContentHits | None = None
    """What the content scan found for ``filter_text`` (None while it runs, or without a filter)."""
    derived: DerivedMarks = field(default_factory=DerivedMarks)
    _by_name: dict[str, list[str]] = field(default_factory=dict, compare=False, repr=False)

    def name_matches(self, file: str) -> list[str]:
        """Items of ``file`` whose name contains the filter (memoised: a rebuild asks for every file)."""
        found = self._by_name.get(file)
        if found is None:
            found = [n for n in self.catalogue.names.get(file, []) if self.filter_text in n.casefold()]
            self._by_name[file] = found
        return found

    def name_match_count(self) -> int:
        """How many items matched by name, over the files asked about so far (all, after a rebuild)."""
        return sum(len(names) for names in self._by_name.values())

    def matches(self, file: str) -> list[str] | None:
        """Item names of ``file`` to show under the filter: None for the whole file (lazily), [] for none."""
        if not self.filter_text:
            return None
        names = self.name_matches(file)
        found = set(self.content_hits.items.get(file, ())) if self.content_hits else set()
        if found:
            wanted = set(names) | found
            names = [n for n in self.catalogue.names.get(file, []) if n in wanted]
        if names:
            return names
        return None if self.filter_text in file.casefold() else []

    def days(self) -> list[str]:
        """Diary days to list, newest first (all of them without a filter)."""
        days = list(reversed(self.catalogue.diary_counts))
        if not self.filter_text:
            return days
        found = set(self.content_hits.days) if self.content_hits else set()
        return [d for d in days if self.filter_text in d or d in found]

    def children_of(self, ref: NodeRef) -> list[str]:
        """The names a file or the diary branch lists (days, or item names)."""
        if ref.kind == "diary":
            return self.days()
        matches = self.matches(ref.file)
        return matches if matches is not None else self.catalogue.names.get(ref.file, [])

    def file_label(self, file: str, matches: list[str] | None) -> Text:
        """``name (n)``, or ``name (shown/n)`` under a filter."""
        total = len(self.catalogue.names.get(file, []))
        label = safe_line(file, "bold")
        label.append(f" ({len(matches)}/{total})" if matches is not None else f" ({total})", style="dim")
        return label

    def diary_label(self) -> Text:
        """``diary (7 days)``, or ``diary (1/7 days)`` under a filter, as files say ``shown/total``."""
        total = len(self.catalogue.diary_counts)
        shown = f"{len(self.days())}/{count(total, 'day')}" if self.filter_text else count(total, "day")
        label = Text("diary", style="bold italic")
        label.append(f" ({shown})", style="dim")
        return label

    def child(self, parent: NodeRef, name: str) -> tuple[Text, NodeRef]:
        """The label and ref of the child ``name`` of a file or of the diary."""
        needle = self.filter_text
        if parent.kind == "diary":
            label = Text(name, style="" if not needle or needle in name else "italic")
            label.append(f" ({self.catalogue.diary_counts.get(name, 0)})", style="dim")
            derived = self.derived.days.get(name, 0)
            if derived:
                label.append(f" ↺ {derived} derived", style=BADGE_STYLE)
            return label, NodeRef("day", name=name)
        in_content_only = bool(needle) and needle not in name.casefold() and needle not in parent.file
        label = safe_line(name, "italic" if in_content_only else "")
        if (parent.file, name) in self.derived.items:
            label.append("  ")
            label.append_text(derived_badge())
        return label, NodeRef("item", parent.file, name)

    def empty_note(self) -> Text:
        """What the tree says when the filter left nothing (while the content scan runs, that it does)."""
        scanning = self.content_hits is None
        return Text("no matching names yet (searching content…)" if scanning else "no matches", style="italic dim")
