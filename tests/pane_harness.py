"""One pane mounted alone, the way the App would host it: the harness every pane test shares.

A test of one pane mounts that pane, not the whole App: the App's other
panes, the store sync's workers and the index build are cost and noise for
it. :class:`PaneApp` composes one widget over a pinned backend, turns off
what would make a screen move (blinking cursors, timings), hands the pane a
catalogue when it listens for one, as the App's store sync would, and
records what the pane asks the App to open; an item area is handed what it
is asked to show, as the App routes it (so ``open_item`` and the like work
as they do on the App). Tests of routing between panes still launch the App.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Input

from wikimem_tui.common.messages import OpenDiaryDay, OpenItem, OpenRecallFile
from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.item.item_area import ItemArea

__all__ = ["PaneApp", "item_area"]


class PaneApp(App[None]):
    """One pane, full screen, over a pinned backend."""

    def __init__(self, backend: Any, pane: Callable[[Any], Widget], *, catalogue: bool = False,
                 timing: bool = False) -> None:
        super().__init__()
        self.backend = backend
        self._pane = pane
        self._catalogue = catalogue
        """Hand the pane a catalogue of the store once mounted (the App's store sync does so for its listeners)."""
        self._timing = timing
        """Let the query and health panes say how long they took (off: a snapshot stays the same)."""
        self.animation_level = "none"
        self.opened: list[tuple[str | None, ...]] = []
        """What the pane asked to open, in order: ``("item", file, name)``, ``("file", file)``,
        ``("diary", date, entry_key)``."""

    def compose(self) -> ComposeResult:
        self._mounted = self._pane(self.backend)
        yield self._mounted

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = False
        for pane in self.query("QueryPanel, HealthPane"):
            pane.show_timing = self._timing  # type: ignore[attr-defined]
        if self._catalogue:
            self.pane.set_catalogue(Catalogue.build(self.backend.store))  # type: ignore[attr-defined]

    @property
    def pane(self) -> Widget:
        """The pane under test."""
        return self._mounted

    def on_open_item(self, message: OpenItem) -> None:
        self.opened.append(("item", message.file, message.name))
        if isinstance(self.pane, ItemArea):
            self.pane.open_item(message.file, message.name)

    def on_open_recall_file(self, message: OpenRecallFile) -> None:
        self.opened.append(("file", message.file))
        if isinstance(self.pane, ItemArea):
            self.pane.open_file(message.file)

    def on_open_diary_day(self, message: OpenDiaryDay) -> None:
        self.opened.append(("diary", message.date, message.entry_key))
        if isinstance(self.pane, ItemArea):
            self.pane.open_day(message.date, message.entry_key)


def item_area(backend: Any) -> ItemArea:
    """The item view / editor area as the App composes it (no blinking cursor)."""
    return ItemArea(backend, cursor_blink=False, id="item-area")
