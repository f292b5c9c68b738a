"""MemoryStore: the wiki (state layer), one RecallFile per topic under ``wiki/``.

The markdown files are the only truth; the store keeps no cache of their
content. Every write is a locked read-modify-write: the file is re-read
under the store lock, the one block addressed is spliced in between the
untouched bytes of the others (``wikimem.disk.splice``), and the result is
committed with its journal lines as one step (``wikimem.store.transaction``),
through an intent record when it spans several files, so it lands whole or
not at all. Checked writes (``expected=``) compare the caller's last read
with the file re-read *under that same lock*, so no write can land between
the check and the write it guards.

Journal lines name the item's owner as ``owner`` and whoever acted as
``by`` (``remove``'s and ``move``'s ``owner=`` argument is who acted).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from wikimem.disk.blocks import Block, ParsedFile, read_blocks
from wikimem.diary import Diary
from wikimem.errors import ConflictError
from wikimem.disk.names import utc_now_iso
from wikimem.journal import Journal
from wikimem.disk.links import WikiLink, anchor_relative, respell_links
from wikimem.disk.settings import Settings, read_settings
from wikimem.disk.frontmatter import MAX_FRONTMATTER, FileMeta, read_file_meta
from wikimem.disk.lock import store_lock
from wikimem.disk.store_dir import own_folder
from wikimem.disk.splice import BlockEdit, append_block, check, drop_block, replace_block
from wikimem.store.listeners import WriteListeners
from wikimem.store.transaction import Transaction, current, revert, rewrite_contents, rewrite_links_to, transaction
from wikimem.models import RecallItem
from wikimem.disk.tolerant import UnreadableError, open_regular, warn_unreadable
from wikimem.disk.names import (
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


class MemoryStore(WriteListeners):
    """File-first memory rooted at ``root``; constructing it touches no files.

    Its write listeners (``add_listener``, ``add_write_listener``, ``revision``)
    are :class:`~wikimem.store.listeners.WriteListeners`'.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        super().__init__()
        self.root = Path(root)
        self.wiki_dir = self.root / "wiki"
        self._wiki = str(self.wiki_dir)
        self.journal = Journal(self.root / "journal.jsonl")
        self._diary: Diary | None = None

    # -- reading ------------------------------------------------------------

    @property
    def diary(self) -> Diary:
        """The event layer, built on first use and sharing this store's journal."""
        if self._diary is None:
            self._diary = Diary(self.root, journal=self.journal)
        return self._diary

    def notify_day_write(self, date: str) -> None:
        """A transaction (an import) wrote the diary day ``date``: tell the diary's listeners, as an append does."""
        if self._diary is not None:  # no Diary yet: nobody listens to it
            self._diary.notify_write(date)

    def file_path(self, file: str) -> Path:
        """Where the RecallFile ``file`` lives (whether or not it exists)."""
        return self.wiki_dir / f"{file}.md"

    def files(self) -> list[str]:
        """Sorted RecallFile names: the stems of ``wiki/*.md``."""
        try:
            entries = list(os.scandir(self.wiki_dir)) if own_folder(self.root, "wiki") else []
        except (FileNotFoundError, NotADirectoryError):
            entries = []
        names = {e.name[:-3] for e in entries if e.name.endswith(".md") and e.is_file() and len(e.name) > 3}
        tx = current(self)
        if tx is not None:  # this thread's staged writes: files made or emptied
            for name in tx.staged_files():
                (names.add if tx.staged(name).data() is not None else names.discard)(name)  # type: ignore[union-attr]
        return sorted(names)

    def file_items(self, file: str) -> list[RecallItem]:
        """Tolerant read of one RecallFile (repeated headings collapsed); [] if missing.

        A file that exists but cannot be read (permission, not a regular
        file, a symlink out of the memory) is [] too, with one WARNING; a
        write to it raises instead (see :mod:`wikimem.disk.tolerant`).
        """
        try:
            parsed = self._read(file)
        except UnreadableError as exc:
            warn_unreadable(exc)
            return []
        return [_to_item(file, b) for b in _collapse(parsed.blocks).values()]

    def file_stat(self, file: str) -> tuple[int, int] | None:
        """``(mtime_ns, size)`` of a RecallFile, or ``None``: a cheap change detector."""
        # The path as a string (os.path.join resolves an absolute part as the
        # ``/`` of file_path does): a cold load stats every file, and a
        # ``Path`` made for each costs a parse.
        return path_stat(os.path.join(self._wiki, f"{file}.md"))

    def file_meta(self, file: str) -> FileMeta:
        """The tags and aliases of a RecallFile's frontmatter (:mod:`wikimem.disk.frontmatter`); empty when none.

        Read from the file as it is now (never cached, never written: the
        frontmatter is the person's, kept byte for byte by every write), and
        only its head: a recall filter on tags asks this of every candidate's
        file, and a frontmatter is at most :data:`MAX_FRONTMATTER` long.
        """
        validate_file(file)
        try:
            if not own_folder(self.root, "wiki"):
                return FileMeta()
            handle = open_regular(self.file_path(file), root=self.root)
            if handle is None:
                return FileMeta()
            with handle:
                data = handle.read(MAX_FRONTMATTER + 4096)
        except OSError:
            return FileMeta()
        if not data.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
            return FileMeta()
        return read_file_meta(data.decode("utf-8", "replace"))

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
        survive a round trip, or (``LossyWriteError``) when the write would
        lose bytes it does not address. With ``expected`` (the content last
        read, or ``None`` for "must not exist yet") a different current
        content raises :class:`~wikimem.ConflictError` and nothing is written.
        """
        block = self._make_block(file, name, content, owner, source_conv, ts)
        by = validate_meta_value("by", by)
        with self.transaction() as tx:
            raw = tx.raw(file)
            where = raw.indexes(block.heading)
            check(raw, _label(file), [block.heading], f"writing {file}:{block.heading}")
            self._check(file, raw.blocks[where[-1]].block if where else None, block.heading, expected)
            edits = [replace_block(raw, file, where[0], block)] if where else append_block(raw, file, block, f"# {file}")
            tx.stage(file, raw, edits, [Journal.entry("update" if where else "add", file=file, name=block.heading,
                                                      owner=block.owner, source_conv=block.source_conv,
                                                      detail=detail, by=by)])
        return _to_item(file, block)

    def remove(
        self,
        file: str,
        name: str,
        *,
        owner: str | None = None,
        expected: str | None = UNCHECKED,
        detail: str | None = None,
        by: str | None = None,
    ) -> bool:
        """Delete ``file:name``; the last item's removal deletes a file that holds nothing else.

        A file with anything besides the item and its generated ``# file``
        title (hand-written notes, another title) is kept. Returns ``False``
        (and journals nothing) when there was no such item. ``owner`` (or
        ``by``) names who removed it: the journal line's ``by``, its
        ``owner`` being the item's. With ``expected`` the item must still
        hold that content (``None``: must not exist, which makes this a
        no-op) or :class:`~wikimem.ConflictError` is raised and nothing is
        written.
        """
        validate_file(file)
        wanted = normalize_item_name(name)
        by = validate_meta_value("by", by) or validate_meta_value("owner", owner)
        with self.transaction() as tx:
            raw = tx.raw(file)
            where = raw.indexes(wanted)
            block = raw.blocks[where[-1]].block if where else None
            self._check(file, block, wanted, expected)
            if block is None:
                return False
            # Removing bytes the caller asked to remove loses nothing else; a repeated heading does (which one?).
            check(raw, _label(file), [wanted] if len(where) > 1 else [], f"removing {file}:{wanted}")
            tx.stage(file, raw, drop_block(raw, file, where[0], f"# {file}"),
                     [Journal.entry("remove", file=file, name=wanted, owner=block.owner, detail=detail, by=by)])
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
        by: str | None = None,
    ) -> RecallItem:
        """Rename ``file:name`` and/or move it to another RecallFile, as one operation.

        Provenance (owner, source, ts) travels with the item; a rename stays
        where the item was in its file. With ``rewrite_links`` every link
        that resolves to the old address is rewritten to the new one, so
        nothing dangles. All files change in one commit (an intent record
        makes it whole or absent; the new address is written first and the
        old one last, so a reader sees the item at one address or both,
        never at none). The journal gets ``add`` for the new address,
        ``update`` for each item whose links were rewritten and ``remove``
        for the old address, each with a ``detail`` saying why (``detail``,
        when given, replaces the default "moved from … to …"); ``owner``
        (or ``by``) is who moved it. With ``expected`` the item must still
        hold that content or :class:`~wikimem.ConflictError` is raised and
        nothing is written.
        """
        validate_file(file)
        target_file = validate_file(new_file if new_file is not None else file)
        target_name = sanitize_item_name(new_name if new_name is not None else name)
        old_name = normalize_item_name(name)
        by = validate_meta_value("by", by) or validate_meta_value("owner", owner)
        old, new = WikiLink(file, old_name), WikiLink(target_file, target_name)
        with self.transaction() as tx:
            src = tx.raw(file)
            where = src.indexes(old_name)
            current = _to_item(file, src.blocks[where[-1]].block) if where else None
            if expected is not UNCHECKED and (current.content if current else None) != expected:
                raise ConflictError(file, old_name, expected, current)
            if current is None:
                raise ValueError(f"no item {file}:{old_name}")
            if new == old:
                return current
            dst = src if target_file == file else tx.raw(target_file)
            if dst.indexes(target_name):
                raise ValueError(f"{target_file}:{target_name} already exists")
            what = f"moving {old.render()} to {new.render()}"
            check(src, _label(file), [old_name], what)
            check(dst, _label(target_file), [], what)
            detail = detail or f"moved from {old.render()} to {new.render()}"
            # Its same-file links ([[#name]]) keep pointing into the file it leaves.
            content = current.content if target_file == file else anchor_relative(current.content, file)
            block = Block(target_name, content, current.owner, current.source_conv, current.ts)
            said = {"owner": block.owner, "detail": detail, "by": by}
            added = Journal.entry("add", file=target_file, name=target_name, source_conv=block.source_conv, **said)
            removed = Journal.entry("remove", file=file, name=old_name, **said)
            if target_file == file:
                tx.stage(file, src, [replace_block(src, file, where[0], block)], [added, removed])
            else:
                tx.stage(target_file, dst, append_block(dst, target_file, block, f"# {target_file}"), [added])
            if rewrite_links:
                rewrite_links_to(tx, old, new, by, f"link rewrite: {detail}",
                                 skip=None if target_file == file else (file, old_name))
            if target_file != file:
                src = tx.raw(file)
                tx.stage(file, src, drop_block(src, file, src.indexes(old_name)[0], f"# {file}"), [removed])
            final = tx.raw(target_file)
            moved = _to_item(target_file, final.blocks[final.indexes(target_name)[0]].block)
        return moved

    @property
    def settings(self) -> Settings:
        """The memory's ``wikimem.toml`` (:mod:`wikimem.disk.settings`), read now; defaults where it is absent or broken."""
        return read_settings(self.root)[0]

    def respell_links(self, spelling: str | None = None, *, owner: str | None = None,
                      dry_run: bool = False) -> list[tuple[str, str]]:
        """Write every wiki item's links in ``spelling`` (default: the memory's setting), as one operation.

        ``"obsidian"`` turns ``[[file:name]]`` into ``[[file#name]]`` (a vault
        then resolves them); ``"reference"`` the other way. What has no form
        in the other spelling is left as written (:func:`wikimem.disk.links.respell_links`).
        Diary entries are evidence and never rewritten. Returns the items
        changed (``(file, name)``); with ``dry_run`` nothing is written.
        Journaled as ``update`` lines with a ``detail``; ``owner`` is who did it.
        """
        target = spelling if spelling is not None else self.settings.link_spelling
        respell_links("", target)  # ValueError for an unknown spelling, before anything is read
        if dry_run:
            return [(item.file, item.name) for item in self.items()
                    if respell_links(item.content, target, here=item.file) != item.content]
        by = validate_meta_value("owner", owner)
        changed: list[tuple[str, str]] = []

        def rewrite(file: str, heading: str, content: str) -> str:
            after = respell_links(content, target, here=file)
            if after != content:
                changed.append((file, heading))
            return after

        with self.transaction() as tx:
            rewrite_contents(tx, rewrite, lambda file, data: True, by, f"links respelled ({target})",
                             f"respelling the links ({target})")
        return changed

    def transaction(self) -> AbstractContextManager[Transaction]:
        """Group this thread's writes into one commit: all land, or (raising) none.

        A context manager yielding a :class:`~wikimem.store.transaction.Transaction`
        whose ``edits`` (after the block) are every block's raw bytes before
        and after: hand them to :meth:`revert` to undo the group. Holds the
        store lock; reads inside see the staged writes.
        """
        return transaction(self)

    def revert(self, edits: Sequence[BlockEdit], *, by: str | None = None, detail: str | None = None) -> list[str]:
        """Put back the bytes ``edits`` replaced, if every block still holds exactly what they left.

        Checked under the store lock, whole block (content, owner, source,
        ts and layout): anything changed since raises
        :class:`~wikimem.ConflictError` and nothing is written. A block
        changed in place goes back where it is; a removed one to its old
        position. One commit (several files: one intent record), journaled
        per item with ``detail`` and ``by``. Returns the files written.
        """
        by = validate_meta_value("by", by)
        with self.transaction() as tx:
            revert(tx, edits, by=by, detail=detail)
        return tx.files

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's write lock across several writes (re-entrant in a thread).

        Other processes' writes wait; this thread's ``add``/``remove``/``move``
        run inside it. Use it to check and apply a group of writes as one
        step: read, compare, write, with nothing landing in between.
        Creates the memory directory, like any write.
        """
        with store_lock(self.root):
            yield

    # -- internals ----------------------------------------------------------

    def _check(self, file: str, block: Block | None, name: str, expected: str | None) -> None:
        """Raise ``ConflictError`` unless ``file:name`` (re-read under the lock) holds ``expected``."""
        if expected is UNCHECKED:
            return
        current = block.content if block is not None else None
        if current != expected:
            raise ConflictError(file, name, expected, _to_item(file, block) if block is not None else None)

    def _read(self, file: str) -> ParsedFile:
        # Reads never raise, but a name with a path in it must not reach
        # outside wiki/: such a file cannot exist there, so it is empty.
        if "/" in file or "\\" in file or file in ("", ".", "..") or not own_folder(self.root, "wiki"):
            return ParsedFile("", [])
        tx = current(self)
        staged = tx.parsed(file) if tx is not None else None
        return staged if staged is not None else read_blocks(self.file_path(file))

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


def _label(file: str) -> str:
    return f"wiki/{file}.md"
