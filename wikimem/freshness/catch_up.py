"""Bring a corpus up to date with the files: re-read each file written or changed since.

A re-read is a diff (:meth:`WikiCorpus.update_file`): only changed items are
re-tokenized. This process's own writes carry the chain of file identities
the store took under its lock: when it runs from what the corpus held to
the disk now, nobody else wrote the file, and a watcher's later event for
it can be skipped (:func:`own_write_current`). Every function runs under
the index lock and returns the corpus to use from then on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from wikimem.index.corpus.wiki import WikiCorpus
from wikimem.store.transaction import FileWrite, Identity, path_identity

__all__ = ["apply_pending", "compacted", "own_write_current", "reindex", "stale_files"]


def stale_files(store: Any, corpus: WikiCorpus) -> list[str]:
    """Files whose ``(mtime_ns, size)`` differs from what the corpus read, appeared or vanished."""
    names = set(store.files()) | set(corpus.stats)
    return [f for f in names if store.file_stat(f) != corpus.stats.get(f)]


def own_write_current(store: Any, corpus: WikiCorpus, file: str) -> bool:
    """Whether ``file`` is exactly as this process's last applied write left it (no re-read needed).

    The identity compared is the one the store took under its lock right
    after that commit (:class:`~wikimem.store.transaction.FileWrite`), kept
    by :func:`apply_pending`; any other re-read forgets it. A store without
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
    """Re-read every file this process wrote, telling its own writes apart from anyone else's.

    Returns the corpus to use now, the files someone else may have written
    too (their writes do not chain, see :func:`_chained`), and those of them
    whose indexed content changed (sorted).
    """
    held = {file: corpus.identities[file] if file in corpus.identities else corpus.stats.get(file) for file in pending}
    corpus, changed = reindex(store, corpus, pending)
    others = []
    for file, writes in pending.items():
        if writes and _chained(writes, held[file]):
            corpus.identities[file] = writes[-1].after
        else:
            others.append(file)
    return corpus, others, sorted(set(changed).intersection(others))


def _chained(writes: Sequence[FileWrite], held: Identity | tuple[int, int] | None) -> bool:
    """Whether ``writes`` run from the file as the corpus held it to the file on disk now (nobody else wrote it).

    The first write found the file as the corpus last saw it (``held``: the
    identity its last own write left, else the ``(mtime_ns, size)`` it was
    read at), each next one found it as the previous one left it, and the
    last one's result is still there (checked after the re-read: it read
    those bytes).
    """
    before = writes[0].before
    if held is not None and len(held) == 2:  # a stat: compare the write's without the inode
        before = before[:2] if before is not None else None  # type: ignore[assignment]
    if held != before:
        return False
    return all(a.after == b.before for a, b in zip(writes, writes[1:])) and writes[-1].current()


def compacted(corpus: WikiCorpus) -> WikiCorpus:
    """``corpus``, or a compacted copy once its tombstones outnumber its live docs (see ``needs_compaction``)."""
    return corpus.compacted() if corpus.index.needs_compaction() else corpus
