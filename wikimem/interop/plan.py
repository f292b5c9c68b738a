"""An import as a plan: every item and entry read and validated first, then written in one commit.

A bad file writes nothing: an importer turns its source into an
:class:`ImportPlan` (raising :class:`SourceError` on anything it cannot
read), the plan is validated as a whole, and only then :func:`apply`
writes it in one store transaction: all of it lands or none.

Idempotent by identity: a planned item is found again by its
``source_conv``, else by its name; one that holds the same content, owner
and source is left alone (not its ``ts``: a source without times is stamped
at import). One changed at its source is updated; a name held by an item
from elsewhere is never overwritten (the import takes ``name (2)``). A
diary entry already in its minute with the same content and source is
skipped. So a second run writes nothing.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wikimem.disk.blocks import Block
from wikimem.disk.names import (
    parse_ts,
    sanitize_item_name,
    utc_now_iso,
    validate_content,
    validate_date,
    validate_file,
    validate_meta_value,
    validate_time,
)
from wikimem.disk.splice import append_block, check, replace_block
from wikimem.journal import Journal
from wikimem.models import DiaryItem, RecallItem

if TYPE_CHECKING:
    from wikimem.store import MemoryStore

__all__ = ["ImportPlan", "ImportReport", "SourceError", "apply", "entry_at"]


class SourceError(ValueError):
    """The source cannot be read as its format (bad JSON, a wrong shape, an unreadable file): nothing written."""


def entry_at(ts: str, content: str, *, owner: str | None, source_conv: str | None,
             tz: dt.tzinfo | None = dt.timezone.utc) -> DiaryItem:
    """A planned entry dated by ``ts``: its day and minute on ``tz``'s clock (UTC by default)."""
    local = dt.datetime.fromisoformat(ts).astimezone(tz)
    return DiaryItem(local.strftime("%Y-%m-%d"), local.strftime("%H:%M"), content, owner, source_conv, ts)


@dataclass
class ImportPlan:
    """What one source holds, as this memory's items and entries; ``notes`` say what was left out and why.

    Items and entries are the library's own ``RecallItem`` and ``DiaryItem``
    (an entry's ``ordinal`` is decided when it is written).
    """

    source: str
    items: list[RecallItem] = field(default_factory=list)
    entries: list[DiaryItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Journal lines to write instead of the import's own (``import json`` into an empty store: the history travels).
    journal: list[dict[str, Any]] | None = None

    def validated(self) -> ImportPlan:
        """The plan with every value as it will be written; ``ValueError`` naming the first bad one."""
        items = []
        for it in self.items:
            where = f"{it.file}:{it.name}"
            try:
                items.append(RecallItem(validate_file(it.file), sanitize_item_name(it.name),
                                         validate_content(it.content), validate_meta_value("owner", it.owner),
                                         validate_meta_value("source_conv", it.source_conv),
                                         parse_ts(it.ts) if it.ts is not None else None))
            except ValueError as exc:
                raise ValueError(f"item {where!r}: {exc}") from None
        entries = []
        for e in self.entries:
            try:
                entries.append(DiaryItem(validate_date(e.date), validate_time(e.time), validate_content(e.content),
                                            validate_meta_value("owner", e.owner),
                                            validate_meta_value("source_conv", e.source_conv),
                                            parse_ts(e.ts) if e.ts is not None else None))
            except ValueError as exc:
                raise ValueError(f"diary entry {e.date} {e.time}: {exc}") from None
        return ImportPlan(self.source, items, entries, list(self.notes), self.journal)


@dataclass
class ImportReport:
    """What an import wrote (or, dry, would write)."""

    source: str
    dry_run: bool
    added: list[RecallItem] = field(default_factory=list)
    updated: list[RecallItem] = field(default_factory=list)
    entries: list[tuple[str, DiaryItem]] = field(default_factory=list)  # (entry id, entry)
    unchanged: int = 0
    notes: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def written(self) -> int:
        """How many items and entries were (would be) written."""
        return len(self.added) + len(self.updated) + len(self.entries)

    def as_dict(self) -> dict[str, Any]:
        """The report as the CLI's ``--json`` document (without ``ok``)."""
        def item(it: RecallItem) -> dict[str, Any]:
            return {"file": it.file, "name": it.name, "owner": it.owner, "source_conv": it.source_conv, "ts": it.ts}

        return {"source": self.source, "dry_run": self.dry_run, "added": [item(i) for i in self.added],
                "updated": [item(i) for i in self.updated],
                "entries": [{"entry": key, "date": e.date, "time": e.time, "source_conv": e.source_conv, "ts": e.ts}
                            for key, e in self.entries],
                "unchanged": self.unchanged, "notes": self.notes, "files": self.files}


class _DryRun(Exception):
    """Raised at the end of a dry run's transaction, so it rolls back: the same decisions, nothing written."""


class _FileIndex:
    """One RecallFile as staged in the import's transaction: its items by name and by source, kept up to date.

    The import splices its blocks in itself, the way ``MemoryStore.add``
    does (checked once per file rather than once per item, since every
    item is written under the same lock from the same staged bytes).
    """

    def __init__(self, tx: Any, file: str) -> None:
        self.file = file
        self.raw = tx.raw(file)
        check(self.raw, f"wiki/{file}.md", [], f"importing into {file}")
        blocks = self.raw.parsed()
        self.by_name = {b.heading: b for b in blocks}
        self.by_source = {b.source_conv: b for b in reversed(blocks) if b.source_conv}
        self.position: dict[str, int] = {}
        for at, b in enumerate(blocks):
            self.position.setdefault(b.heading, at)
        self.count = Counter(b.heading for b in blocks)

    def put(self, tx: Any, block: Block, detail: str) -> bool:
        """Stage ``block`` (replacing the item of its name, or appended); whether it was an update."""
        at = self.position.get(block.heading)
        if at is not None:
            if self.count[block.heading] > 1:  # which of them? refused with what would be lost
                check(self.raw, f"wiki/{self.file}.md", [block.heading], f"importing {self.file}:{block.heading}")
            edits = [replace_block(self.raw, self.file, at, block)]
        else:
            edits = append_block(self.raw, self.file, block, f"# {self.file}")
            self.position[block.heading] = len(self.raw.blocks) - 1
            self.count[block.heading] = 1
        entry = Journal.entry("update" if at is not None else "add", file=self.file, name=block.heading,
                              owner=block.owner, source_conv=block.source_conv, detail=detail)
        tx.stage(self.file, self.raw, edits, [entry])
        self.by_name[block.heading] = block
        if block.source_conv:
            self.by_source.setdefault(block.source_conv, block)
        return at is not None


def _same(block: Block, it: RecallItem) -> bool:
    return (block.content, block.owner, block.source_conv) == (it.content, it.owner, it.source_conv)


def _free_name(index: _FileIndex, name: str) -> str:
    n = 2
    while f"{name} ({n})" in index.by_name:
        n += 1
    return f"{name} ({n})"


def apply(store: MemoryStore, plan: ImportPlan, *, dry_run: bool = False) -> ImportReport:
    """Write ``plan`` into ``store`` in one commit (``dry_run``: decide everything, write nothing).

    ``ValueError`` (nothing written) when the plan holds a value this format
    cannot store, or a file it would change is damaged (``LossyWriteError``);
    ``OSError`` when the disk refuses the commit (which then left nothing).
    """
    plan = plan.validated()
    report = ImportReport(plan.source, dry_run, notes=list(plan.notes))
    detail = f"imported from {plan.source}"
    try:
        with store.transaction() as tx:
            empty = plan.journal is not None and _is_empty(store)
            _stage_items(tx, plan, report, detail)
            _stage_entries(tx, plan, report, detail)
            if plan.journal is not None and report.written:
                if empty:
                    tx.entries[:] = plan.journal  # the restored memory's own history, not lines saying "imported"
                else:
                    report.notes.append("the document's journal was not restored: the store was not empty")
            files = dict.fromkeys([f"wiki/{i.file}.md" for i in report.added + report.updated]
                                  + [f"diary/{e.date}.md" for _, e in report.entries])
            report.files = sorted(files)
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass
    return report


def _is_empty(store: MemoryStore) -> bool:
    """No RecallFile, no diary day, no journal line: a store a whole memory can be restored into as it was."""
    journal = store.journal.path
    return not store.files() and not store.diary.dates() and (not journal.exists() or journal.stat().st_size == 0)


def _stage_items(tx: Any, plan: ImportPlan, report: ImportReport, detail: str) -> None:
    indexes: dict[str, _FileIndex] = {}
    for it in plan.items:
        index = indexes.get(it.file)
        if index is None:
            index = indexes[it.file] = _FileIndex(tx, it.file)
        found = index.by_source.get(it.source_conv) if it.source_conv else None
        if found is None:
            found = index.by_name.get(it.name)
            if found is not None and found.source_conv != it.source_conv and not _same(found, it):
                found, it = None, RecallItem(it.file, _free_name(index, it.name), it.content, it.owner,
                                             it.source_conv, it.ts)
        if found is not None and _same(found, it):
            report.unchanged += 1
            continue
        block = Block(found.heading if found is not None else it.name, it.content, it.owner, it.source_conv,
                      it.ts or utc_now_iso())
        updated = index.put(tx, block, detail)
        written = RecallItem(it.file, block.heading, block.content, block.owner, block.source_conv, block.ts)
        (report.updated if updated else report.added).append(written)


def _stage_entries(tx: Any, plan: ImportPlan, report: ImportReport, detail: str) -> None:
    from wikimem.diary import insert_entry
    from wikimem.disk.entry_id import EntryId

    # As multisets: the n-th planned copy of an entry is new when the day held fewer than n (a source may say
    # the same thing twice in one minute, and a restored memory must keep both).
    have: dict[str, Counter[tuple[str, str, str | None]]] = {}
    days: dict[str, Any] = {}  # each day read once: the staged copy is this same object once it changed
    used: Counter[tuple[str, str, str, str | None]] = Counter()
    for e in plan.entries:
        raw = days.get(e.date)
        if raw is None:
            raw = days[e.date] = tx.day(e.date)
            check(raw, f"diary/{e.date}.md", [], f"importing into the diary of {e.date}", unique=False)
            have[e.date] = Counter((b.heading, b.content, b.source_conv) for b in raw.parsed())
        held = have[e.date]
        used[(e.date, e.time, e.content, e.source_conv)] += 1
        if used[(e.date, e.time, e.content, e.source_conv)] <= held[(e.time, e.content, e.source_conv)]:
            report.unchanged += 1
            continue
        block = Block(e.time, e.content, e.owner, e.source_conv, e.ts or utc_now_iso())
        ordinal, journaled = insert_entry(raw, e.date, block, detail=detail)
        tx.stage_day(e.date, raw, [journaled])
        report.entries.append((EntryId(e.date, e.time, ordinal).render(), e))
