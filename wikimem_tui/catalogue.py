"""Derived, read-only view of the store for the widgets: names, counts, link graph.

Built in a thread worker and replaced (never mutated) on every change, so a
widget holding the old one while a new one is built never sees a half map.

At scale it must not parse every item into an object (a 1M-item store took
minutes): a file the bulk loader can read (:func:`wikimem.loader.
read_file_blocks`, the files the store writes) gives its names from its
heading lines and its links from one regex pass over its bytes; anything
else is read through the store's parser, which stays the reference (oracle
tests hold both equal).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from wikimem import MemoryStore
from wikimem.loader import block_names, read_file_blocks

__all__ = ["Catalogue", "Key", "norm", "read_file"]

Key = tuple[str, str]

# wikimem.links' pattern, on bytes: neither part holds "[", "]", ":" or a
# newline (all ASCII, so UTF-8 bytes match exactly where the text does).
_LINK_BYTES = re.compile(rb"\[\[([^\[\]:\n]*):([^\[\]:\n]*)\]\]")
_META_LINE = b"<!-- wikimem: "


def norm(name: str) -> str:
    """Item names compare after whitespace runs collapse, as the store does."""
    return " ".join(name.split())


def read_file(store: Any, file: str) -> tuple[list[str], dict[str, list[Key]]]:
    """One RecallFile's item names (file order) and each linking item's targets.

    Targets are ``(file, normalized name)`` in order of appearance; items
    without links are left out.
    """
    read = read_file_blocks(store.file_path(file)) if hasattr(store, "file_path") else None
    if read is None:  # the parser's job (hand edits, repeated headings...), or gone
        items = store.items(file)
        return [item.name for item in items], {
            item.name: [(ln.file, norm(ln.name)) for ln in item.links] for item in items if item.links
        }
    blocks = read[0]
    data = blocks.data
    names = block_names(data)
    links: dict[str, list[Key]] = {}
    if b"[[" not in data:
        return names, links
    starts = blocks.starts
    for match in _LINK_BYTES.finditer(data):
        at = match.start()
        line = data.rfind(b"\n", 0, at) + 1
        # Heading and metadata lines are not content (the loader checked
        # that every comment is the store's metadata line).
        if data.startswith(b"## ", line) or data.startswith(_META_LINE, line):
            continue
        block = bisect_right(starts, at) - 1
        if block < 0:
            continue  # text before the first heading belongs to no item
        target_file = match.group(1).decode("utf-8", "replace").strip()
        target_name = match.group(2).decode("utf-8", "replace").strip()
        if target_file and target_name:
            links.setdefault(names[block], []).append((target_file, norm(target_name)))
    return names, links


def _link(backlinks: dict[Key, list[Key]], owned: set[Key], file: str, per_item: dict[str, list[Key]]) -> None:
    """Add one file's items as sources of their targets' backlinks.

    A list not in ``owned`` may be shared with an older catalogue: it is
    copied once before it changes.
    """
    for name, targets in per_item.items():
        source = (file, name)
        for target in dict.fromkeys(targets):
            if target == source:
                continue
            if target not in owned:
                backlinks[target] = list(backlinks.get(target, ()))
                owned.add(target)
            backlinks[target].append(source)


def _unlink(backlinks: dict[Key, list[Key]], owned: set[Key], file: str, per_item: dict[str, list[Key]]) -> None:
    """Remove one file's items from their targets' backlinks (copies, as in :func:`_link`)."""
    for name, targets in per_item.items():
        source = (file, name)
        for target in dict.fromkeys(targets):
            kept = [s for s in backlinks.get(target, ()) if s != source]
            if kept:
                backlinks[target] = kept
                owned.add(target)
            else:
                backlinks.pop(target, None)
                owned.discard(target)


@dataclass(frozen=True)
class Catalogue:
    """Derived, read-only view of what the store holds: names, counts, link graph.

    Built in a thread worker (never on the UI thread), then replaced, not
    mutated, on every change, so widgets reading the old one while a new
    one is built never see a half-updated map. ``updated`` re-reads only the
    files that changed and moves only their entries of the reverse-link map
    (a 1M-item store has hundreds of thousands of links).
    """

    names: dict[str, list[str]] = field(default_factory=dict)
    #: file -> item name -> its link targets (only items that link).
    links: dict[str, dict[str, list[Key]]] = field(default_factory=dict)
    backlinks: dict[Key, list[Key]] = field(default_factory=dict)
    diary_counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def build(cls, store: MemoryStore) -> Catalogue:
        """Read the whole store (wiki and diary)."""
        return cls().updated(store, full=True)

    def updated(
        self,
        store: MemoryStore,
        files: Any = (),
        dates: Any = (),
        *,
        full: bool = False,
    ) -> Catalogue:
        """A new catalogue with ``files`` and diary ``dates`` (all of them when ``full``) re-read from disk.

        Files and days that vanished from disk are dropped either way.
        """
        names = {} if full else dict(self.names)
        links = {} if full else dict(self.links)
        backlinks = {} if full else dict(self.backlinks)
        owned: set[Key] = set()  # backlink lists made by this update (the rest are the old catalogue's)
        diary_counts = {} if full else dict(self.diary_counts)
        present = set(store.files())
        known_days = set(store.diary.dates())
        if full:
            files, dates = present, known_days
        for file in set(files) | (names.keys() - present):
            names.pop(file, None)
            _unlink(backlinks, owned, file, links.pop(file, {}))
            if file in present:
                names[file], file_links = read_file(store, file)
                if file_links:
                    links[file] = file_links
                    _link(backlinks, owned, file, file_links)
        wanted = set(dates) | (diary_counts.keys() - known_days)
        for date in wanted:
            diary_counts.pop(date, None)
        diary_counts.update(store.diary.counts(sorted(wanted & known_days)))
        return Catalogue(dict(sorted(names.items())), links, backlinks, dict(sorted(diary_counts.items())))

    def links_of(self, file: str, name: str) -> list[Key]:
        """``file:name``'s link targets, in order (``[]`` when it has none or is unknown)."""
        return self.links.get(file, {}).get(norm(name), [])

    def has(self, file: str, name: str) -> bool:
        """Whether ``file:name`` exists (names compared normalized)."""
        return norm(name) in self.names.get(file, ())

    def count(self, file: str) -> int:
        """Items in ``file`` (0 when unknown)."""
        return len(self.names.get(file, ()))

    def backlinks_of(self, file: str, name: str) -> list[Key]:
        """Items whose content links to ``file:name``, in file order."""
        return sorted(self.backlinks.get((file, norm(name)), []))

    def all_items(self) -> list[Key]:
        """Every ``(file, name)`` in file order."""
        return [(file, name) for file, names in self.names.items() for name in names]
