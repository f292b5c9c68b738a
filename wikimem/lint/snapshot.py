"""A read-only picture of a memory directory's files, refreshable file by file.

Lint and the curation queries both need "every item, what it links to and
what it cites". The snapshot reads each ``wiki/*.md`` and ``diary/*.md``
once into :class:`~wikimem.lint.scan.FileFacts` and remembers each file's
``(mtime_ns, size)``; :meth:`Snapshot.refresh` re-reads only the files whose
signature changed (or that the caller names), so an app that re-lints after
every edit pays for the edit, not for the store. Nothing here writes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from wikimem.lint.scan import FileFacts, ItemFacts, scan_file

__all__ = ["Snapshot", "relative_path"]

_KINDS = (("wiki", "wiki"), ("diary", "diary"))


def relative_path(root: Path, path: str | os.PathLike[str]) -> str:
    """``path`` as the snapshot names it: relative to ``root``, ``/``-separated."""
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            candidate = candidate.relative_to(root)
        except ValueError:
            return candidate.as_posix()
    return candidate.as_posix()


class Snapshot:
    """The memory files under ``root`` as facts, keyed by relative path."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.files: dict[str, FileFacts] = {}
        self._wiki: dict[tuple[str, str], ItemFacts] | None = None
        self._diary: dict[tuple[str, str], list[ItemFacts]] | None = None

    @classmethod
    def read(cls, root: str | os.PathLike[str]) -> Snapshot:
        """A snapshot of every memory file under ``root``."""
        snapshot = cls(root)
        snapshot.refresh()
        return snapshot

    def _listing(self) -> dict[str, tuple[str, str, tuple[int, int]]]:
        """path -> (kind, stem, signature) for every ``*.md`` directly in wiki/ and diary/."""
        out: dict[str, tuple[str, str, tuple[int, int]]] = {}
        for kind, folder in _KINDS:
            try:
                entries = list(os.scandir(self.root / folder))
            except (FileNotFoundError, NotADirectoryError):
                continue
            for entry in entries:
                name = entry.name
                if not name.endswith(".md") or len(name) <= 3 or name.startswith("."):
                    continue
                try:
                    if not entry.is_file():
                        continue
                    st = entry.stat()
                except OSError:
                    continue
                out[f"{folder}/{name}"] = (kind, name[:-3], (st.st_mtime_ns, st.st_size))
        return out

    def refresh(self, changed: Iterable[str | os.PathLike[str]] = ()) -> set[str]:
        """Re-read what changed; returns the relative paths that were (re)read or dropped.

        A file is re-read when its ``(mtime_ns, size)`` differs from the
        last read, or when it is named in ``changed`` (for editors that keep
        the mtime). Files gone from disk are dropped.
        """
        forced = {relative_path(self.root, p) for p in changed}
        listing = self._listing()
        touched: set[str] = set()
        for path in list(self.files):
            if path not in listing:
                del self.files[path]
                touched.add(path)
        for path, (kind, stem, signature) in listing.items():
            old = self.files.get(path)
            if old is not None and old.signature == signature and path not in forced:
                continue
            try:
                data = (self.root / path).read_bytes()
            except OSError:
                self.files.pop(path, None)
                touched.add(path)
                continue
            self.files[path] = scan_file(path, kind, stem, data, signature)  # type: ignore[arg-type]
            touched.add(path)
        if touched:
            self._wiki = self._diary = None
        return touched

    # -- lookups over the current facts ---------------------------------------

    def wiki_files(self) -> list[FileFacts]:
        """RecallFiles in name order."""
        return sorted((f for f in self.files.values() if f.kind == "wiki"), key=lambda f: f.stem)

    def diary_files(self) -> list[FileFacts]:
        """Day files that the library reads (named as real dates), in date order."""
        return sorted((f for f in self.files.values() if f.kind == "diary" and f.valid), key=lambda f: f.stem)

    @property
    def wiki(self) -> dict[tuple[str, str], ItemFacts]:
        """``(file, name) -> item`` for every wiki item (last of a repeated heading)."""
        if self._wiki is None:
            self._wiki = {(f.stem, item.name): item for f in self.wiki_files() for item in f.items}
        return self._wiki

    @property
    def diary(self) -> dict[tuple[str, str], list[ItemFacts]]:
        """``(date, HH:MM) -> entries`` (a minute may hold several) for readable days."""
        if self._diary is None:
            out: dict[tuple[str, str], list[ItemFacts]] = {}
            for f in self.diary_files():
                for item in f.items:
                    out.setdefault((f.stem, item.name), []).append(item)
            self._diary = out
        return self._diary

    def path_of(self, file: str) -> str:
        """The relative path of RecallFile ``file``."""
        return f"wiki/{file}.md"
