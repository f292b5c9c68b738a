"""MemoryStore: the wiki (state layer), one RecallFile per topic under ``wiki/``.

The markdown files are the only truth; the store keeps no cache of their
content, so what it returns is what is on disk right now. Every write is a
locked read-modify-write of one whole file: the file is re-read under the
store lock (another process may have written it a moment ago), changed,
validated, written atomically, and journaled.

Checked writes (``expected=`` on ``add``/``remove``/``move``) compare the
caller's last read with the file re-read *under that same lock*, so no write
can land between the check and the write it guards. ``locked()`` extends
the lock over several writes (an undo that restores a move and its link
rewrites, say) so they are checked and applied as one step.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from wikimem.blocks import Block, ParsedFile, atomic_write, read_blocks, render_file, store_lock
from wikimem.diary import Diary
from wikimem.errors import ConflictError
from wikimem.journal import Journal, utc_now_iso
from wikimem.links import WikiLink, rewrite_link
from wikimem.models import RecallItem
from wikimem.tolerant import UnreadableError, warn_unreadable
from wikimem.names import (
    normalize_item_name,
    parse_ts,
    sanitize_item_name,
    validate_content,
    validate_file,
    validate_meta_value,
)

__all__ = ["MemoryStore", "path_stat"]


def path_stat(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """``(mtime_ns, size)`` of any file, or ``None`` when it cannot be read: a cheap change detector.

    One definition for everything that asks "did this file change since I
    read it" (the store's RecallFiles, lint's baseline, the app's watcher
    and caches), so they all agree on what a change is.
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)

#: Called with a RecallFile name after every successful in-process write to it.
WriteListener = Callable[[str], None]


class _Unchecked:
    """The default of ``expected=``: no check (``None`` means "must not exist")."""

    def __repr__(self) -> str:
        return "UNCHECKED"


#: ``expected=`` omitted: the write is unchecked, as in the reference library.
UNCHECKED: Any = _Unchecked()


def _to_item(file: str, block: Block) -> RecallItem:
    return RecallItem(file, block.heading, block.content, block.owner, block.source_conv, block.ts)


def _collapse(blocks: list[Block]) -> dict[str, Block]:
    """Wiki semantics for repeated headings: the last one wins, at the first's place."""
    by_name: dict[str, Block] = {}
    for block in blocks:
        by_name[block.heading] = block
    return by_name


class MemoryStore:
    """File-first memory rooted at ``root``; constructing it touches no files."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.wiki_dir = self.root / "wiki"
        self.journal = Journal(self.root / "journal.jsonl")
        #: Bumped by every successful in-process wiki write (not diary, not hand edits).
        self.revision = 0
        self._diary: Diary | None = None
        self._listeners: list[WriteListener] = []

    # -- reading ------------------------------------------------------------

    @property
    def diary(self) -> Diary:
        """The event layer, built on first use and sharing this store's journal."""
        if self._diary is None:
            self._diary = Diary(self.root, journal=self.journal)
        return self._diary

    def file_path(self, file: str) -> Path:
        """Where the RecallFile ``file`` lives (whether or not it exists)."""
        return self.wiki_dir / f"{file}.md"

    def files(self) -> list[str]:
        """Sorted RecallFile names: the stems of ``wiki/*.md``."""
        try:
            entries = list(os.scandir(self.wiki_dir))
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(
            e.name[:-3] for e in entries if e.name.endswith(".md") and e.is_file() and len(e.name) > 3
        )

    def file_items(self, file: str) -> list[RecallItem]:
        """Tolerant read of one RecallFile (repeated headings collapsed); [] if missing.

        A file that exists but cannot be read (permission, not a regular
        file, a symlink out of the memory) is [] too, with one WARNING; a
        write to it raises instead (see :mod:`wikimem.tolerant`).
        """
        try:
            parsed = self._read(file)
        except UnreadableError as exc:
            warn_unreadable(exc)
            return []
        return [_to_item(file, b) for b in _collapse(parsed.blocks).values()]

    def file_stat(self, file: str) -> tuple[int, int] | None:
        """``(mtime_ns, size)`` of a RecallFile, or ``None``: a cheap change detector."""
        return path_stat(self.file_path(file))

    def items(self, file: str | None = None) -> list[RecallItem]:
        """Every item of one RecallFile, or of all of them in file order."""
        if file is not None:
            return self.file_items(file)
        return [item for name in self.files() for item in self.file_items(name)]

    def get(self, file: str, name: str) -> RecallItem | None:
        """The item ``file:name`` (name whitespace-normalized first), or ``None``."""
        wanted = normalize_item_name(name)
        return next((item for item in self.file_items(file) if item.name == wanted), None)

    # -- writing ------------------------------------------------------------

    def add(
        self,
        file: str,
        name: str,
        content: str,
        *,
        owner: str | None = None,
        source_conv: str | None = None,
        ts: str | dt.datetime | None = None,
        detail: str | None = None,
        expected: str | None = UNCHECKED,
        by: str | None = None,
    ) -> RecallItem:
        """Insert or replace ``file:name``; journals ``add`` or ``update``.

        ``ts`` defaults to now (UTC). ``detail`` is a free-form note for the
        journal line (e.g. why a curation step wrote this). ``by`` records
        who wrote it on the journal line when that is not the item's owner
        (an app editing an agent's memory keeps the memory's owner and says
        who edited). Raises ``ValueError`` naming the problem, and writes
        nothing, when a name, the content or a provenance value would not
        survive a round trip. With ``expected`` (the content last read, or
        ``None`` for "must not exist yet") a different current content
        raises :class:`~wikimem.ConflictError` and nothing is written.
        """
        block = self._make_block(file, name, content, owner, source_conv, ts)
        by = validate_meta_value("by", by)
        with store_lock(self.root):
            parsed = self._read(file)
            by_name = _collapse(parsed.blocks)
            self._check(file, by_name, block.heading, expected)
            action = "update" if block.heading in by_name else "add"
            by_name[block.heading] = block
            self._write(file, parsed, list(by_name.values()))
            self.journal.append(action, file=file, name=block.heading, owner=block.owner,
                                source_conv=block.source_conv, detail=detail, by=by)
        self._changed(file)
        return _to_item(file, block)

    def remove(
        self,
        file: str,
        name: str,
        *,
        owner: str | None = None,
        expected: str | None = UNCHECKED,
        detail: str | None = None,
    ) -> bool:
        """Delete ``file:name``; the last item's removal deletes the file.

        Returns ``False`` (and journals nothing) when there was no such item.
        With ``expected`` the item must still hold that content (``None``:
        must not exist, which makes this a no-op) or
        :class:`~wikimem.ConflictError` is raised and nothing is written.
        """
        return self._remove(file, name, owner=owner, detail=detail, expected=expected)

    def _remove(
        self,
        file: str,
        name: str,
        *,
        owner: str | None,
        detail: str | None = None,
        expected: str | None = UNCHECKED,
    ) -> bool:
        validate_file(file)
        wanted = normalize_item_name(name)
        owner = validate_meta_value("owner", owner)
        with store_lock(self.root):
            parsed = self._read(file)
            by_name = _collapse(parsed.blocks)
            self._check(file, by_name, wanted, expected)
            if wanted not in by_name:
                return False
            del by_name[wanted]
            self._write(file, parsed, list(by_name.values()))
            self.journal.append("remove", file=file, name=wanted, owner=owner, detail=detail)
        self._changed(file)
        return True

    def move(
        self,
        file: str,
        name: str,
        *,
        new_file: str | None = None,
        new_name: str | None = None,
        owner: str | None = None,
        rewrite_links: bool = True,
        expected: str | None = UNCHECKED,
        detail: str | None = None,
    ) -> RecallItem:
        """Rename ``file:name`` and/or move it to another RecallFile, as one operation.

        Provenance (owner, source, ts) travels with the item. With
        ``rewrite_links`` every ``[[file:name]]`` pointing at the old address
        is rewritten to the new one, so nothing dangles. Everything happens
        under one lock; the journal gets ``add`` for the new address,
        ``update`` for each item whose links were rewritten and ``remove``
        for the old address, each with a ``detail`` saying why (``detail``,
        when given, replaces the default "moved from … to …"). With
        ``expected`` the item must still hold that content or
        :class:`~wikimem.ConflictError` is raised and nothing is written.
        """
        target_file = validate_file(new_file if new_file is not None else file)
        target_name = sanitize_item_name(new_name if new_name is not None else name)
        old_name = normalize_item_name(name)
        owner = validate_meta_value("owner", owner)
        old = WikiLink(file, old_name)
        old_link, new_link = old.render(), WikiLink(target_file, target_name).render()
        with store_lock(self.root):
            current = self.get(validate_file(file), old_name)
            if expected is not UNCHECKED and (current.content if current else None) != expected:
                raise ConflictError(file, old_name, expected, current)
            if current is None:
                raise ValueError(f"no item {file}:{old_name}")
            if (target_file, target_name) == (file, old_name):
                return current
            if self.get(target_file, target_name) is not None:
                raise ValueError(f"{target_file}:{target_name} already exists")
            detail = detail or f"moved from {old_link} to {new_link}"
            block = Block(target_name, current.content, current.owner, current.source_conv, current.ts)
            moved = self._put(target_file, block, replacing=old_name if target_file == file else None)
            self.journal.append("add", file=target_file, name=target_name, owner=owner, detail=detail)
            if target_file == file:
                self.journal.append("remove", file=file, name=old_name, owner=owner, detail=detail)
            else:
                self._remove(file, old_name, owner=owner, detail=detail)
            if rewrite_links:
                self._rewrite_links(old, new_link, owner, detail)
        self._changed(target_file)
        return moved

    def _put(self, file: str, block: Block, *, replacing: str | None = None) -> RecallItem:
        """Insert one block, or put it in the place of ``replacing``; callers journal."""
        parsed = self._read(file)
        by_name = _collapse(parsed.blocks)
        blocks = [block if b.heading == replacing else b for b in by_name.values()]
        if replacing not in by_name:
            blocks.append(block)
        self._write(file, parsed, blocks)
        return _to_item(file, block)

    def _rewrite_links(self, old: WikiLink, new_link: str, owner: str | None, detail: str) -> None:
        for file in self.files():
            parsed = self._read(file)
            by_name = _collapse(parsed.blocks)
            changed: list[str] = []
            for block in by_name.values():
                rewritten = rewrite_link(block.content, old, new_link)
                if rewritten != block.content:
                    block.content = rewritten
                    changed.append(block.heading)
            if changed:
                self._write(file, parsed, list(by_name.values()))
                for heading in changed:
                    self.journal.append("update", file=file, name=heading, owner=owner,
                                        detail=f"link rewrite: {detail}")
                self._changed(file)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's write lock across several writes (re-entrant in a thread).

        Other processes' writes wait; this thread's ``add``/``remove``/``move``
        run inside it. Use it to check and apply a group of writes as one
        step: read, compare, write, with nothing landing in between.
        Creates the memory directory and its lock file, like any write.
        """
        with store_lock(self.root):
            yield

    def add_listener(self, callback: WriteListener) -> None:
        """Call ``callback(file)`` after each successful in-process write to ``file``.

        This is how a ``MemoryIndex`` updates just that file's postings
        instead of rebuilding after every write.
        """
        self._listeners.append(callback)

    def remove_listener(self, callback: WriteListener) -> None:
        """Stop calling a listener added with :meth:`add_listener`."""
        if callback in self._listeners:
            self._listeners.remove(callback)

    # -- internals ----------------------------------------------------------

    def _check(self, file: str, by_name: dict[str, Block], name: str, expected: str | None) -> None:
        """Raise ``ConflictError`` unless ``file:name`` (re-read under the lock) holds ``expected``."""
        if expected is UNCHECKED:
            return
        block = by_name.get(name)
        current = block.content if block is not None else None
        if current != expected:
            raise ConflictError(file, name, expected, _to_item(file, block) if block is not None else None)

    def _read(self, file: str) -> ParsedFile:
        # Reads never raise, but a name with a path in it must not reach
        # outside wiki/: such a file cannot exist there, so it is empty.
        if "/" in file or "\\" in file or file in ("", ".", ".."):
            return ParsedFile("", [])
        return read_blocks(self.file_path(file))

    def _make_block(
        self,
        file: str,
        name: str,
        content: str,
        owner: str | None,
        source_conv: str | None,
        ts: str | dt.datetime | None,
    ) -> Block:
        validate_file(file)
        return Block(
            heading=sanitize_item_name(name),
            content=validate_content(content),
            owner=validate_meta_value("owner", owner),
            source_conv=validate_meta_value("source_conv", source_conv),
            ts=parse_ts(ts) if ts is not None else utc_now_iso(),
        )

    def _write(self, file: str, parsed: ParsedFile, blocks: list[Block]) -> None:
        self.journal.check()  # a journal that would refuse the line refuses the write, before it lands
        path = self.file_path(file)
        if not blocks:
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            return
        # A hand-written preamble (title, notes) is kept; a new file gets "# file".
        atomic_write(path, render_file(parsed.preamble or f"# {file}", blocks))

    def _changed(self, file: str) -> None:
        self.revision += 1
        for callback in list(self._listeners):
            callback(file)
