"""The indexed wiki: which doc id is which item of which file, and file stats.

Design constraint: the markdown is the truth and the index is derived, so
the corpus must turn "this file now holds these items" into the fewest index
writes. Replacing a file is a diff keyed by item name: an unchanged item
keeps its doc id (only its object is swapped, provenance is not indexed), so
a store write that rewrote a 200-item file re-tokenizes one item. Doc ids are
never reused (the index's postings rely on ascending ids); tombstones are
dropped by :meth:`WikiCorpus.compacted`, a rebuild without file IO. A write
of this process need not even be re-read: :meth:`WikiCorpus.apply_writes`
takes the store's own block edits (the re-read and re-parse of a 200-item
file were most of a query after one ``add()``) when their chain of file
identities shows nothing else wrote the file.

Index terms are ``tokenize()``'s tokens mapped by the analyzer
(:mod:`wikimem.index.analyzer`) on every path: item by item, and the bulk scan
forms (``terms`` of :func:`wikimem.index.scan.scan_joined`), so both index the same terms.

At scale the corpus holds no object per item: a cold load keeps each
file's text and block offsets (:class:`~wikimem.index.items.ItemTable`), items are parsed when a
query shows them, and name -> doc maps are made per file on demand.
"""

from __future__ import annotations

import hashlib
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from operator import attrgetter
from typing import Any

from wikimem.index.analyzer import Analyzer
from wikimem.index.bm25 import InvertedIndex
from wikimem.index.segment_cache import segment_key
from wikimem.disk.blocks import Block
from wikimem.disk.loader import FileBlocks, block_names, read_file_blocks
from wikimem.index.items import ItemTable, item_at
from wikimem.disk.splice import BlockEdit, RawBlock
from wikimem.store.transaction import FileWrite, Identity
from wikimem.models import RecallItem, item_text
from wikimem.index.postings_cache import FORMAT as POSTINGS_FORMAT
from wikimem.index.scan import DOC_BREAK, LatinTerms, ScannedTexts, scan_joined

__all__ = ["ItemTable", "WikiCorpus", "item_at"]

#: Name -> doc maps of bulk-loaded files kept for link lookups (a few per query).
_NAME_MAPS_KEPT = 256
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
    ) -> None:
        self.index = InvertedIndex()
        self.items = ItemTable()
        #: file -> (mtime_ns, size) as last read: the change detector.
        self.stats: dict[str, tuple[int, int] | None] = {}
        #: file -> its identity right after the store write last applied by
        #: :meth:`apply_write` (dropped when the file is re-read): what the
        #: next write must have found for its edits to apply.
        self.identities: dict[str, Identity | None] = {}
        #: Bumped on every change of indexed text (vector caches sync on it).
        self.version = 0
        self._tokenize = tokenize
        #: Maps tokens to index terms (None: tokens are the terms).
        self.analyzer = analyzer
        #: Bulk scanner matching ``tokenize`` for cold loads, or None (see
        #: :func:`wikimem.index.scan.scan_texts`; bigram mode only).
        self._scan = scan
        #: name -> doc of files loaded item by item or written since.
        self._names: dict[str, dict[str, int]] = {}
        #: Files loaded in bulk and not written since: (first doc id, blocks);
        #: their name maps are made on demand (and a few kept).
        self._bulk: dict[str, tuple[int, FileBlocks]] = {}
        self._name_maps: OrderedDict[str, dict[str, int]] = OrderedDict()
        #: What the cold load's segments were made of (see :meth:`load`); the
        #: postings cache is used only by a load with the same fingerprint.
        terms = analyzer.fingerprint if analyzer is not None else "raw"
        self._made_by = f"{POSTINGS_FORMAT}:{SEGMENT_DOCS}:{terms}"
        self._layout = hashlib.sha256(self._made_by.encode())
        self.fingerprint: str | None = None

    def __len__(self) -> int:
        return self.index.n_alive

    def text(self, item: RecallItem) -> str:
        return item_text(item.name, item.content)

    def tokens(self, item: RecallItem) -> list[str]:
        """The item's index terms (analyzed)."""
        return self.terms(self.text(item))

    def terms(self, text: str) -> list[str]:
        """A text's index terms, as the index holds them (a diary entry's too)."""
        tokens = self._tokenize(text)
        return tokens if self.analyzer is None else self.analyzer.terms(tokens)

    def _latin_terms(self) -> LatinTerms | None:
        """What the scan forms' latin tokens become (None: themselves); see :func:`wikimem.index.scan.scan_joined`."""
        if self.analyzer is None or not self.analyzer.stems:
            return None
        return self.analyzer.latin_terms

    def files(self) -> list[str]:
        """The indexed RecallFiles."""
        return [*self._names, *self._bulk]

    def doc(self, file: str, name: str) -> int | None:
        return self._name_map(file).get(name)

    def _name_map(self, file: str) -> dict[str, int]:
        names = self._names.get(file)
        if names is not None:
            return names
        bulk = self._bulk.get(file)
        if bulk is None:
            return {}
        names = self._name_maps.get(file)
        if names is None:
            base, blocks = bulk
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
        if progress is not None:
            progress(0, len(files))
        for done, file in enumerate(files, 1):
            stat = store.file_stat(file)
            read = read_file_blocks(store.file_path(file)) if bulk else None
            if read is not None:
                group.append((file, *read, stat))
                size += read[0].count
            if group and (read is None or size >= SEGMENT_DOCS):
                self._load_group(group, store)
                group, size = [], 0
            if read is None:
                self.load_file(file, store.file_items(file), stat)
            if progress is not None:
                progress(done, len(files))
        if group:
            self._load_group(group, store)
        self.index.loaded(len(self.items))
        if self.index.segments:
            self.fingerprint = self._layout.hexdigest()

    def _load_group(self, group: list[tuple[str, FileBlocks, bytes, tuple[int, int] | None]], store: Any) -> None:
        """Index files read in bulk as one segment (item by item if that fails)."""
        n = sum(blocks.count for _, blocks, _, _ in group)
        joined_all = DOC_BREAK.encode().join(joined for _, _, joined, _ in group)
        scanned = scan_joined(joined_all, n, self._latin_terms()) if self.index.cold else None
        if scanned is None:
            for file, _, _, stat in group:
                self.load_file(file, store.file_items(file), stat)
            return
        lengths_crc = zlib.crc32(scanned.lengths)
        key = segment_key(self._made_by, [(file, stat) for file, _, _, stat in group], n, lengths_crc)
        docs = self.index.add_scanned(scanned, key)
        # Files, stats, doc ids and each doc's token count: a cache written
        # for other files (or the same names edited) never matches.
        self._layout.update(repr(("segment", docs.start, len(docs), lengths_crc)).encode())
        for file, blocks, _, stat in group:
            self._bulk[file] = (self.items.add_blocks(file, blocks).start, blocks)
            self.stats[file] = stat
            self._layout.update(repr((file, stat)).encode())
        if len(self.items) != docs.stop:
            raise RuntimeError("doc ids of the index and the item table diverged")
        self.version += 1

    def load_file(self, file: str, items: list[RecallItem], stat: tuple[int, int] | None) -> None:
        """Cold path: index a file's items (in one batch when they can be scanned)."""
        names = self._names.setdefault(file, {})
        self._layout.update(repr(("file", file, stat, len(self.items), len(items))).encode())
        scan = self._scan
        scanned = scan(list(map(self.text, items)), self._latin_terms()) if scan and items and self.index.cold else None
        if scanned is not None:
            key = segment_key(self._made_by, [(file, stat)], len(scanned.lengths), zlib.crc32(scanned.lengths))
            docs = self.index.add_scanned(scanned, key)
            names.update(zip(map(attrgetter("name"), items), docs))
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

    def apply_writes(self, writes: Sequence[FileWrite]) -> bool | None:
        """Apply one file's store writes, in commit order; ``None`` (nothing changed) when a re-read is needed.

        They apply only as a chain from what the index holds to what is on
        disk now: the first write found the file as the index last saw it
        (its identity after an applied write, else the ``(mtime_ns, size)``
        it was read at), each next one found it as the previous one left it,
        and the last one's result is still there. Any other process's write
        in between breaks the chain.
        """
        first, last = writes[0], writes[-1]
        file = first.file
        if file in self.identities:
            if self.identities[file] != first.before:
                return None
        elif self.stats.get(file) != (first.before[:2] if first.before is not None else None):
            return None
        if any(a.after != b.before for a, b in zip(writes, writes[1:])) or not last.current():
            return None
        edits = [edit for write in writes for edit in write.edits]
        changed = self.apply_write(file, last.segments, edits, last.after[:2] if last.after is not None else None)
        if changed is not None:
            self.identities[file] = last.after
        return changed

    def apply_write(
        self,
        file: str,
        segments: Sequence[RawBlock],
        edits: Sequence[BlockEdit],
        stat: tuple[int, int] | None,
    ) -> bool | None:
        """Apply a store write's own block edits: what :meth:`update_file` would do, without reading the file.

        ``segments`` are the file's blocks after the write and ``edits`` what
        it changed (the caller checked that the index holds the file as the
        write found it, and that nobody wrote since). Only the blocks the
        edits name are parsed and diffed: a segment whose bytes an edit left
        is parsed from those bytes, as a re-read would; every other item
        keeps its doc and its object. Returns ``None``, changing nothing,
        when the items the edits left alone are not the ones indexed (the
        index did not hold what the write found: re-read instead).
        """
        # A soft edit changes only a block's trailing line breaks, which the
        # parser drops (``parse_blocks``: ``body.rstrip()``): its item is the same.
        hard = [e for e in edits if e.index >= 0 and not e.soft]
        if len(hard) == 1:
            done = self._apply_one(file, segments, hard[0], stat)
            if done is not None:
                return done
        afters: set[bytes] = set()  # the bytes of every block a hard edit wrote (and later soft edits of those)
        for e in edits:
            if e.index >= 0 and e.after is not None and (not e.soft or e.before in afters):
                afters.add(e.after)
        try:
            touched = {RawBlock(e.before).heading for e in hard if e.before is not None}
            blocks: dict[str, Block] = {}  # repeated headings: the last wins, at the first's place
            for segment in segments:
                if segment.raw in afters:
                    block = RawBlock(segment.raw).block  # parsed from the bytes, as a re-read would
                    touched.add(block.heading)
                else:
                    block = segment.block
                blocks[block.heading] = block
        except IndexError:  # a segment that parses to no block: not what a store write leaves
            return None
        if self._name_map(file).keys() - touched != blocks.keys() - touched:
            return None
        old = self._forget(file)
        new: dict[str, int] = {}
        changed = False
        for name, block in blocks.items():
            doc = old.pop(name, None)
            if name in touched:
                doc, fresh = self._put(RecallItem(file, name, block.content, block.owner, block.source_conv, block.ts), doc)
                changed |= fresh
            new[name] = doc  # type: ignore[assignment]  # an untouched name is held (checked above)
        for doc in old.values():  # only touched names are left: the write removed them
            self._drop(doc)
            changed = True
        return self._settle(file, new, stat, changed)

    def _apply_one(self, file: str, segments: Sequence[RawBlock], edit: BlockEdit, stat: tuple[int, int] | None) -> bool | None:
        """One block replaced, appended at the end or removed, in a file without repeated headings: in place.

        What the general path of :meth:`apply_write` does, without parsing
        and diffing every block of the file (a 200-item file: ~0.5 ms of
        the query after an ``add()``): the name map keeps its order (a
        replaced name keeps its place, an appended one goes last, a removed
        one leaves), and only the edited block is parsed. ``None``: not
        such an edit, or the edit does not fit the map (the general path
        decides).
        """
        names = self._name_map(file)
        at, before, after = edit.index, edit.before, edit.after
        if before is None and after is None:
            return None
        grew = (before is None) - (after is None)
        if len(segments) != len(names) + grew or (after is not None and segments[at].raw != after):
            return None  # repeated headings (fewer names than blocks), or not the write described
        old = RawBlock(before).heading if before is not None else None
        block = RawBlock(after).block if after is not None else None
        if old is not None and (at >= len(names) or list(names)[at] != old):
            return None
        if block is not None and (block.heading != old if old is not None else (block.heading in names or at != len(segments) - 1)):
            return None  # a rename, or an insertion before the end: the general path orders them
        names = self._forget(file)
        if block is None:
            assert old is not None
            self._drop(names.pop(old))
            return self._settle(file, names, stat, True)
        item = RecallItem(file, block.heading, block.content, block.owner, block.source_conv, block.ts)
        names[block.heading], changed = self._put(item, names.get(block.heading))
        return self._settle(file, names, stat, changed)

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
        fresh = WikiCorpus(self._tokenize, self._scan, self.analyzer)
        for file in self.files():
            docs = self._name_map(file).values()
            fresh.load_file(file, [item for item in map(self.items.__getitem__, docs) if item is not None], self.stats.get(file))
        fresh.version = self.version + 1
        fresh.identities = dict(self.identities)
        return fresh
