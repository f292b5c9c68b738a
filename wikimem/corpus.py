"""The indexed wiki: which doc id is which item of which file, and file stats.

Design constraint: the markdown is the truth and the index is derived, so
the corpus must turn "this file now holds these items" into the fewest index
writes. Replacing a file is a diff keyed by item name: an unchanged item
keeps its doc id (only its object is swapped, provenance is not indexed), so
a store write that rewrote a 200-item file re-tokenizes one item. Doc ids are
never reused (the index's postings rely on ascending ids); tombstones are
dropped by :meth:`WikiCorpus.compacted`, a rebuild without file IO.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from operator import attrgetter

from wikimem.bm25 import InvertedIndex
from wikimem.models import RecallItem
from wikimem.scan import ScannedTexts

__all__ = ["WikiCorpus"]


class WikiCorpus:
    """The indexed wiki: items by doc id, per-file name -> doc maps, file stats.

    Replacing a file is a diff, not a rebuild: an item whose name and
    content are unchanged keeps its doc id (its item object is swapped, since
    provenance is not indexed), so one ``add()`` re-tokenizes one item even
    though the store rewrote a 200-item file.
    """

    def __init__(
        self,
        tokenize: Callable[[str], list[str]],
        scan: Callable[[list[str]], ScannedTexts | None] | None = None,
    ) -> None:
        self.index = InvertedIndex()
        self.items: list[RecallItem | None] = []
        self.files: dict[str, dict[str, int]] = {}
        #: file -> (mtime_ns, size) as last read: the change detector.
        self.stats: dict[str, tuple[int, int] | None] = {}
        #: Bumped on every change of indexed text (vector caches sync on it).
        self.version = 0
        self._tokenize = tokenize
        #: Bulk scanner matching ``tokenize`` for cold loads, or None (see
        #: :func:`wikimem.scan.scan_texts`; bigram mode only).
        self._scan = scan

    def __len__(self) -> int:
        return self.index.n_alive

    def text(self, item: RecallItem) -> str:
        return f"{item.name}\n{item.content}"

    def tokens(self, item: RecallItem) -> list[str]:
        return self._tokenize(self.text(item))

    def doc(self, file: str, name: str) -> int | None:
        return self.files.get(file, {}).get(name)

    def live(self) -> Iterator[tuple[int, RecallItem]]:
        return ((d, it) for d, it in enumerate(self.items) if it is not None)

    def load_file(self, file: str, items: list[RecallItem], stat: tuple[int, int] | None) -> None:
        """Cold path: index a file not indexed yet (in one batch when it can be scanned)."""
        names = self.files.setdefault(file, {})
        scanned = self._scan(list(map(self.text, items))) if self._scan and items and self.index.cold else None
        if scanned is not None:
            docs = self.index.add_scanned(scanned)
            names.update(zip(map(attrgetter("name"), items), docs))
            self.items.extend(items)
        else:
            add = self.index.add_bulk
            for item in items:
                names[item.name] = add(self.tokens(item))
                self.items.append(item)
        if not names:
            del self.files[file]
        self.stats[file] = stat
        self.version += 1

    def update_file(self, file: str, items: list[RecallItem], stat: tuple[int, int] | None) -> bool:
        """Make ``file``'s docs match ``items``; True when indexed text changed."""
        old = self.files.pop(file, {})
        new: dict[str, int] = {}
        changed = False
        for item in items:
            doc = old.pop(item.name, None)
            current = self.items[doc] if doc is not None else None
            if current is not None and current.content == item.content:
                self.items[doc] = item
            else:
                if doc is not None:
                    self._drop(doc)
                doc = self.index.add(self.tokens(item))
                self.items.append(item)
                changed = True
            new[item.name] = doc
        for doc in old.values():
            self._drop(doc)
            changed = True
        if new:
            self.files[file] = new
        if stat is None:
            self.stats.pop(file, None)
        else:
            self.stats[file] = stat
        if changed:
            self.version += 1
        return changed

    def _drop(self, doc: int) -> None:
        item = self.items[doc]
        if item is not None:
            self.index.remove(doc, self.tokens(item))
            self.items[doc] = None

    def compacted(self) -> WikiCorpus:
        """A fresh corpus with the same items and no tombstones (no file IO)."""
        fresh = WikiCorpus(self._tokenize, self._scan)
        for file, names in self.files.items():
            fresh.load_file(file, [self.items[d] for d in names.values()], self.stats.get(file))
        fresh.version = self.version + 1
        return fresh
