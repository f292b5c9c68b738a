"""The indexed wiki: which doc id is which item of which file, and file stats.

Design constraint: the markdown is the truth and the index is derived, so
the corpus must turn "this file now holds these items" into the fewest index
writes. Replacing a file is a diff keyed by item name: an unchanged item
keeps its doc id (only its object is swapped, provenance is not indexed), so
a store write that rewrote a 200-item file re-tokenizes one item. Doc ids are
never reused (the index's postings rely on ascending ids); tombstones are
dropped by :meth:`WikiCorpus.compacted`, a rebuild without file IO.

:func:`warm_up` lives here because it is bound to a corpus, not an index:
a rebuild or compaction swaps the corpus, and a warm-up of the old one
must stop rather than race the new one.
"""

from __future__ import annotations

import contextlib
import gc
from array import array
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from functools import partial
from itertools import count, repeat
from typing import Any
from operator import attrgetter

from wikimem.bm25 import InvertedIndex
from wikimem.models import DiaryItem, RecallItem, item_text
from wikimem.tokenize import _SINGLE_MARK as _ONE_CHAR_RUN
from wikimem.tokenize import ScannedTexts

__all__ = ["WARM_MIN_OCCURRENCES", "WikiCorpus", "as_recall_item", "gc_paused", "scanned_occurrences", "warm_up"]


def as_recall_item(entry: DiaryItem) -> RecallItem:
    """A diary entry as a retrievable item: file = the day, name = ``HH:MM``."""
    return RecallItem(entry.date, entry.time, entry.content, entry.owner, entry.source_conv, entry.ts)


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
        #: :func:`wikimem.tokenize.scan_texts`; bigram mode only).
        self._scan = scan

    def __len__(self) -> int:
        return self.index.n_alive

    def text(self, item: RecallItem) -> str:
        return item_text(item.name, item.content)

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


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC during a cold load.

    A load creates objects that all survive (an item per block) and no
    cycles; generational collection would keep traversing them -- and every
    other object of the process -- for nothing (10-20% of a 100k load, far
    more next to a large heap). Re-enabled afterwards only if it was on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


#: Raw terms with this many occurrences are packed by a warm-up; rarer ones
#: pack in well under a millisecond on first use and stay compact until then.
WARM_MIN_OCCURRENCES = 1000
#: Occurrences packed per lock hold during a warm-up (a few ms of work).
_WARM_CHUNK = 100_000


def warm_up(
    current: Callable[[], WikiCorpus],
    lock: contextlib.AbstractContextManager[Any],
    progress: Callable[[int, int], None],
    should_stop: Callable[[], bool],
) -> bool:
    """Warm the current corpus's index; True when done, False if stopped or replaced.

    Each segment's occurrences are found without the lock (its forms never
    change) and folded in under it; then the common raw terms are packed, a
    chunk per lock hold, so queries interleave. Each step leaves the index
    in a state its lazy paths serve exactly, so writes in between stay
    consistent (see ``InvertedIndex.fold_segment``). A corpus
    swapped out meanwhile (rebuild, compaction) is abandoned: the caller
    warms the new one.
    """
    corpus = current()
    index = corpus.index
    total = index.segments_left + 1
    progress(0, total)
    for done in range(1, total):
        if should_stop():
            return False
        segment = index.oldest_segment()
        if segment is None:
            break
        occ = scanned_occurrences(*segment)
        with lock:
            if current() is not corpus:
                return False
            index.fold_segment(segment, occ)
        progress(done, total)
    with lock:
        if current() is not corpus:
            return False
        terms = index.unpacked_over(WARM_MIN_OCCURRENCES)
    chunks: list[list[str]] = [[]]
    size = 0
    for term, occurrences in terms:
        chunks[-1].append(term)
        size += occurrences
        if size >= _WARM_CHUNK:
            chunks.append([])
            size = 0
    for chunk in chunks:
        if should_stop():
            return False
        with lock:
            if current() is not corpus:
                return False
            index.pack(chunk)
    progress(total, total)
    return True


def scanned_occurrences(base: int, scanned: ScannedTexts) -> dict[str, array]:
    """Each term of scanned texts (doc ids from ``base``) with its occurrences, ascending.

    The tokens of a text are a C-level ``split`` of its latin form plus the
    bigrams of each CJK run (``x\\x01`` marks a one-character run), the
    same terms :func:`wikimem.tokenize.scan_counts` finds.
    """
    occ: defaultdict[str, array] = defaultdict(partial(array, "i"))
    get = occ.__getitem__
    for doc, latin, cjk in zip(count(base), scanned.latin, scanned.cjk):
        tokens = latin.decode().split()
        for run in cjk.split():
            if run[-1] == _ONE_CHAR_RUN:
                tokens.append(run[0])
            else:
                tokens.extend([run[i : i + 2] for i in range(len(run) - 1)])
        deque(map(array.append, map(get, tokens), repeat(doc)), 0)
    return occ
