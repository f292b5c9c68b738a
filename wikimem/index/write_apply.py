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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from wikimem.disk.blocks import Block
from wikimem.disk.splice import BlockEdit, RawBlock
from wikimem.models import RecallItem
from wikimem.store.transaction import FileWrite, Identity

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
    edits = [edit for write in writes for edit in write.edits]
    changed = apply_write(corpus, file, last.segments, edits, last.after[:2] if last.after is not None else None)
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
    # A soft edit changes only a block's trailing line breaks, which the
    # parser drops (``parse_blocks``: ``body.rstrip()``): its item is the same.
    hard = [e for e in edits if e.index >= 0 and not e.soft]
    if len(hard) == 1:
        done = _apply_one(corpus, file, segments, hard[0], stat)
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
            doc, fresh = corpus._put(RecallItem(file, name, block.content, block.owner, block.source_conv, block.ts), doc)
            changed |= fresh
        new[name] = doc  # type: ignore[assignment]  # an untouched name is held (checked above)
    for doc in old.values():  # only touched names are left: the write removed them
        corpus._drop(doc)
        changed = True
    return corpus._settle(file, new, stat, changed)


def _apply_one(corpus: WikiCorpus, file: str, segments: Sequence[RawBlock], edit: BlockEdit, stat: tuple[int, int] | None) -> bool | None:
    """One block replaced, appended at the end or removed, in a file without repeated headings: in place.

    What the general path of :func:`apply_write` does, without parsing
    and diffing every block of the file (a 200-item file: ~0.5 ms of
    the query after an ``add()``): the name map keeps its order (a
    replaced name keeps its place, an appended one goes last, a removed
    one leaves), and only the edited block is parsed. ``None``: not
    such an edit, or the edit does not fit the map (the general path
    decides).
    """
    names = corpus._name_map(file)
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
    names = corpus._forget(file)
    if block is None:
        assert old is not None
        corpus._drop(names.pop(old))
        return corpus._settle(file, names, stat, True)
    item = RecallItem(file, block.heading, block.content, block.owner, block.source_conv, block.ts)
    names[block.heading], changed = corpus._put(item, names.get(block.heading))
    return corpus._settle(file, names, stat, changed)
