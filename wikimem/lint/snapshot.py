"""A read-only picture of a memory directory's files, refreshable file by file.

Lint and the curation queries both need "every item, what it links to and
what it cites". The snapshot reads each ``wiki/*.md`` and ``diary/*.md``
once into :class:`~wikimem.lint.scan.FileFacts` and remembers each file's
``(mtime_ns, size)``; :meth:`Snapshot.refresh` re-reads only the files whose
signature changed (or that the caller names) and updates every index from
the difference (items by name, diary minutes, who links to what, who cites
what, which claims are grounded), so an app that re-lints after every edit
pays for the edit, not for the store. Nothing here writes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter
from pathlib import Path

from wikimem.lint.graph import LinkIndex, Support
from wikimem.lint.scan import FileFacts, ItemFacts, Target, scan_file, unreadable_file
from wikimem.disk.atomic import temp_of
from wikimem.disk.tolerant import UnreadableError, read_regular
from wikimem.disk.store_dir import own_folder

__all__ = ["Changes", "Snapshot", "item_keys", "relative_path"]

_KINDS = (("wiki", "wiki"), ("diary", "diary"))
#: Files earlier versions wrote in the memory directory itself (index caches nothing writes any
#: more): a temp file of one that a killed process left is found there, and nowhere else removes it.
_RETIRED = frozenset({"postings.cache", "postings.segments"})
_NAME = attrgetter("name")


def relative_path(root: Path, path: str | os.PathLike[str]) -> str:
    """``path`` as the snapshot names it: relative to ``root``, ``/``-separated."""
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            candidate = candidate.relative_to(root)
        except ValueError:
            return candidate.as_posix()
    return candidate.as_posix()


@dataclass
class Changes:
    """What one refresh changed, for whoever keeps findings derived from the facts.

    ``files`` maps each re-read or dropped path to its ``(old, new)`` facts
    (``None`` for absent); ``linked`` holds the targets that gained their
    first linker or lost their last, ``named`` the wiki items that appeared or disappeared, and
    ``supported`` the wiki items whose evidence standing may have changed.
    """

    files: dict[str, tuple[FileFacts | None, FileFacts | None]] = field(default_factory=dict)
    linked: set[Target] = field(default_factory=set)
    named: set[Target] = field(default_factory=set)
    supported: set[Target] = field(default_factory=set)


class Snapshot:
    """The memory files under ``root`` as facts, keyed by relative path.

    ``wiki`` maps ``(file, name)`` to each wiki item (the last of a repeated
    heading), ``diary`` maps ``(date, HH:MM)`` to the entries of that minute
    in readable days; ``links`` and ``support`` are the reverse indexes of
    :mod:`wikimem.lint.graph`. All are kept current by :meth:`refresh`.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.files: dict[str, FileFacts] = {}
        self.wiki: dict[Target, ItemFacts] = {}
        self.diary: dict[Target, list[ItemFacts]] = {}
        self.links = LinkIndex()
        self.support = Support()
        #: Temp files a killed write left in wiki/ and diary/ (and of the retired caches in the
        #: directory itself): relative path -> mtime (seconds).
        self.temps: dict[str, float] = {}
        #: Folders inside wiki/ and diary/ (``wiki/sub``), found by the last listing: the library reads
        #: only the files directly in them, so what such a folder holds is ignored (lint says so).
        self.folders: list[str] = []
        #: Every other name a RecallFile goes by (its frontmatter's aliases, lowercased): a ``[[alias]]`` resolves.
        self.aliases: frozenset[str] = frozenset()

    @classmethod
    def read(cls, root: str | os.PathLike[str]) -> Snapshot:
        """A snapshot of every memory file under ``root``."""
        snapshot = cls(root)
        snapshot.refresh()
        return snapshot

    def _listing(self) -> dict[str, tuple[str, str, tuple[int, int]]]:
        """path -> (kind, stem, signature) for every ``*.md`` directly in wiki/ and diary/."""
        out: dict[str, tuple[str, str, tuple[int, int]]] = {}
        temps: dict[str, float] = {}
        folders: list[str] = []
        for kind, folder in _KINDS:
            try:
                entries = list(os.scandir(self.root / folder)) if own_folder(self.root, folder) else []
            except (FileNotFoundError, NotADirectoryError):
                continue
            for entry in entries:
                name = entry.name
                if name.startswith(".") and name.endswith(".tmp") and temp_of(name):
                    with contextlib.suppress(OSError):
                        temps[f"{folder}/{name}"] = entry.stat(follow_symlinks=False).st_mtime
                    continue
                if not name.startswith(".") and entry.is_dir(follow_symlinks=False):
                    folders.append(f"{folder}/{name}")
                if not name.endswith(".md") or len(name) <= 3 or name.startswith("."):
                    continue
                # Not only regular files: a FIFO, a dangling or outside symlink
                # named like a memory file is reported (unreadable), not hidden.
                try:
                    if entry.is_dir():
                        continue
                    st = entry.stat()
                except OSError:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                out[f"{folder}/{name}"] = (kind, name[:-3], (st.st_mtime_ns, st.st_size))
        temps.update(self._retired_temps())
        self.temps = temps
        self.folders = sorted(folders)
        return out

    def _retired_temps(self) -> dict[str, float]:
        """Temp files of the retired caches (:data:`_RETIRED`) in the memory directory: name -> mtime."""
        try:
            entries = list(os.scandir(self.root))
        except OSError:
            return {}
        found: dict[str, float] = {}
        for entry in entries:
            if entry.name.endswith(".tmp") and temp_of(entry.name) in _RETIRED:
                with contextlib.suppress(OSError):
                    found[entry.name] = entry.stat(follow_symlinks=False).st_mtime
        return found

    def refresh(self, changed: Iterable[str | os.PathLike[str]] = ()) -> Changes:
        """Re-read what changed and update every index; returns what changed.

        A file is re-read when its ``(mtime_ns, size)`` differs from the
        last read, or when it is named in ``changed`` (for editors that keep
        the mtime). Files gone from disk are dropped.
        """
        forced = {relative_path(self.root, p) for p in changed}
        listing = self._listing()
        changes = Changes()
        for path in list(self.files):
            if path not in listing:
                changes.files[path] = (self.files.pop(path), None)
        for path, (kind, stem, signature) in listing.items():
            old = self.files.get(path)
            # An unreadable file is tried again every time: chmod changes no mtime.
            if old is not None and old.signature == signature and path not in forced and old.unreadable is None:
                continue
            try:
                data = read_regular(self.root / path, root=self.root)
            except UnreadableError as exc:
                if old is not None and old.unreadable == exc.reason and old.signature == signature:
                    continue
                new = unreadable_file(path, kind, stem, signature, exc.reason)  # type: ignore[arg-type]
            else:
                if data is None:  # gone since the listing
                    if old is not None:
                        changes.files[path] = (self.files.pop(path), None)
                    continue
                new = scan_file(path, kind, stem, data, signature)  # type: ignore[arg-type]
            self.files[path] = new
            changes.files[path] = (old, new)
        if changes.files:
            self._apply(changes)
            self.aliases = frozenset(alias for facts in self.files.values() for alias in facts.aliases)
        return changes

    def _apply(self, changes: Changes) -> None:
        old = [pair[0] for pair in changes.files.values() if pair[0] is not None]
        new = [pair[1] for pair in changes.files.values() if pair[1] is not None]
        wiki, diary = self.wiki, self.diary
        before: set[Target] = set()
        for facts in old:
            if facts.kind == "wiki":
                keys = item_keys(facts)
                before.update(keys)
                for key in keys:
                    wiki.pop(key, None)
            elif facts.valid:
                for key in item_keys(facts):
                    diary.pop(key, None)
        after: set[Target] = set()
        for facts in new:
            if facts.kind == "wiki":
                keys = item_keys(facts)
                after.update(keys)
                wiki.update(zip(keys, facts.items))
            elif facts.valid:
                for key, item in zip(item_keys(facts), facts.items):
                    entries = diary.get(key)
                    if entries is None:
                        diary[key] = [item]
                    else:
                        entries.append(item)
        changes.named = before ^ after if before else after
        changes.linked = self.links.update(old, new)
        changes.supported = self.support.update(old, new, changes.named, wiki, diary)

    # -- lookups over the current facts ---------------------------------------

    def wiki_files(self) -> list[FileFacts]:
        """RecallFiles in name order."""
        return sorted((f for f in self.files.values() if f.kind == "wiki"), key=lambda f: f.stem)

    def diary_files(self) -> list[FileFacts]:
        """Day files that the library reads (named as real dates), in date order."""
        return sorted((f for f in self.files.values() if f.kind == "diary" and f.valid), key=lambda f: f.stem)


def item_keys(facts: FileFacts) -> list[Target]:
    """``(file or date, name)`` of each item in ``facts``, in file order."""
    return list(zip(repeat(facts.stem), map(_NAME, facts.items)))
