"""Derived, read-only view of the store for the widgets: names, counts, link graph.

Built in a thread worker and replaced (never mutated) on every change, so a
widget holding the old one while a new one is built never sees a half map.

At scale it must not parse every item into an object (a 1M-item store took
minutes): a file the bulk loader can read (:func:`wikimem.loader.
read_file_blocks`, the files the store writes) gives its names from its
heading lines and its links from one regex pass over its bytes; anything
else is read through the store's parser, which stays the reference (oracle
tests hold both equal).

Diary entries link too (``[[people:priya]]`` in what the agent noted), and
they are listed wherever backlinks are (``diary_backlinks_of``), apart from
the wiki's: a rename, move or delete can rewrite a wiki item's links but
never a diary entry's (the diary is append-only evidence), so those links
will dangle and the app says so. A day is parsed only when its bytes hold
``[[``; an entry is named by its ``HH:MM[#n]`` (``wikimem.diary_id``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from wikimem import MemoryStore, block_names, find_links, read_file_blocks

__all__ = ["Catalogue", "DiaryKey", "Key", "norm", "read_day", "read_file"]

Key = tuple[str, str]
#: ``(date, HH:MM[#n])``: one diary entry (``EntryId.key``; two entries of a minute differ).
DiaryKey = tuple[str, str]

# A bracket pair on one line, on bytes (all ASCII, so UTF-8 bytes match
# exactly where the text does); wikimem.find_links reads what it spells.
_LINK_BYTES = re.compile(rb"\[\[[^\[\]\n]*\]\]")
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
        parsed = {item.name: _targets(item.content, file) for item in items}
        return [item.name for item in items], {name: targets for name, targets in parsed.items() if targets}
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
        targets = _targets(match.group(0).decode("utf-8", "replace"), file)
        if targets:
            links.setdefault(names[block], []).extend(targets)
    return names, links


def _targets(text: str, here: str | None) -> list[Key]:
    """The items ``text`` links to, in either spelling (a link to a whole RecallFile is not an item)."""
    return [(ref.file, norm(ref.name)) for ref in find_links(text, here=here) if ref.name is not None]


def read_day(store: Any, date: str) -> dict[str, list[Key]]:
    """Each linking entry of the diary day ``date`` (by ``HH:MM[#n]``) and its link targets, in order."""
    try:
        data = store.diary.path(date).read_bytes()
    except (OSError, ValueError):
        return {}
    if b"[[" not in data:
        return {}
    parsed = {entry.entry_id.key: _targets(entry.content, None) for entry in store.diary.day(date)}
    return {key: targets for key, targets in parsed.items() if targets}


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


def _diary_order(key: DiaryKey) -> tuple[str, str, int]:
    """Chronological: day, minute, ordinal (``14:30`` < ``14:30#2`` < ``14:30#10``)."""
    time, _, ordinal = key[1].partition("#")
    return (key[0], time, int(ordinal) if ordinal.isdigit() else 1)


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
    #: date -> entry ``HH:MM[#n]`` -> its link targets (only entries that link).
    diary_links: dict[str, dict[str, list[Key]]] = field(default_factory=dict)
    #: target -> the diary entries ``(date, HH:MM[#n])`` linking to it (kept apart: they are never rewritten).
    diary_backlinks: dict[Key, list[DiaryKey]] = field(default_factory=dict)

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
        wanted = set(dates) | (diary_counts.keys() - known_days) | (self.diary_links.keys() - known_days)
        for date in wanted:
            diary_counts.pop(date, None)
        diary_counts.update(store.diary.counts(sorted(wanted & known_days)))
        diary_links = {} if full else dict(self.diary_links)
        diary_backlinks = {} if full else dict(self.diary_backlinks)
        day_owned: set[Key] = set()
        for date in wanted:
            # The same reverse-map bookkeeping as a RecallFile's, with the day as the "file".
            _unlink(diary_backlinks, day_owned, date, diary_links.pop(date, {}))
            day_links = read_day(store, date) if date in known_days else {}
            if day_links:
                diary_links[date] = day_links
                _link(diary_backlinks, day_owned, date, day_links)
        return Catalogue(dict(sorted(names.items())), links, backlinks, dict(sorted(diary_counts.items())),
                         diary_links, diary_backlinks)

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

    def diary_backlinks_of(self, file: str, name: str) -> list[DiaryKey]:
        """Diary entries ``(date, HH:MM[#n])`` whose text links to ``file:name``, oldest first.

        Listed beside :meth:`backlinks_of` wherever backlinks are, never
        merged into it: a rename or move rewrites the wiki's links, while
        the diary is append-only, so these links dangle afterwards.
        """
        return sorted(self.diary_backlinks.get((file, norm(name)), []), key=_diary_order)

    def all_items(self) -> list[Key]:
        """Every ``(file, name)`` in file order."""
        return [(file, name) for file, names in self.names.items() for name in names]
