"""The indexed wiki: which doc id is which item of which file, and file stats.

Design constraint: the markdown is the truth and the index is derived, so
the corpus must turn "this file now holds these items" into the fewest index
writes. Replacing a file is a diff keyed by item name: an unchanged item
keeps its doc id (only its object is swapped, provenance is not indexed), so
a store write that rewrote a 200-item file re-tokenizes one item. Doc ids are
never reused (the index's postings rely on ascending ids); tombstones are
dropped by :meth:`WikiCorpus.compacted`, a rebuild without file IO.

Index terms are ``tokenize()``'s tokens mapped by the analyzer
(:mod:`wikimem.index.terms.analyzer`) on every path: item by item, and the bulk scan
forms (``terms`` of :func:`wikimem.index.forms.scan.scan_joined`), so both index the same terms.

At scale the corpus holds no object per item: a cold load keeps each
file's text and block offsets (:class:`~wikimem.index.corpus.items.ItemTable`), items are parsed when a
query shows them, and name -> doc maps are made per file on demand.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import Any

from wikimem.index.terms.analyzer import Analyzer
from wikimem.index.scoring.bm25 import InvertedIndex
from wikimem.disk.loader import FileBlocks, block_names, read_file_blocks
from wikimem.index.corpus.items import ItemTable, item_at
from wikimem.store.transaction import Identity
from wikimem.models import RecallItem, item_text
from wikimem.index.forms.scan import DOC_BREAK, LatinTerms, ScannedTexts, scan_joined
from wikimem.index.forms.words import WordForms
from wikimem.tokenize import words_state

__all__ = ["ItemTable", "WikiCorpus", "item_at"]

#: Name -> doc maps of bulk-loaded files kept for link lookups (a few per query).
_NAME_MAPS_KEPT = 256
#: Result rows' terms kept (:meth:`WikiCorpus.tokens` with ``remember``): a few pages of rows.
_REMEMBERED = 4096
#: Items per index segment on a bulk load: large enough that a term's first
#: search pays few per-segment steps, small enough to scan in a few ms.
SEGMENT_DOCS = 4096


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
        scan: Callable[[list[str], LatinTerms | None], ScannedTexts | None] | None = None,
        analyzer: Analyzer | None = None,
        *,
        words: WordForms | None = None,
    ) -> None:
        self.index = InvertedIndex()
        self.items = ItemTable()
        #: file -> (mtime_ns, size) as last read: the change detector.
        self.stats: dict[str, tuple[int, int] | None] = {}
        #: file -> its identity right after this process's last write, when the
        #: re-read that applied it found the file so (see
        #: :mod:`wikimem.freshness.catch_up`; dropped on any other re-read).
        self.identities: dict[str, Identity | None] = {}
        #: Bumped on every change of indexed text (vector caches sync on it).
        self.version = 0
        self._tokenize = tokenize
        #: Maps tokens to index terms (None: tokens are the terms).
        self.analyzer = analyzer
        #: Bulk scanner matching ``tokenize`` for cold loads, or None (see
        #: :func:`wikimem.index.forms.scan.scan_texts`; bigram mode only).
        self._scan = scan
        #: jieba's words coded into the scan forms (``scan`` is then its
        #: :meth:`~wikimem.index.forms.words.WordForms.scan_texts`), or None: bigram mode.
        self.words = words
        if words is not None:
            self.index.forms.form_term = words.form_term
        #: name -> doc of files loaded item by item or written since.
        self._names: dict[str, dict[str, int]] = {}
        #: Files loaded in bulk and not written since: their first doc and
        #: blocks (consecutive docs); their name maps are made on demand (and
        #: a few kept).
        self._bulk: dict[str, tuple[int, FileBlocks]] = {}
        self._name_maps: OrderedDict[str, dict[str, int]] = OrderedDict()
        #: Result rows' terms by (text, jieba state): see :meth:`tokens`.
        self._remembered: dict[tuple[str, Any], tuple[str, ...]] = {}

    def __len__(self) -> int:
        return self.index.n_alive

    def text(self, item: RecallItem) -> str:
        return item_text(item.name, item.content)

    def tokens(self, item: RecallItem, *, remember: bool = False) -> list[str]:
        """The item's index terms (analyzed).

        ``remember``: a result row's terms, asked again by the next query
        (its rows are mostly the last one's), kept per text and per jieba
        dictionary state (:func:`wikimem.tokenize.words_state`), a bounded
        number of them; a load or a write never keeps what it tokenizes.
        """
        if not remember:
            return self.terms(self.text(item))
        key = (self.text(item), words_state())
        kept = self._remembered.get(key)
        if kept is None:
            if len(self._remembered) >= _REMEMBERED:
                self._remembered.clear()
            kept = self._remembered[key] = tuple(self.terms(key[0]))
        return list(kept)

    def terms(self, text: str) -> list[str]:
        """A text's index terms, as the index holds them (a diary entry's too)."""
        tokens = self._tokenize(text)
        return tokens if self.analyzer is None else self.analyzer.terms(tokens)

    def _latin_terms(self) -> LatinTerms | None:
        """What the scan forms' latin tokens become (None: themselves); see :func:`wikimem.index.forms.scan.scan_joined`."""
        if self.analyzer is None or not self.analyzer.stems:
            return None
        return self.analyzer.latin_terms

    def files(self) -> list[str]:
        """The indexed RecallFiles."""
        return [*self._names, *self._bulk]

    def doc(self, file: str, name: str) -> int | None:
        return self._name_map(file).get(name)

    def names(self, file: str) -> list[str]:
        """``file``'s indexed item names, in the file's order."""
        return list(self._name_map(file))

    def _name_map(self, file: str) -> dict[str, int]:
        names = self._names.get(file)
        if names is not None:
            return names
        bulk = self._bulk.get(file)
        if bulk is None:
            return {}
        names = self._name_maps.get(file)
        if names is None:
            base, blocks = bulk  # loaded blocks have no repeated names: the load checked
            names = dict(zip(block_names(blocks.data), range(base, base + blocks.count)))
            self._name_maps[file] = names
            if len(self._name_maps) > _NAME_MAPS_KEPT:
                self._name_maps.popitem(last=False)
        return names

    def neighbours(self, doc: int, window: int) -> list[int]:
        """Live docs within ``window`` places of ``doc`` in its file's order (``doc`` itself left out)."""
        item = self.items[doc]
        if item is None:
            return []
        bulk = self._bulk.get(item.file)
        if bulk is not None:  # a bulk-read file, never changed since: consecutive docs, all live
            base, blocks = bulk
            lo, hi = max(base, doc - window), min(base + blocks.count, doc + window + 1)
            return [d for d in range(lo, hi) if d != doc]
        order = list(self._name_map(item.file).values())
        if doc not in order:
            return []
        at = order.index(doc)
        return [d for d in order[max(0, at - window) : at + window + 1] if d != doc]

    def live(self) -> Iterator[tuple[int, RecallItem]]:
        items = self.items
        return ((d, it) for d, it in ((d, items[d]) for d in range(len(items))) if it is not None)

    def load(self, store: Any, progress: Callable[[int, int], None] | None = None) -> None:
        """Cold load of every RecallFile of ``store``, calling ``progress(done, total)`` per file.

        With a bulk scanner, files are read in bulk (:func:`wikimem.disk.loader.
        read_file_blocks`) and scanned a group at a time (one index segment
        per ~``SEGMENT_DOCS`` items: fewer, larger C-level passes for the
        load and for each term's first search); a file that needs the
        parser is read through the store.
        """
        files = store.files()
        bulk = self._scan is not None and hasattr(store, "file_path")
        group: list[tuple[str, FileBlocks, bytes, tuple[int, int] | None]] = []
        size = 0
        words = self.words
        if words is not None:
            words.begin()
        if progress is not None:
            progress(0, len(files))
        for done, file in enumerate(files, 1):
            stat = store.file_stat(file)
            read = read_file_blocks(store.file_path(file)) if bulk else None
            if read is not None:
                group.append((file, *read, stat))
                size += read[0].count
            if group and (read is None or size >= SEGMENT_DOCS):  # doc ids in load order
                self._load_group(group, store)
                group, size = [], 0
            if read is None:
                self.load_file(file, store.file_items(file), stat)
            if progress is not None:
                progress(done, len(files))
        if group:
            self._load_group(group, store)
        if words is not None:
            words.end()
        self.index.loaded(len(self.items))

    def _load_group(self, group: list[tuple[str, FileBlocks, bytes, tuple[int, int] | None]], store: Any) -> None:
        """Index files read in bulk as one segment, from their scan (item by item if they cannot be scanned, or the index is no longer cold)."""
        n_texts = sum(blocks.count for _, blocks, _, _ in group)
        scanned: ScannedTexts | None = None
        if self.index.cold:
            if self.words is None:
                scanned = scan_joined(DOC_BREAK.encode().join(data for _, _, data, _ in group), n_texts, self._latin_terms())
            else:
                scanned = self.words.scan_files([data for _, _, data, _ in group], n_texts, self._latin_terms())
        if scanned is None:
            for file, _, _, stat in group:
                self.load_file(file, store.file_items(file), stat)
            return
        docs = self.index.add_scanned(scanned)
        for file, blocks, _, stat in group:
            self._bulk[file] = (self.items.add_blocks(file, blocks).start, blocks)
            self.stats[file] = stat
        if len(self.items) != docs.stop:
            raise RuntimeError("doc ids of the index and the item table diverged")
        self.version += 1

    def load_file(self, file: str, items: list[RecallItem], stat: tuple[int, int] | None) -> None:
        """Cold path: index a file's items (in one batch when they can be scanned)."""
        self.load_files([(file, items, stat)])

    def load_files(self, group: list[tuple[str, list[RecallItem], tuple[int, int] | None]]) -> None:
        """Cold path: index several files' items, ``(file, items, stat)`` each, in one batch when they can be scanned.

        One scan and one index segment for the whole group: many small files
        (a diary's days) then cost what one large file costs.
        """
        scan = self._scan
        texts = [self.text(item) for _, items, _ in group for item in items]
        scanned = scan(texts, self._latin_terms()) if scan and texts and self.index.cold else None
        docs: Iterator[int] = iter(())
        if scanned is not None:
            docs = iter(self.index.add_scanned(scanned))
        for file, items, stat in group:
            names = self._names.setdefault(file, {})
            if scanned is not None:
                names.update(zip(map(attrgetter("name"), items), docs))  # zip stops at the names: each file takes its own
                for item in items:
                    self.items.append(item)
            else:
                add = self.index.add_bulk
                for item in items:
                    names[item.name] = add(self.tokens(item))
                    self.items.append(item)
            if not names:
                del self._names[file]
            self.stats[file] = stat
        self.version += 1

    def update_file(self, file: str, items: list[RecallItem], stat: tuple[int, int] | None) -> bool:
        """Make ``file``'s docs match ``items``; True when indexed text changed."""
        self.identities.pop(file, None)
        old = self._forget(file)
        new: dict[str, int] = {}
        changed = False
        for item in items:
            new[item.name], fresh = self._put(item, old.pop(item.name, None))
            changed |= fresh
        for doc in old.values():
            self._drop(doc)
            changed = True
        return self._settle(file, new, stat, changed)

    def _forget(self, file: str) -> dict[str, int]:
        """Take ``file``'s name -> doc map out of every holder (the caller puts the new one back)."""
        old = dict(self._name_map(file))
        self._names.pop(file, None)
        self._bulk.pop(file, None)
        self._name_maps.pop(file, None)
        return old

    def _put(self, item: RecallItem, doc: int | None) -> tuple[int, bool]:
        """``item`` at ``doc`` (its old doc, if any): kept when its text is unchanged; True when re-indexed."""
        current = self.items[doc] if doc is not None else None
        if doc is not None and current is not None and current.content == item.content:
            self.items[doc] = item  # provenance is not indexed: swap the object only
            return doc, False
        if doc is not None:
            self._drop(doc)
        doc = self.index.add(self.tokens(item))
        self.items.append(item)
        return doc, True

    def _settle(self, file: str, new: dict[str, int], stat: tuple[int, int] | None, changed: bool) -> bool:
        if new:
            self._names[file] = new
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
        fresh = type(self)(self._tokenize, self._scan, self.analyzer, words=self.words)
        for file in self.files():
            docs = self._name_map(file).values()
            fresh.load_file(file, [item for item in map(self.items.__getitem__, docs) if item is not None], self.stats.get(file))
        fresh.version = self.version + 1
        fresh.identities = dict(self.identities)
        return fresh
