"""Derived, read-only view of the store for the widgets: names, counts, link graph.

Built in a thread worker and replaced (never mutated) on every change, so a
widget holding the old one while a new one is built never sees a half map.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wikimem import MemoryStore

__all__ = ["Catalogue", "Key", "norm"]

Key = tuple[str, str]


def norm(name: str) -> str:
    """Item names compare after whitespace runs collapse, as the store does."""
    return " ".join(name.split())


@dataclass(frozen=True)
class Catalogue:
    """Derived, read-only view of what the store holds: names, counts, link graph.

    Built in a thread worker from ``store.items()`` (never on the UI thread),
    then replaced, not mutated, on every change, so widgets reading the old
    one while a new one is built never see a half-updated map. ``updated``
    re-reads only the files that changed; the reverse-link map is recomputed
    from the per-item forward links, which costs one pass over link lists,
    not a re-read of the store.
    """

    names: dict[str, list[str]] = field(default_factory=dict)
    links: dict[Key, list[Key]] = field(default_factory=dict)
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
        diary_counts = {} if full else dict(self.diary_counts)
        present = set(store.files())
        known_days = set(store.diary.dates())
        if full:
            files, dates = present, known_days
        for file in set(files) | (names.keys() - present):
            for key in [k for k in links if k[0] == file]:
                del links[key]
            names.pop(file, None)
            if file not in present:
                continue
            items = store.items(file)
            names[file] = [item.name for item in items]
            for item in items:
                links[(file, norm(item.name))] = [(ln.file, norm(ln.name)) for ln in item.links]
        wanted = set(dates) | (diary_counts.keys() - known_days)
        for date in wanted:
            diary_counts.pop(date, None)
        diary_counts.update(store.diary.counts(sorted(wanted & known_days)))
        backlinks: dict[Key, list[Key]] = {}
        for source, targets in links.items():
            for target in dict.fromkeys(targets):
                if target != source:
                    backlinks.setdefault(target, []).append(source)
        return Catalogue(dict(sorted(names.items())), links, backlinks, dict(sorted(diary_counts.items())))

    def has(self, file: str, name: str) -> bool:
        """Whether ``file:name`` exists (names compared normalized)."""
        return (file, norm(name)) in self.links

    def count(self, file: str) -> int:
        """Items in ``file`` (0 when unknown)."""
        return len(self.names.get(file, ()))

    def backlinks_of(self, file: str, name: str) -> list[Key]:
        """Items whose content links to ``file:name``, in file order."""
        return sorted(self.backlinks.get((file, norm(name)), []))

    def all_items(self) -> list[Key]:
        """Every ``(file, name)`` in file order."""
        return [(file, name) for file, names in self.names.items() for name in names]
