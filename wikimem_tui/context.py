"""The backend the App is handed: one object, built outside the App.

Following harlequin, the App receives its backend as a constructor argument
so tests hand it a temporary store, a fixed "today" and a frozen clock, and
nothing in the widgets reads the environment, the real clock or the user's
config on its own.
"""

from __future__ import annotations

import datetime as dt
import getpass
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikimem import Diary, DiaryItem, MemoryStore
from wikimem_tui.messages import StoreChange
from wikimem_tui.watch import OwnWrites

if TYPE_CHECKING:  # retrieval loads lazily; the app must paint before it is imported
    from wikimem import MemoryIndex


def default_owner() -> str:
    """``tui:<login>``: who the journal says edited, when no --owner is given."""
    try:
        login = getpass.getuser()
    except Exception:  # no login name in some containers
        login = "unknown"
    return f"tui:{login}"


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


Key = tuple[str, str]


def _norm(name: str) -> str:
    """Item names compare after whitespace runs collapse, as the store does."""
    return " ".join(name.split())


def evidence_line(entry: DiaryItem) -> str:
    """The trail back to one diary entry (promotion keeps one per entry)."""
    who = f", owner {entry.owner}" if entry.owner else ""
    return f"(evidence: diary {entry.date} {entry.time}{who})"


def promotion_content(entries: list[DiaryItem], existing: str | None = None) -> str:
    """Existing content (if any), then each entry's text followed by its evidence line."""
    parts = [existing] if existing else []
    parts += [f"{entry.content}\n{evidence_line(entry)}" for entry in entries]
    return "\n\n".join(parts)


def promotion_detail(entries: list[DiaryItem]) -> str:
    """The journal's note on a promotion: which diary entries it came from."""
    return "promoted from diary " + ", ".join(f"{entry.date} {entry.time}" for entry in entries)


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
    """Signatures of files as the app's own writes left them (the watcher skips those)."""

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

    def note_write(self, wiki_files: Iterable[str] = (), diary_dates: Iterable[str] = ()) -> StoreChange:
        """Record an in-app write (call right after it) and describe it.

        The watcher then ignores the resulting events; post the returned
        change as ``StoreChanged`` so views refresh.
        """
        files, dates = frozenset(wiki_files), frozenset(diary_dates)
        paths = [self.store.file_path(f) for f in files]
        paths += [self.diary.path(d) for d in dates]
        self.own_writes.record([*paths, self.journal_path])
        return StoreChange(files, dates, journal=True, external=False)

    # -- the app's write paths: all through the public store API, all with owner --

    def _writable(self) -> None:
        if self.read_only:
            raise PermissionError("read-only: nothing written")

    def delete(self, file: str, name: str) -> StoreChange:
        """Remove ``file:name``."""
        self._writable()
        self.store.remove(file, name, owner=self.owner)
        return self.note_write([file])

    def promote(self, entries: list[DiaryItem], file: str, name: str) -> StoreChange:
        """Write diary ``entries`` into ``file:name`` (appended when it exists) with evidence lines.

        The source conversation is kept when all entries share one; the
        write is this app's (owner, ts). ``ValueError`` → nothing written.
        """
        self._writable()
        existing = self.store.get(file, name)
        sources = {e.source_conv for e in entries}
        source = sources.pop() if len(sources) == 1 else (existing.source_conv if existing else None)
        content = promotion_content(entries, existing.content if existing else None)
        self.store.add(file, name, content, owner=self.owner, source_conv=source, ts=self.clock(),
                       detail=promotion_detail(entries))
        return self.note_write([file])

    def relocate(self, file: str, name: str, new_file: str, new_name: str, *, rewrite_links: bool = False) -> StoreChange:
        """Rename and/or move ``file:name`` via ``MemoryStore.move`` (one locked, journaled operation).

        Refuses (``ValueError``) when the target exists. With
        ``rewrite_links`` every link to the old address is rewritten too; the
        store's write listener tells which RecallFiles that touched.
        """
        self._writable()
        touched: set[str] = set()
        self.store.add_listener(touched.add)
        try:
            self.store.move(file, name, new_file=new_file, new_name=new_name, owner=self.owner,
                            rewrite_links=rewrite_links)
        finally:
            self.store.remove_listener(touched.add)
        return self.note_write(touched | {file, new_file})


@dataclass(frozen=True)
class Catalogue:
    """Derived, read-only view of what the store holds: names, counts, link graph.

    Built in a thread worker from ``store.items()`` (never on the UI thread),
    then replaced, not mutated, on every change, so widgets reading the old
    one while a new one is built never see a half-updated map. ``updated``
    re-reads only the files that changed; the reverse-link map is recomputed
    from the per-item forward links, which costs one pass over link lists,
    not a re-read of the store.
    """

    names: dict[str, list[str]] = field(default_factory=dict)
    links: dict[Key, list[Key]] = field(default_factory=dict)
    backlinks: dict[Key, list[Key]] = field(default_factory=dict)
    diary_counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def build(cls, store: MemoryStore) -> Catalogue:
        """Read the whole store (wiki and diary)."""
        return cls().updated(store, full=True)

    def updated(
        self,
        store: MemoryStore,
        files: Any = (),
        dates: Any = (),
        *,
        full: bool = False,
    ) -> Catalogue:
        """A new catalogue with ``files`` and diary ``dates`` (all of them when ``full``) re-read from disk.

        Files and days that vanished from disk are dropped either way.
        """
        names = {} if full else dict(self.names)
        links = {} if full else dict(self.links)
        diary_counts = {} if full else dict(self.diary_counts)
        present = set(store.files())
        known_days = set(store.diary.dates())
        if full:
            files, dates = present, known_days
        for file in set(files) | (names.keys() - present):
            for key in [k for k in links if k[0] == file]:
                del links[key]
            names.pop(file, None)
            if file not in present:
                continue
            items = store.items(file)
            names[file] = [item.name for item in items]
            for item in items:
                links[(file, _norm(item.name))] = [(ln.file, _norm(ln.name)) for ln in item.links]
        wanted = set(dates) | (diary_counts.keys() - known_days)
        for date in wanted:
            diary_counts.pop(date, None)
        diary_counts.update(store.diary.counts(sorted(wanted & known_days)))
        backlinks: dict[Key, list[Key]] = {}
        for source, targets in links.items():
            for target in dict.fromkeys(targets):
                if target != source:
                    backlinks.setdefault(target, []).append(source)
        return Catalogue(dict(sorted(names.items())), links, backlinks, dict(sorted(diary_counts.items())))

    def has(self, file: str, name: str) -> bool:
        """Whether ``file:name`` exists (names compared normalized)."""
        return (file, _norm(name)) in self.links

    def count(self, file: str) -> int:
        """Items in ``file`` (0 when unknown)."""
        return len(self.names.get(file, ()))

    def backlinks_of(self, file: str, name: str) -> list[Key]:
        """Items whose content links to ``file:name``, in file order."""
        return sorted(self.backlinks.get((file, _norm(name)), []))

    def all_items(self) -> list[Key]:
        """Every ``(file, name)`` in file order."""
        return [(file, name) for file, names in self.names.items() for name in names]
