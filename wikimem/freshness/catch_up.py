"""Bring a corpus up to date with the files: a write's own edits, or a re-read of the file.

Why the two ways: applying a write's block edits skips re-reading and
re-parsing a whole file for one changed block (a 200-item file: ~3.5 ms of
a query after an ``add()``), but only this process's writes carry edits,
and only while nobody else wrote the file in between --
:meth:`WikiCorpus.apply_writes` checks that chain of file identities and
sends any broken one to the re-read. A re-read is a diff
(:meth:`WikiCorpus.update_file`): only changed items are re-tokenized.
Every function runs under the index lock and returns the corpus to use
from then on (a compaction may have replaced it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wikimem.index.corpus import WikiCorpus
from wikimem.store.transaction import FileWrite, path_identity

__all__ = ["apply_pending", "compacted", "own_write_current", "reindex", "stale_files"]


def stale_files(store: Any, corpus: WikiCorpus) -> list[str]:
    """Files whose ``(mtime_ns, size)`` differs from what the corpus read, appeared or vanished."""
    names = set(store.files()) | set(corpus.stats)
    return [f for f in names if store.file_stat(f) != corpus.stats.get(f)]


def own_write_current(store: Any, corpus: WikiCorpus, file: str) -> bool:
    """Whether ``file`` is exactly as this process's last applied write left it (no re-read needed).

    The identity compared is the one the store took under its lock right
    after that commit (:class:`~wikimem.store.transaction.FileWrite`), kept by
    :meth:`WikiCorpus.apply_writes`; a re-read forgets it. A store without
    paths says no.
    """
    path = getattr(store, "file_path", None)
    if path is None or file not in corpus.identities:
        return False
    return path_identity(path(file)) == corpus.identities[file]  # None == None: the write removed the file


def reindex(store: Any, corpus: WikiCorpus, files: Iterable[str]) -> tuple[WikiCorpus, list[str]]:
    """Re-read ``files`` into ``corpus``: the corpus to use now, and the files whose indexed content changed (sorted)."""
    changed = []
    for file in set(files):
        stat = store.file_stat(file)
        if corpus.update_file(file, store.file_items(file), stat):
            changed.append(file)
    return compacted(corpus), sorted(changed)


def apply_pending(
    store: Any, corpus: WikiCorpus, pending: dict[str, list[FileWrite] | None]
) -> tuple[WikiCorpus, list[str], list[str]]:
    """This process's writes: each file's own block edits when they chain to the disk, else a re-read.

    Returns the corpus to use now, the files that had to be re-read, and
    those of them whose indexed content changed (sorted).
    """
    reread = [file for file, writes in pending.items() if not writes or corpus.apply_writes(writes) is None]
    if not reread:
        return compacted(corpus), [], []
    corpus, changed = reindex(store, corpus, reread)
    return corpus, reread, changed


def compacted(corpus: WikiCorpus) -> WikiCorpus:
    """``corpus``, or a compacted copy once its tombstones outnumber its live docs (see ``needs_compaction``)."""
    return corpus.compacted() if corpus.index.needs_compaction() else corpus
