"""The backend the App is handed, and the app's one writer.

Following harlequin, the App receives its backend as a constructor argument
so tests hand it a temporary store, a fixed "today" and a frozen clock, and
nothing in the widgets reads the environment, the real clock or the user's
config on its own. Widgets that need it get it through their constructor.

Every write the app makes goes through this object and nowhere else, so each
promise is kept in one place:

* **read-only is checked once**, here: a refused write raises
  :class:`ReadOnlyError` saying what it would have done;
* **every write is checked**: the caller passes what it last read
  (``expected``) and the store compares it under its lock with the file
  re-read there (``wikimem.ConflictError`` on a mismatch, nothing written);
* **own writes are recorded once**, while the store lock is still held, so
  the watcher can tell them from another process's write that follows;
* **provenance survives edits**: an edit keeps the item's owner and source
  unless the caller changes them explicitly; the journal line says who
  edited (``by``);
* **each write lands whole or not at all**: one ``store.transaction()``
  per write, so a move with its link rewrites, a retraction across files
  and their undo are one commit (an intent record when several files
  change); a write that would lose bytes it does not address is refused
  (``wikimem.LossyWriteError``, a ``ValueError``: the editor shows it and
  keeps the draft);
* **undo restores bytes, not items**: a write keeps the raw bytes of every
  block it changed, before and after; undo checks under the store lock that
  each block still holds exactly what the write left (content, owner,
  source, ts) and splices the old bytes back where they were.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from wikimem import (ConflictError, Diary, DiaryItem, LossyWriteError, MemoryStore, RecallItem, clear_review_marks,
                     dismiss, mark_for_review, review_reasons, undismiss)
from wikimem_tui.core.activity import Activity
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.core.watch import OwnWrites
from wikimem_tui.core.writes import KEEP, ItemChange, ReadOnlyError, UndoRefused, Write, content_of, default_owner
from wikimem_tui.core.words import count

if TYPE_CHECKING:  # retrieval loads lazily; the app must paint before it is imported
    from wikimem import MemoryIndex

__all__ = [
    "Backend", "ItemChange", "KEEP", "ReadOnlyError", "UndoRefused", "Write", "default_owner",
]


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


@dataclass
class Backend:
    """Everything the app reads and writes, plus the knobs a test pins down.

    ``clock`` returns an aware UTC datetime (used for write timestamps and
    relative times on screen); ``today`` is the local date the calendar opens
    on and the query's time expressions are resolved against.
    """

    root: Path
    store: MemoryStore
    index: MemoryIndex
    owner: str = field(default_factory=default_owner)
    read_only: bool = False
    clock: Callable[[], dt.datetime] = _utc_now
    today: Callable[[], dt.date] = dt.date.today
    embedder: Any | None = None
    embed_label: str | None = None
    use_jieba: bool | None = None
    own_writes: OwnWrites = field(default_factory=OwnWrites)
    activity: Activity = field(default_factory=Activity)
    """Whether the user is at the keys: the index warm-up waits for quiet (``core/activity``)."""
    """Signatures of files as the app's own writes left them (the watcher skips those)."""
    history: list[Write] = field(default_factory=list)
    """This session's writes, oldest first; undo pops from the end."""
    _listeners: list[Callable[[StoreChange], None]] = field(default_factory=list, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def __post_init__(self) -> None:
        self.pin_index_today()

    def pin_index_today(self) -> None:
        """Make the index resolve query time words (昨天, yesterday) against ``today``.

        Call again whenever ``index`` is replaced by a new one.
        """
        if self.index is not None:
            self.index.today = self.today

    @property
    def diary(self) -> Diary:
        """The store's diary (shares its journal)."""
        return self.store.diary

    @property
    def journal_path(self) -> Path:
        """Where the journal lives, for the tail widget."""
        return self.root / "journal.jsonl"

    def subscribe(self, listener: Callable[[StoreChange], None]) -> None:
        """Call ``listener`` after every write with what it changed (from the writing thread)."""
        self._listeners.append(listener)

    # -- the bookkeeping every write shares ---------------------------------------

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """The store lock, then "a write of ours is half done" for the watcher until it is recorded.

        In that order: a batch of another process's write is not held back
        while we wait for the lock it holds (``core/watch.OwnWrites.settled``).
        """
        with self.store.locked(), self.own_writes.writing():
            yield

    def _writable(self, what: str) -> None:
        if self.read_only:
            raise ReadOnlyError(f"read-only: would have {what}; nothing written")

    def _done(self, write: Write, files: Iterable[str] = (), dates: Iterable[str] = (), *, remember: bool = True) -> None:
        """Record an own write (call with the store lock held), remember it for undo, tell the views."""
        files, dates = frozenset(files), frozenset(dates)
        paths = [self.store.file_path(f) for f in files] + [self.diary.path(d) for d in dates]
        self.own_writes.record([*paths, self.journal_path])
        if remember:
            with self._lock:
                self.history.append(write)
        change = StoreChange(files, dates, journal=True, external=False)
        for listener in list(self._listeners):
            listener(change)

    @property
    def last_write(self) -> Write | None:
        """The write undo would take back next (None: nothing written this session)."""
        with self._lock:
            return self.history[-1] if self.history else None

    # -- writes ------------------------------------------------------------------

    def save(
        self,
        file: str,
        name: str,
        content: str,
        *,
        expected: str | None,
        owner: str | None = KEEP,
        source: str | None = KEEP,
    ) -> RecallItem:
        """Write ``content`` to ``file:name`` if it still holds ``expected`` (None: a new item).

        Owner and source stay what the item has unless given; a new item is
        the app's (``owner``) with no source. ``ts`` is the edit time; the
        journal line names the app as ``by``. ``ConflictError`` /
        ``ValueError`` → nothing written.
        """
        self._writable(f"saved {file}:{name}")
        with self._writing():
            before = self.store.get(file, name)
            if owner is KEEP:
                owner = before.owner if before is not None else self.owner
            if source is KEEP:
                source = before.source_conv if before is not None else None
            with self.store.transaction() as tx:
                item = self.store.add(file, name, content, owner=owner or None, source_conv=source or None,
                                      ts=self.clock(), expected=expected, by=self.owner)
            what = f"edit of {file}:{item.name}" if before is not None else f"new item {file}:{item.name}"
            self._done(Write(what, (ItemChange(file, item.name, before, item),), edits=tuple(tx.edits)), [file])
        return item

    def delete(self, file: str, name: str, *, expected: str) -> RecallItem:
        """Remove ``file:name`` if it still holds ``expected``; returns what was removed."""
        self._writable(f"deleted {file}:{name}")
        with self._writing():
            before = self.store.get(file, name)
            with self.store.transaction() as tx:
                self.store.remove(file, name, by=self.owner, expected=expected)
            assert before is not None  # remove raised ConflictError otherwise
            self._done(Write(f"delete of {file}:{before.name}", (ItemChange(file, before.name, before, None),),
                             edits=tuple(tx.edits)), [file])
        return before

    def relocate(
        self, file: str, name: str, new_file: str, new_name: str, *, expected: str, rewrite_links: bool = False
    ) -> RecallItem:
        """Rename and/or move ``file:name`` (one locked, journaled ``MemoryStore.move``).

        With ``rewrite_links`` every link to the old address is rewritten
        too, in the same commit; the raw bytes of every block it changed are
        kept so undo can put each one back exactly. Refuses (``ValueError``)
        when the target exists; ``ConflictError`` when the item changed.
        """
        self._writable(f"moved {file}:{name} to {new_file}:{new_name}")
        with self._writing():
            before = self.store.get(file, name)
            with self.store.transaction() as tx:
                moved = self.store.move(file, name, new_file=new_file, new_name=new_name, by=self.owner,
                                        rewrite_links=rewrite_links, expected=expected)
            assert before is not None  # move raised ConflictError otherwise
            changes = [ItemChange(file, before.name, before, None), ItemChange(new_file, moved.name, None, moved)]
            ends = {(file, before.name), (new_file, moved.name)}
            for edit in tx.edits:  # the link rewrites: every other block the move changed
                old, new = edit.block("before"), edit.block("after")
                if (old is not None and new is not None and (edit.file, new.heading) not in ends
                        and _fields(old) != _fields(new)):  # not a neighbour whose blank line moved
                    changes.append(ItemChange(edit.file, new.heading, _as_item(edit.file, old), _as_item(edit.file, new)))
            what = f"move of {file}:{before.name} to {new_file}:{moved.name}"
            if len(changes) > 2:
                what += f" (and {count(len(changes) - 2, 'link rewrite')})"
            self._done(Write(what, tuple(changes), edits=tuple(tx.edits)), {*tx.files, file, new_file})
        return moved

    def promote_draft(
        self,
        entries: Sequence[DiaryItem],
        file: str,
        name: str,
        content: str,
        *,
        expected: str | None,
        owner: str | None,
        source: str | None,
        detail: str,
    ) -> RecallItem:
        """The reconcile queue's promotion: ``content`` drafted (with evidence lines) and previewed.

        Written only if ``file:name`` still holds ``expected`` (the text the
        preview was drafted from; None: must not exist); owner and source are
        the promotion rule's (``reconcile_writer.promotion_owner``); the
        journal line says the app wrote it (``by``). Undoable like any edit.
        """
        self._writable(f"promoted {count(len(entries), 'diary entry')} to {file}:{name}")
        with self._writing():
            before = self.store.get(file, name)
            with self.store.transaction() as tx:
                item = self.store.add(file, name, content, owner=owner, source_conv=source, ts=self.clock(),
                                      detail=detail, expected=expected, by=self.owner)
            self._done(Write(f"promotion to {file}:{item.name}", (ItemChange(file, item.name, before, item),),
                             edits=tuple(tx.edits)), [file])
        return item

    def curate(
        self,
        marks: Sequence[RecallItem] = (),
        deletes: Sequence[RecallItem] = (),
        *,
        clears: Sequence[RecallItem] = (),
        reason: str = "",
        what: str,
    ) -> Write:
        """Mark ``marks`` for review, delete ``deletes``, clear the marks of ``clears``: all or nothing, one undo step.

        Each item is passed as it was read and shown; under one hold of the
        store lock every one of them is compared with the file first, so a
        single change on disk (``ConflictError``) writes nothing at all. A
        review mark is a line in the item's own content
        (``wikimem.mark_for_review`` with ``reason``; an item already marked
        with the same reason is left alone), and clearing removes those lines
        (the item was reviewed as shown). Both keep the item's owner, source
        and ``ts``: a mark says "check this", a cleared mark "checked", and
        neither is new knowledge, so the item must not look fresh to a
        time-gated query. ``what`` names the step in the journal's detail and
        in undo ("retraction of diary 2026-07-21 14:30").
        """
        self._writable(f"changed {count(len(marks) + len(deletes) + len(clears), 'item')} ({what})")
        text = " ".join(reason.split())
        new = {(m.file, m.name): mark_for_review(m.content, reason) for m in marks
               if text not in review_reasons(m.content)}  # ValueError before any write
        new.update({(c.file, c.name): clear_review_marks(c.content) for c in clears if review_reasons(c.content)})
        changes: list[ItemChange] = []
        files: set[str] = set()
        with self._writing():
            for item in [*marks, *deletes, *clears]:
                current = self.store.get(item.file, item.name)
                if content_of(current) != item.content:
                    raise ConflictError(item.file, item.name, item.content, current)
            with self.store.transaction() as tx:  # one commit: all of it lands, or none
                for item in [*marks, *clears]:
                    if (item.file, item.name) in new:
                        after = self.store.add(item.file, item.name, new[(item.file, item.name)], owner=item.owner,
                                               source_conv=item.source_conv, ts=item.ts, detail=what,
                                               expected=item.content, by=self.owner)
                        changes.append(ItemChange(item.file, item.name, item, after))
                        files.add(item.file)
                for d in deletes:
                    self.store.remove(d.file, d.name, by=self.owner, detail=what, expected=d.content)
                    changes.append(ItemChange(d.file, d.name, d, None))
                    files.add(d.file)
            write = Write(what, tuple(changes), edits=tuple(tx.edits))
            if changes:
                self._done(write, files)
        return write

    def restore(self, version: RecallItem, *, expected: str | None, label: str) -> RecallItem:
        """Put an older ``version`` of an item back (content, owner and source), e.g. from git history.

        Checked like an edit: ``expected`` is the content shown as current
        (None: the item does not exist now); ``ts`` is the restore's time
        and the journal's detail names the version (``label``). Undoable.
        """
        file = version.file
        self._writable(f"restored {file}:{version.name} to {label}")
        with self._writing():
            before = self.store.get(file, version.name)
            with self.store.transaction() as tx:
                item = self.store.add(file, version.name, version.content, owner=version.owner,
                                      source_conv=version.source_conv, ts=self.clock(), detail=f"restored {label}",
                                      expected=expected, by=self.owner)
            self._done(Write(f"restore of {file}:{item.name} to {label}", (ItemChange(file, item.name, before, item),),
                             edits=tuple(tx.edits)), [file])
        return item

    def dismiss(self, entries: Sequence[DiaryItem], *, note: str | None = None) -> int:
        """Mark ``entries`` "reviewed, not promoted" in ``reviewed.json`` (curation state, not memory)."""
        self._writable(f"marked {count(len(entries), 'diary entry')} reviewed")
        stamp = self.clock().replace(microsecond=0).isoformat()
        return len(dismiss(self.root, list(entries), by=self.owner, note=note, ts=stamp))

    def undismiss(self, entries: Sequence[DiaryItem]) -> int:
        """Take "reviewed, not promoted" marks back; returns how many were removed."""
        self._writable(f"removed the reviewed mark of {count(len(entries), 'diary entry')}")
        return undismiss(self.root, list(entries))

    def append_diary(self, content: str, *, date: str | None = None, time: str | None = None) -> DiaryItem:
        """Append one diary entry (the diary is append-only: this is never undone)."""
        self._writable("appended a diary entry")
        with self._writing():
            entry = self.diary.append(content, ts=self.clock(), date=date, time=time, owner=self.owner)
            self._done(Write(f"diary entry {entry.date} {entry.time}", diary=entry), dates=[entry.date])
        return entry

    # -- undo ----------------------------------------------------------------------

    def undo(self) -> Write:
        """Take back the last write of this session; returns the write undone.

        Every item the write changed must still be as the write left it,
        checked under the store lock; otherwise :class:`UndoRefused` and
        nothing is written. A diary append is not undone (append-only).
        Either way the write leaves the history, so the next undo reaches
        the one before it.
        """
        self._writable("undone the last write")
        with self._lock:
            if not self.history:
                raise UndoRefused("nothing to undo: the app has written nothing this session")
            write = self.history.pop()
        if write.diary is not None:
            raise UndoRefused(f"the last write was the {write.what}: the diary is append-only, so it is not "
                              "undone (undo again for the write before it)")
        detail = f"undo of {write.what}"
        try:
            with self._writing():
                files = self.store.revert(write.edits, by=self.owner, detail=detail)
                self._done(Write(detail), {*files, *(c.file for c in write.changes)}, remember=False)  # not undone
        except ConflictError as exc:
            raise UndoRefused(f"cannot undo the {write.what}: {exc.file}:{exc.name} changed on disk since; "
                              "nothing written") from exc
        except LossyWriteError as exc:
            raise UndoRefused(f"cannot undo the {write.what}: {exc}") from exc
        except OSError as exc:  # a full disk: the commit rolled itself back
            raise UndoRefused(f"cannot undo the {write.what}: {exc}; nothing written") from exc
        return write


class _BlockFields(Protocol):
    """What a block read back from a write carries (``BlockEdit.block``): the item's fields, unnamed."""

    @property
    def heading(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def owner(self) -> str | None: ...
    @property
    def source_conv(self) -> str | None: ...
    @property
    def ts(self) -> str | None: ...


def _fields(block: _BlockFields) -> tuple[str, str, str | None, str | None, str | None]:
    """What makes a block an item's version: a block rewritten to the same fields was not changed."""
    return block.heading, block.content, block.owner, block.source_conv, block.ts


def _as_item(file: str, block: _BlockFields) -> RecallItem:
    """A rewritten block of ``file`` as the item an undo shows (the storage layer hands back blocks)."""
    return RecallItem(file, block.heading, block.content, block.owner, block.source_conv, block.ts)
