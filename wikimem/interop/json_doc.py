"""The whole memory as one JSON document, and back: ``wikimem export json`` / ``wikimem import json``.

The document holds what the files hold, as data (items and entries with
their provenance, in file order, the links for a reader's convenience, and
the journal). Read back into an empty store it gives the same memory, so
exporting again gives the same document. Into a store that holds something
it merges as every import does, and its journal is not replayed into
another history.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikimem.disk.names import is_time, validate_date
from wikimem.interop.plan import ImportPlan, SourceError
from wikimem.models import DiaryItem, RecallItem
from wikimem.interop.source_file import load_json

if TYPE_CHECKING:
    from wikimem.store import MemoryStore

__all__ = ["FORMAT", "export_document", "read_document"]

FORMAT = "wikimem-export"
VERSION = 1


def export_document(store: MemoryStore) -> dict[str, Any]:
    """The memory in ``store`` as the export document (see the module docstring)."""
    items = store.items()
    names = {(i.file, i.name) for i in items}
    diary = [{"date": e.date, "time": e.time, "ordinal": e.ordinal, "entry": e.entry_id.render(),
              "content": e.content, "owner": e.owner, "source_conv": e.source_conv, "ts": e.ts}
             for date in store.diary.dates() for e in store.diary.day(date)]
    return {
        "format": FORMAT,
        "version": VERSION,
        "items": [{"file": i.file, "name": i.name, "content": i.content, "owner": i.owner,
                   "source_conv": i.source_conv, "ts": i.ts} for i in items],
        "diary": diary,
        "links": [{"from": f"{i.file}:{i.name}", "to": link.render()[2:-2],
                   "resolved": (link.file, link.name) in names} for i in items for link in i.links],
        "journal": store.journal.entries(),
    }


def _str(record: dict[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    value = record.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise SourceError(f"{where}: {key} must be a string")
    return value


def read_document(path: Path) -> ImportPlan:
    """The plan for an export document written by ``wikimem export json``."""
    doc = load_json(path)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SourceError(f"{path}: not a wikimem export (no \"format\": \"{FORMAT}\")")
    if doc.get("version") != VERSION:
        raise SourceError(f"{path}: export version {doc.get('version')!r} is not {VERSION}")
    plan = ImportPlan("json")
    for n, record in enumerate(doc.get("items") or []):
        where = f"{path}: items[{n}]"
        if not isinstance(record, dict):
            raise SourceError(f"{where}: not an object")
        plan.items.append(RecallItem(
            _str(record, "file", where, required=True) or "", _str(record, "name", where, required=True) or "",
            _str(record, "content", where, required=True) or "", _str(record, "owner", where),
            _str(record, "source_conv", where), _str(record, "ts", where)))
    for n, record in enumerate(doc.get("diary") or []):
        where = f"{path}: diary[{n}]"
        if not isinstance(record, dict):
            raise SourceError(f"{where}: not an object")
        date, time = _str(record, "date", where, required=True) or "", _str(record, "time", where, required=True) or ""
        if not is_time(time):
            plan.notes.append(f"diary {date} {time!r}: not an HH:MM entry, left out")
            continue
        validate_date(date)
        plan.entries.append(DiaryItem(date, time, _str(record, "content", where, required=True) or "",
                                         _str(record, "owner", where), _str(record, "source_conv", where),
                                         _str(record, "ts", where)))
    journal = doc.get("journal")
    if not isinstance(journal, list) or not all(isinstance(line, dict) for line in journal):
        raise SourceError(f"{path}: journal must be a list of objects")
    plan.journal = journal
    return plan
