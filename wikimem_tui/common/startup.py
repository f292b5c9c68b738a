"""Start-up: the first frame shows only what is on screen; the rest mounts, then the store is read.

The first frame must come within the launch goal whatever the store's
size, and two things stood in its way: composing and styling every pane
up front -- five hidden tabs of the six, most of the app's widgets -- is
about half of the CPU before the first frame, and background work started
in ``on_mount`` (the index build, the catalogue, the watcher's import)
takes the interpreter lock from the event loop while it draws that frame
(``bench/bench_app.py`` measures launch to first paint). Two changes keep
them out of its way:

* :class:`LazyPane`: a hidden tab's pane is mounted after the first
  refresh (Textual's own ``Lazy`` does the same, but says nothing when it
  is done, and the App must know: see below);
* :class:`StartUp`: the background work (``StoreSync.start``) begins only
  once every pane is mounted, so no worker's answer ever reaches a pane that
  is not there yet (a catalogue handed to a calendar still being mounted
  was lost, a finished index told a query panel without its input); and
  keys and pastes that arrive before then -- a user typing ``/coffee`` the
  moment the screen shows -- are held and handed on in order once the
  panes are there, so none is dropped or runs against a missing pane.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App
from textual.widget import Widget

__all__ = ["LazyPane", "StartUp"]


class LazyPane(Widget):
    """Stands in for ``pane`` until the first refresh, then mounts it in its place and says so."""

    DEFAULT_CSS = "LazyPane { display: none; }"

    def __init__(self, pane: Widget, mounted: Callable[[Widget], None]) -> None:
        super().__init__()
        self.pane = pane
        self._mounted = mounted

    async def mount_composed_widgets(self, widgets: list[Widget]) -> None:
        """Textual's hook once this placeholder is composed: schedule the real mount after the refresh."""
        self.call_after_refresh(self._mount_pane)

    async def _mount_pane(self) -> None:
        parent = self.parent
        if not isinstance(parent, Widget) or not self.app.is_running:
            return  # shutting down before it was ever shown
        await parent.mount(self.pane, after=self)  # awaited: composed and mounted, children included
        await self.remove()
        self._mounted(self.pane)


class StartUp:
    """Counts the lazy panes in, holds early keys, then runs what waited for them (once)."""

    def __init__(self, app: App[Any], ready: Callable[[], None]) -> None:
        self._app = app
        self._ready = ready
        """What runs once every pane is mounted (the App starts reading the store)."""
        self._waiting: list[LazyPane] = []
        self._early: list[events.Event] | None = []
        """Keys and pastes from the terminal before the panes were mounted; None from then on."""

    @property
    def done(self) -> bool:
        """True once every pane is mounted (and the held keys were handed on)."""
        return self._early is None

    def lazy(self, pane: Widget, mounted: Callable[[Widget], None]) -> LazyPane:
        """A placeholder for ``pane``; ``mounted(pane)`` runs when it is in place, before the start."""

        def arrived(widget: Widget) -> None:
            mounted(widget)
            self._waiting.remove(placeholder)
            if not self._waiting:
                self.finish()

        placeholder = LazyPane(pane, arrived)
        self._waiting.append(placeholder)
        return placeholder

    def hold(self, event: events.Event) -> bool:
        """True: ``event`` (a key or paste from the terminal) arrived too early and is kept for later."""
        if self._early is None:
            return False
        self._early.append(event)
        return True

    def finish(self) -> None:
        """Every pane is mounted (or none was lazy): start, then hand the held keys on in their order."""
        if self._early is None:
            return
        early, self._early = self._early, None
        self._ready()
        for event in early:
            self._app.post_message(event)
