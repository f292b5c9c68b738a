"""A store write of this process applied to the index from its own block edits, without re-reading the file.

Why it exists: after one ``add()`` the store has just rewritten a
200-item file, and re-reading and re-parsing it was most of the next
query. The store hands every commit's block edits to its listeners
(:class:`wikimem.store.transaction.FileWrite`); when their chain of file
identities shows that nothing else wrote the file, the edited blocks are
all that changed, and only they are parsed and diffed. A module apart
from :mod:`wikimem.index.corpus` (which holds the doc ids, name maps and
stats these steps change): this is the one path that trusts a write's own
account instead of the disk, and its checks are what make that safe.

Two ways, by what the writes did. Writes of one block each (an
``add()``, an update, a removal, a rename: nearly every write) are
*steps* on the file's name map, applied in commit order
(:func:`_apply_steps`); they need only each write's edit and its block
count, so such a write carries no copy of the file's blocks
(``FileWrite.segments`` is empty): freeing the store's parse of a
200-item file was ~35-100 us of the query after an ``add()``. A write
of several blocks at once (a move with its link rewrites, an undo of a
transaction) or to a file with repeated headings carries the file's
blocks after it, and the chain is diffed against the last write's
blocks by name (:func:`apply_write`).
"""

from __future__ import annotations

from collections.abc import KeysView, Sequence
from itertools import islice
from typing import NamedTuple, Protocol

from wikimem.disk.blocks import Block
from wikimem.disk.splice import BlockEdit, RawBlock
from wikimem.index.bulk_file import BulkFile
from wikimem.models import RecallItem
from wikimem.store.transaction import FileWrite, Identity, hard_edits

__all__ = ["WikiCorpus", "apply_write", "apply_writes"]


class WikiCorpus(Protocol):
    """What these steps use of :class:`wikimem.index.corpus.WikiCorpus` (named here: the corpus imports this module)."""

    identities: dict[str, Identity | None]
    stats: dict[str, tuple[int, int] | None]

    def _name_map(self, file: str) -> dict[str, int]: ...
    def _forget(self, file: str) -> dict[str, int]: ...
    def _put(self, item: RecallItem, doc: int | None) -> tuple[int, bool]: ...
    def _settle(self, file: str, new: dict[str, int], stat: tuple[int, int] | None, changed: bool) -> bool: ...
    def _drop(self, doc: int) -> None: ...
    def _bulk_file(self, file: str) -> BulkFile | None: ...
    def _tail_changed(self, file: str, old: str | None, new: str | None, doc: int | None) -> None: ...


def apply_writes(corpus: WikiCorpus, writes: Sequence[FileWrite]) -> bool | None:
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
    if file in corpus.identities:
        if corpus.identities[file] != first.before:
            return None
    elif corpus.stats.get(file) != (first.before[:2] if first.before is not None else None):
        return None
    if any(a.after != b.before for a, b in zip(writes, writes[1:])) or not last.current():
        return None
    stat = last.after[:2] if last.after is not None else None
    steps = [_Step(hard[0] if hard else None, w.blocks, w.fresh) for w in writes for hard in [hard_edits(w.edits)] if len(hard) <= 1]
    changed = None
    if len(steps) == len(writes) and (bulk := corpus._bulk_file(file)) is not None:
        changed = _tail_steps(corpus, file, bulk, steps, stat)
    if changed is None and len(steps) == len(writes):
        changed = _apply_steps(corpus, file, steps, stat)
    if changed is None and len(last.segments) == last.blocks:  # the last write kept the file's blocks
        changed = apply_write(corpus, file, last.segments, [e for w in writes for e in w.edits], stat)
    if changed is not None:
        corpus.identities[file] = last.after
    return changed


def apply_write(
    corpus: WikiCorpus,
    file: str,
    segments: Sequence[RawBlock],
    edits: Sequence[BlockEdit],
    stat: tuple[int, int] | None,
) -> bool | None:
    """Apply a store write's own block edits: what :meth:`WikiCorpus.update_file` would do, without reading the file.

    ``segments`` are the file's blocks after the write and ``edits`` what
    it changed (the caller checked that the index holds the file as the
    write found it, and that nobody wrote since). Only the blocks the
    edits name are parsed and diffed: a segment whose bytes an edit left
    is parsed from those bytes, as a re-read would; every other item
    keeps its doc and its object. Returns ``None``, changing nothing,
    when the items the edits left alone are not the ones indexed (the
    index did not hold what the write found: re-read instead).
    """
    hard = hard_edits(edits)
    if len(hard) == 1 and (hard[0].after is None or segments[hard[0].index].raw == hard[0].after):
        done = _apply_steps(corpus, file, [_Step(hard[0], len(segments))], stat)
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
    if corpus._name_map(file).keys() - touched != blocks.keys() - touched:
        return None
    old = corpus._forget(file)
    new: dict[str, int] = {}
    changed = False
    for name, block in blocks.items():
        doc = old.pop(name, None)
        if name in touched:
            doc, fresh = corpus._put(_item(file, block), doc)
            changed |= fresh
        new[name] = doc  # type: ignore[assignment]  # an untouched name is held (checked above)
    for doc in old.values():  # only touched names are left: the write removed them
        corpus._drop(doc)
        changed = True
    return corpus._settle(file, new, stat, changed)


class _Step(NamedTuple):
    """One write of one block: its edit (None: only soft edits, no item changed), the file's block count after it.

    ``fresh``: the names the store appended finding no block so named (``FileWrite.fresh``).
    """

    edit: BlockEdit | None
    blocks: int
    fresh: tuple[str, ...] = ()


def _apply_steps(corpus: WikiCorpus, file: str, steps: Sequence[_Step], stat: tuple[int, int] | None) -> bool | None:
    """Writes of one block each, in order, on the file's name map: all of them, or (``None``) none.

    Each step replaces, renames, inserts or removes one block at its
    position, so the name map stays in the file's block order (what a
    re-read makes, and a hit's file neighbours read), and only the edited
    blocks are parsed. First every step is checked against the names as
    the steps before it leave them (the removed or replaced block has the
    name the map holds at its position, the block count is the map's, a
    new name is not there yet); then they are applied. ``None`` (nothing
    changed): a step does not fit -- repeated headings (fewer names than
    blocks), or a map that is not what the write found -- and the caller
    diffs or re-reads.
    """
    current = corpus._name_map(file)
    names: list[str] | None = None  # made for a second step only: one step reads the map itself
    taken: set[str] | KeysView[str] = current.keys()
    size = len(current)
    plan: list[tuple[int, str | None, Block | None]] = []
    for i, (edit, count, _) in enumerate(steps):
        if edit is None:
            if count != size:
                return None
            continue
        at, before, after = edit.index, edit.before, edit.after
        if before is None and after is None:
            return None
        old = RawBlock(before).heading if before is not None else None
        block = RawBlock(after).block if after is not None else None
        if size + (before is None) - (after is None) != count:
            return None  # repeated headings (fewer names than blocks), or not the file the write found
        if old is not None and (at >= size or (names[at] if names is not None else next(islice(current, at, None))) != old):
            return None
        if block is not None and block.heading != old and block.heading in taken:
            return None  # the new name heads another block too: the parser's last-wins rule decides (diff it)
        plan.append((at, old, block))
        size = count
        if i + 1 < len(steps):  # the next step reads the names as this one leaves them
            if names is None:
                names = list(current)
                taken = set(names)
            assert isinstance(taken, set)
            if old is not None:
                taken.discard(old)
                del names[at]
            if block is not None:
                taken.add(block.heading)
                names.insert(at, block.heading)
    docs = corpus._forget(file)
    changed = False
    for at, old, block in plan:
        if block is not None and block.heading == old:  # replaced in place: the map keeps its order
            docs[old], fresh = corpus._put(_item(file, block), docs[old])
            changed |= fresh
            continue
        if old is not None:
            corpus._drop(docs.pop(old))
            changed = True
        if block is None:
            continue
        doc, _ = corpus._put(_item(file, block), None)
        changed = True
        if at == len(docs):  # appended: the common case, no new map
            docs[block.heading] = doc
        else:
            order = list(docs.items())
            order.insert(at, (block.heading, doc))
            docs = dict(order)
    return corpus._settle(file, docs, stat, changed)


def _tail_steps(
    corpus: WikiCorpus, file: str, bulk: BulkFile, steps: Sequence[_Step], stat: tuple[int, int] | None
) -> bool | None:
    """Writes to a bulk-loaded file that touch no loaded block, in order: all of them, or (``None``) none.

    Appends (of a name the file surely does not hold: :meth:`BulkFile.may_hold`
    and the tail), and updates, removals and renames (of the last) of items
    appended since the load: only the tail changes, and the file's name map
    is not made (making it whole was most of the first write's catch-up).
    The checks are :func:`_apply_steps`'s -- the block count, the name at
    the position, a new name not there yet -- against the tail as the steps
    before leave it, all before any is applied.
    """
    loaded = bulk.blocks.count
    names = list(bulk.tail)  # the tail's names as the steps so far leave them
    plan: list[tuple[str | None, Block | None]] = []
    for edit, count, fresh in steps:
        size = loaded + len(names)
        if edit is None:
            if count != size:
                return None
            continue
        at, before, after = edit.index, edit.before, edit.after
        if before is None:
            if after is None or at != size or count != size + 1:
                return None
            block = RawBlock(after).block
            if block.heading in names or (block.heading not in fresh and bulk.may_hold(block.heading)):
                return None  # (the store's parse found no such name in the file as the index holds it: no search)
            names.append(block.heading)
            plan.append((None, block))
            continue
        if not loaded <= at < size or count != size - (after is None):
            return None
        old = RawBlock(before).heading
        if names[at - loaded] != old:
            return None
        if after is None:
            del names[at - loaded]
            plan.append((old, None))
            continue
        block = RawBlock(after).block
        if block.heading != old:
            if at != size - 1 or block.heading in names or bulk.may_hold(block.heading):
                return None  # a rename before the end, or to a name that may be taken: the general path
            names[-1] = block.heading
        plan.append((old, block))
    tail = bulk.tail
    changed = False
    for gone, made in plan:
        if made is None:  # removed
            assert gone is not None  # a removal names its block
            corpus._drop(tail.pop(gone))
            corpus._tail_changed(file, gone, None, None)
            changed = True
        elif made.heading == gone:  # replaced in place
            tail[gone], reindexed = corpus._put(_item(file, made), tail[gone])
            corpus._tail_changed(file, gone, gone, tail[gone])
            changed |= reindexed
        else:  # appended, or the last renamed
            if gone is not None:
                corpus._drop(tail.pop(gone))
            doc, _ = corpus._put(_item(file, made), None)
            tail[made.heading] = doc
            corpus._tail_changed(file, gone, made.heading, doc)
            changed = True
    return corpus._settle(file, {}, stat, changed)


def _item(file: str, block: Block) -> RecallItem:
    return RecallItem(file, block.heading, block.content, block.owner, block.source_conv, block.ts)
