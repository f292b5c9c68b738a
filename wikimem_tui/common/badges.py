"""The derived badge: text written from the memory's own recall answers, marked on sight.

Anti-echo (SPEC §4): content carrying ``<!-- wikimem-derived -->`` is not
independent evidence, and a curator deciding what to trust must see that
before reading the text. ``badge_for`` is the one place that decides what
the badge looks like, so the tree, the reconcile queue and the item view
(which calls it for the item it shows) mark derived text the same way.

``DerivedMarks`` finds which items and diary days carry the marker for the
tree, which only has names. It must stay cheap on a 100k-item store: files
are re-read only when their ``(mtime_ns, size)`` changed, and a file is
parsed only when its raw text contains the marker at all (a substring
test), so the common case costs one read per changed file. It runs in the
tree's thread worker, never on the UI thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rich.cells import cell_len, set_cell_size
from rich.text import Text

from wikimem import DERIVED_TAG, MemoryStore, is_derived, is_derived_line, path_stat, read_regular

__all__ = ["BADGE", "DERIVED_HINT", "DerivedMarks", "badge_for", "clip_words", "derived_badge", "first_line"]

#: What the badge says; short enough for a tree row at 80 columns.
BADGE = "↺ derived"
BADGE_STYLE = "italic magenta"
#: One sentence for detail lines and help: what the badge means.
DERIVED_HINT = "derived: written from recall answers, so not independent evidence (anti-echo)"

def first_line(content: str) -> str:
    """The first line that says something: the derived marker is the badge's to show, not a summary's."""
    return next((line.strip() for line in content.splitlines() if line.strip() and not is_derived_line(line)), "")


def clip_words(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: whole when it fits, else cut at a space (mid-word only when
    the last word is very long) and ended with ``…``, so a summary never reads as a different word."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    cut = set_cell_size(text, width - 1).rstrip()
    space = cut.rfind(" ")
    if space > (width * 2) // 3:
        cut = cut[:space].rstrip(" ,;:")
    return cut + "…"


def derived_badge() -> Text:
    """The badge itself (a fresh ``Text``: callers append it to their own)."""
    return Text(BADGE, style=BADGE_STYLE, end="")


def badge_for(content: str) -> Text | None:
    """The derived badge when ``content`` carries the derived marker, else ``None``.

    For the item view: ``badge = badge_for(item.content)`` and append it to
    the title when it is not ``None``.
    """
    return derived_badge() if is_derived(content) else None


Key = tuple[str, str]
Stat = tuple[int, int]


@dataclass
class DerivedMarks:
    """Which wiki items and how many entries per diary day are derived; refreshed file by file."""

    items: set[Key] = field(default_factory=set)
    """``(file, name)`` of every derived wiki item."""
    days: dict[str, int] = field(default_factory=dict)
    """Diary day -> number of derived entries (days without any are absent)."""
    _wiki: dict[str, tuple[Stat | None, frozenset[str]]] = field(default_factory=dict, repr=False)
    _diary: dict[str, tuple[Stat | None, int]] = field(default_factory=dict, repr=False)

    def refresh(self, store: MemoryStore) -> bool:
        """Re-read the files that changed since the last call; True when a mark changed."""
        before = (frozenset(self.items), dict(self.days))
        files = store.files()
        for file in set(self._wiki) - set(files):
            del self._wiki[file]
        for file in files:
            stat = store.file_stat(file)
            known = self._wiki.get(file)
            if known is not None and known[0] == stat and stat is not None:
                continue
            names: frozenset[str] = frozenset()
            if _has_marker(store.file_path(file)):
                names = frozenset(item.name for item in store.items(file) if is_derived(item.content))
            self._wiki[file] = (stat, names)
        diary = store.diary
        dates = diary.dates()
        for date in set(self._diary) - set(dates):
            del self._diary[date]
        for date in dates:
            path = diary.path(date)
            stat = path_stat(path)
            known_day = self._diary.get(date)
            if known_day is not None and known_day[0] == stat and stat is not None:
                continue
            count = 0
            if _has_marker(path):
                count = sum(1 for entry in diary.day(date) if is_derived(entry.content))
            self._diary[date] = (stat, count)
        self.items = {(file, name) for file, (_, names) in self._wiki.items() for name in names}
        self.days = {date: n for date, (_, n) in self._diary.items() if n}
        return (frozenset(self.items), self.days) != before




def _has_marker(path: Path) -> bool:
    try:
        data = read_regular(path)  # a FIFO named like a day must not hang the app
    except OSError:
        return False
    return data is not None and DERIVED_TAG.encode() in data
