"""A store transaction: several writes of one thread, staged, then committed as one step.

Every write of ``MemoryStore`` runs in one (its own, or the caller's
``store.transaction()``) and *stages* its new bytes, block edits and journal
lines; nothing touches the disk until the outermost transaction ends, and
several files are committed through an intent record, so a move or its undo
lands whole or not at all. A nested transaction is a savepoint: a caller
that catches one failed write and goes on never commits half of it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from wikimem.disk.blocks import Block, ParsedFile, parse_blocks
from wikimem.errors import ConflictError
from wikimem.disk.intent import FileChange, commit
from wikimem.journal import Journal
from wikimem.disk.links import WikiLink, rewrite_links
from wikimem.disk.lock import store_lock
from wikimem.models import RecallItem
from wikimem.disk.splice import BlockEdit, RawFile, check, replace_block, revert_edit, split_raw
from wikimem.disk.tolerant import read_regular

__all__ = ["FileWrite", "Identity", "StoreFiles", "Transaction", "current", "path_identity", "revert",
           "rewrite_contents", "rewrite_links_to", "transaction"]

#: ``(mtime_ns, size, inode)`` of a file: its stat plus the inode, which every atomic replace changes.
Identity = tuple[int, int, int]


def path_identity(path: str | os.PathLike[str]) -> Identity | None:
    """``(mtime_ns, size, inode)`` of ``path``, ``None`` when it cannot be stat'ed.

    The inode tells apart two replaces of a file within one mtime tick
    (Linux stamps files with a clock of a few ms), which ``(mtime_ns,
    size)`` alone may not.
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


@dataclass(frozen=True)
class FileWrite:
    """Which file one commit wrote, and its identity before and after, for an index to tell its own writes apart.

    ``before`` is the file's identity when the write read it and ``after``
    its identity right after the commit, both taken under the store lock
    (``None``: the file was absent / is gone). A reader that last saw the
    file at ``before`` and finds it still at ``after`` (:meth:`current`)
    knows nobody else wrote it in between.
    """

    file: str
    path: Path
    before: Identity | None
    after: Identity | None

    def current(self) -> bool:
        """Whether the file is still exactly as this write left it (nobody wrote since)."""
        return path_identity(self.path) == self.after


class StoreFiles(Protocol):
    """What a transaction needs of its store (:class:`wikimem.store.MemoryStore` is one).

    Structural, so this module needs nothing of the package that imports it.
    """

    root: Path
    journal: Journal

    def file_path(self, file: str) -> Path: ...
    def files(self) -> list[str]: ...
    def notify_write(self, file: str, write: FileWrite | None = None) -> None: ...
    def notify_day_write(self, date: str) -> None: ...


class Transaction:
    """The staged state of one thread's writes; ``edits`` is what undo needs once committed."""

    def __init__(self, store: StoreFiles) -> None:
        self.store = store
        self._staged: dict[str, RawFile] = {}
        self._order: list[str] = []
        self.entries: list[dict[str, Any]] = []
        #: Every block edit staged, in order: what ``MemoryStore.revert`` takes back.
        self.edits: list[BlockEdit] = []
        #: RecallFiles whose bytes the commit changed.
        self.files: list[str] = []
        #: Diary days whose bytes the commit changed.
        self.days: list[str] = []
        #: Each file's identity when this transaction first read it (under the lock).
        self._before: dict[str, Identity | None] = {}
        #: What the commit did to each changed file that :meth:`raw` read (see :class:`FileWrite`).
        self.writes: dict[str, FileWrite] = {}
        #: Diary days staged by a write that spans the wiki and the diary (an import), by date.
        self._days: dict[str, RawFile] = {}

    def raw(self, file: str) -> RawFile:
        """``file`` as staged so far, else as on disk now (a fresh copy: stage it to keep changes)."""
        staged = self._staged.get(file)
        if staged is not None:
            return staged
        path = self.store.file_path(file)
        if file not in self._before:  # stat first, then read: as an index reads, so their stats compare
            self._before[file] = path_identity(path)
        return split_raw(read_regular(path))  # unreadable: UnreadableError refuses the write

    def note_first_read(self, file: str, identity: Identity | None) -> None:
        """``file``'s identity as this transaction first found it, for a read made without :meth:`raw` (kept if noted)."""
        self._before.setdefault(file, identity)

    def staged(self, file: str) -> RawFile | None:
        """The staged state of ``file``, or ``None`` when this transaction has not changed it."""
        return self._staged.get(file)

    def staged_files(self) -> list[str]:
        """The files this transaction changed, in the order the commit writes them (of their last change)."""
        return list(self._order)

    def parsed(self, file: str) -> ParsedFile | None:
        """The staged file as ``parse_blocks`` reads it (``None``: not staged)."""
        raw = self._staged.get(file)
        if raw is None:
            return None
        data = raw.data()
        return parse_blocks(data.decode("utf-8", errors="replace")) if data is not None else ParsedFile("", [])

    def day(self, date: str) -> RawFile:
        """The diary day ``date`` as staged so far, else as on disk now (stage it to keep changes).

        Diary appends go through here only when they must land with wiki
        writes in one commit (an import); ``Diary.append`` is its own commit.
        """
        staged = self._days.get(date)
        if staged is not None:
            return staged
        return split_raw(read_regular(self._day_path(date), root=self.store.root))

    def stage_day(self, date: str, raw: RawFile, entries: list[dict[str, Any]]) -> None:
        """Keep ``raw`` as the new state of the diary day ``date``, with its journal entries."""
        self._days[date] = raw
        self.entries.extend(entries)

    def _day_path(self, date: str) -> Path:
        return self.store.root / "diary" / f"{date}.md"

    def stage(self, file: str, raw: RawFile, edits: list[BlockEdit], entries: list[dict[str, Any]]) -> None:
        """Keep ``raw`` as the new state of ``file``, with the edits and journal entries that made it."""
        self._staged[file] = raw
        if file in self._order:  # files are written in the order of their last change
            self._order.remove(file)
        self._order.append(file)
        self.edits.extend(edits)
        self.entries.extend(entries)

    def _savepoint(self) -> _Savepoint:
        copies = {f: RawFile(r.preamble, list(r.blocks), r.origin) for f, r in self._staged.items()}
        days = {d: RawFile(r.preamble, list(r.blocks), r.origin) for d, r in self._days.items()}
        return copies, list(self._order), len(self.edits), len(self.entries), days

    def _rollback_to(self, point: _Savepoint) -> None:
        self._staged, self._order, edits, entries, self._days = point
        del self.edits[edits:]
        del self.entries[entries:]

    def commit(self) -> None:
        """Write every staged file and the journal lines: all of them, or (raising) none."""
        store = self.store
        changes = [FileChange(store.file_path(f), self._staged[f].origin, self._staged[f].data()) for f in self._order]
        days = [FileChange(self._day_path(d), self._days[d].origin, self._days[d].data()) for d in sorted(self._days)]
        lines = b"".join(Journal.encode(entry) for entry in self.entries)
        commit(store.root, changes + days, store.journal.path, lines)
        self.files = [f for f, c in zip(self._order, changes) if c.before != c.after]
        self.days = [d for d, c in zip(sorted(self._days), days) if c.before != c.after]
        for file, change in zip(self._order, changes):
            if change.before != change.after and file in self._before:
                self._record(file, change.path, change.before)

    def _record(self, file: str, path: Path, before: bytes | None) -> None:
        """Keep the identity the commit left ``file`` at (still under the lock: its identity now is this write's).

        Not when the stat and the read saw different files (a writer
        ignoring the lock): nothing then says which bytes were this write's.
        """
        seen = self._before[file]
        if (seen[1] if seen is not None else None) != (len(before) if before is not None else None):
            return
        self.writes[file] = FileWrite(file, path, seen, path_identity(path))


#: What a nested transaction rolls back to: staged files, their order, counts of edits/entries, staged days.
_Savepoint = tuple[dict[str, RawFile], list[str], int, int, dict[str, RawFile]]

_local = threading.local()


@contextmanager
def transaction(store: StoreFiles) -> Iterator[Transaction]:
    """The calling thread's transaction on ``store`` (joined when one is open), under the store lock."""
    key = id(store)
    open_ = getattr(_local, "open", None)
    if open_ is None:
        open_ = _local.open = {}
    current: Transaction | None = open_.get(key)
    with store_lock(store.root):
        if current is not None:
            point = current._savepoint()
            try:
                yield current
            except BaseException:
                current._rollback_to(point)
                raise
            return
        tx = open_[key] = Transaction(store)
        try:
            yield tx
            tx.commit()
        finally:
            del open_[key]
    for file in tx.files:
        store.notify_write(file, tx.writes.get(file))
    for date in tx.days:
        store.notify_day_write(date)


def current(store: StoreFiles) -> Transaction | None:
    """The transaction this thread has open on ``store``, if any (reads then see its staged state)."""
    open_ = getattr(_local, "open", None)
    return open_.get(id(store)) if open_ else None


def revert(tx: Transaction, edits: Sequence[BlockEdit], *, by: str | None, detail: str | None) -> None:
    """Stage the inverse of ``edits`` (last first); ``ConflictError`` if a block is not as they left it."""
    for edit in reversed(edits):
        raw = tx.raw(edit.file)
        if not edit.soft:  # a file mid-merge refuses every write, an undo too
            check(raw, f"wiki/{edit.file}.md", [], f"undoing a write to {edit.file}")
        inverse = revert_edit(raw, edit)
        if isinstance(inverse, str):
            where = raw.indexes(inverse)
            now = _item(edit.file, raw.blocks[where[-1]].block if where else None)
            after = _item(edit.file, edit.block("after"))
            raise ConflictError(edit.file, inverse, after.content if after else None, now)
        if inverse is not None:
            tx.stage(edit.file, raw, [inverse], [] if edit.soft else _undo_entries(edit, by, detail))


def _item(file: str, block: Block | None) -> RecallItem | None:
    """``block`` as the item of ``file`` (what a conflict or an undo's journal line names)."""
    return None if block is None else RecallItem(file, block.heading, block.content, block.owner, block.source_conv, block.ts)


def _undo_entries(edit: BlockEdit, by: str | None, detail: str | None) -> list[dict[str, Any]]:
    """The journal lines of putting ``edit.before`` back in place of ``edit.after``."""
    before, after = _item(edit.file, edit.block("before")), _item(edit.file, edit.block("after"))
    out: list[dict[str, Any]] = []
    if after is not None and (before is None or before.name != after.name):
        out.append(Journal.entry("remove", file=edit.file, name=after.name, owner=after.owner, detail=detail, by=by))
    if before is not None:
        action = "update" if after is not None and after.name == before.name else "add"
        out.append(Journal.entry(action, file=edit.file, name=before.name, owner=before.owner,
                                 source_conv=before.source_conv, detail=detail, by=by))
    return out


def rewrite_links_to(tx: Transaction, old: WikiLink, new: WikiLink, by: str | None, detail: str,
                     *, skip: tuple[str, str] | None) -> None:
    """Stage the rewrite of every link that resolves to ``old``; refuses (nothing staged) what would lose data.

    ``skip`` is a block left alone (the old address of a moved item, about
    to go). Each rewritten item keeps its owner on the journal line.
    """
    needle = old.file.encode("utf-8")

    def rewrite(file: str, heading: str, content: str) -> str:
        return rewrite_links(content, old, new, here=file) if (file, heading) != skip else content

    # Obsidian's note part matches case-insensitively; a same-file link ([[#name]]) names no file.
    rewrite_contents(tx, rewrite, lambda file, data: file == old.file or needle in data.lower(), by, detail,
                     f"rewriting the links to {old.render()}")


def rewrite_contents(tx: Transaction, rewrite: Callable[[str, str, str], str], may_change: Callable[[str, bytes], bool],
                     by: str | None, detail: str, what: str) -> int:
    """Stage ``rewrite(file, heading, content)`` over every wiki item whose links it may change; the items changed.

    Only files holding ``[[`` for which ``may_change(file, bytes)`` is true
    are parsed (a cheap byte test first: most files hold no link to
    change). A file whose bytes would not survive the write is refused
    (:func:`~wikimem.disk.splice.check`, nothing staged); each rewritten
    item keeps its owner on its ``update`` journal line.
    """
    store = tx.store
    count = 0
    for file in store.files():
        raw = tx.staged(file)
        if raw is None:
            path = store.file_path(file)
            before = path_identity(path)
            try:
                data = read_regular(path)
            except OSError:
                continue
            if data is None or b"[[" not in data or not may_change(file, data):
                continue
            raw = split_raw(data)
            tx.note_first_read(file, before)  # what an index compares with (see FileWrite)
        changed: list[tuple[int, Block]] = []
        for index, segment in enumerate(raw.blocks):
            b = segment.block
            rewritten = rewrite(file, b.heading, b.content)
            if rewritten != b.content:
                changed.append((index, Block(b.heading, rewritten, b.owner, b.source_conv, b.ts)))
        if not changed:
            continue
        check(raw, f"wiki/{file}.md", [b.heading for _, b in changed], what)
        edits = [replace_block(raw, file, index, b) for index, b in changed]
        tx.stage(file, raw, edits, [Journal.entry("update", file=file, name=b.heading, owner=b.owner, detail=detail,
                                                  by=by) for _, b in changed])
        count += len(changed)
    return count
