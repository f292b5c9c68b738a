"""What an index holds, read from outside: files, item names in file order, stats, an item's terms.

Why a view: a tool (an app's status line, a test, a script checking that an
edit was picked up) needs to ask what is indexed without reaching into the
engine's tables, and must not be able to change them. :class:`Indexed`
answers those questions about one corpus under the index's lock, so a read
never sees a write half applied; its answers follow writes applied to that
corpus later, and ``MemoryIndex.indexed()`` gives a view of the corpus the
next query would search.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from wikimem.index.corpus import WikiCorpus
from wikimem.models import RecallItem

__all__ = ["Indexed"]


class Indexed:
    """A read-only view of one :class:`~wikimem.index.corpus.WikiCorpus`: what is indexed, as the index holds it."""

    def __init__(self, corpus: WikiCorpus, lock: AbstractContextManager[Any]) -> None:
        #: The engine's own object, for tools that inspect the lexical index
        #: (its ``index``, ``fingerprint``): read it, never edit it. A rebuild
        #: (or a compaction) replaces it; a new view shows the new one.
        self.corpus = corpus
        self._lock = lock

    def __len__(self) -> int:
        """Items indexed (removed ones not counted)."""
        with self._lock:
            return len(self.corpus)

    def __contains__(self, key: object) -> bool:
        """Whether ``(file, name)`` is an indexed item."""
        if not isinstance(key, tuple) or len(key) != 2:
            return False
        file, name = key
        with self._lock:
            return isinstance(file, str) and isinstance(name, str) and self.corpus.doc(file, name) is not None

    def files(self) -> list[str]:
        """The indexed RecallFiles, sorted."""
        with self._lock:
            return sorted(self.corpus.files())

    def names(self, file: str) -> list[str]:
        """``file``'s indexed item names in the file's order (``[]``: not indexed)."""
        with self._lock:
            return self.corpus.names(file)

    def stat(self, file: str) -> tuple[int, int] | None:
        """``(mtime_ns, size)`` of ``file`` as the index last read it (None: not read, or gone when read)."""
        with self._lock:
            return self.corpus.stats.get(file)

    def terms(self, item: RecallItem) -> list[str]:
        """The index terms of ``item``'s name and content, as BM25 matches them (a recalled diary entry's too)."""
        with self._lock:
            return self.corpus.tokens(item)

    def neighbours(self, file: str, name: str, window: int) -> list[str]:
        """Names of the items within ``window`` places of ``file:name`` in its file, in file order (file context)."""
        with self._lock:
            doc = self._doc(file, name)
            items = self.corpus.items
            return [item.name for item in map(items.__getitem__, self.corpus.neighbours(doc, window))
                    if item is not None]

    def _doc(self, file: str, name: str) -> int:
        doc = self.corpus.doc(file, name)
        if doc is None:
            raise KeyError(f"{file}:{name} is not indexed")
        return doc
