"""Who links to an item: the wiki's and the diary's backlinks, kept per file by its stat.

``read_item`` answers "what links here", which needs every file's links. A
long-running server must not re-read the whole memory per call, nor answer
from a graph older than the files: each file's outgoing links are kept with
the file's ``(mtime_ns, size)`` and re-read only when that changed (one
``stat`` per file per call), so a write by any process is seen at the next
call. Derived state, in memory only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wikimem.disk.links import WikiLink, find_links
from wikimem.disk.names import normalize_item_name
from wikimem.store import MemoryStore, path_stat

__all__ = ["Backlinks"]

#: One file's stat and, per link target it names, the sources in it (item names or entry keys).
_Facts = tuple[Any, dict[WikiLink, list[str]]]


def _targets(sources: Iterable[tuple[str, str]], here: str | None) -> dict[WikiLink, list[str]]:
    """Per item a text links to (either spelling; ``here`` for same-file links), the sources linking."""
    out: dict[WikiLink, list[str]] = {}
    for source, content in sources:
        if "[[" not in content:
            continue
        for link in {ref.target for ref in find_links(content, here=here) if ref.target is not None}:
            out.setdefault(link, []).append(source)
    return out


class Backlinks:
    """Backlinks of one store, refreshed per file on demand."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._wiki: dict[str, _Facts] = {}
        self._diary: dict[str, _Facts] = {}

    def of(self, file: str, name: str) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
        """``(wiki, diary)`` backlinks of ``file:name``: ``{file, name}`` and ``{date, entry}`` dicts, sorted."""
        target = WikiLink(file, normalize_item_name(name))
        self._refresh()
        wiki = sorted((source_file, source) for source_file, (_, targets) in self._wiki.items()
                      for source in targets.get(target, ()))
        diary = sorted((day, key) for day, (_, targets) in self._diary.items() for key in targets.get(target, ()))
        return ([{"file": f, "name": n} for f, n in wiki], [{"date": d, "entry": k} for d, k in diary])

    def _refresh(self) -> None:
        store = self.store
        files = store.files()
        for gone in set(self._wiki) - set(files):
            del self._wiki[gone]
        for file in files:
            stat = store.file_stat(file)
            if file not in self._wiki or self._wiki[file][0] != stat:
                items = store.file_items(file)
                self._wiki[file] = (stat, _targets(((item.name, item.content) for item in items), file))
        dates = store.diary.dates()
        for gone in set(self._diary) - set(dates):
            del self._diary[gone]
        for day in dates:
            stat = path_stat(store.diary.path(day))
            if day not in self._diary or self._diary[day][0] != stat:
                entries = store.diary.day(day)
                self._diary[day] = (stat, _targets(((entry.entry_id.key, entry.content) for entry in entries), None))
