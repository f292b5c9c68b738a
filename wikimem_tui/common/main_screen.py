"""The app's own screen: where the focus goes when the widget holding it is gone.

Textual's default, when the focused widget vanishes (its tab was switched
away while a dialog was open) or a dialog closes onto nothing focused, is
the first focusable widget on the screen: the tree's filter box. The next
key the user pressed to act on the item in front of them (``H``, ``e``)
was then typed into the filter instead (found in tmux at 80x24: the queue
pane focused, go to an item, audit it, escape). Here the focus goes to the
pane on show instead -- the item view, the editor, the query box -- and
only when the focus is really lost: a focus the user chose and can still
see is never moved. The app's own pane switches move the focus with the tab
in one step (``common/panes``), so this is the net for the rest: a focused
widget removed, a dialog closing onto a widget hidden meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Tabs

__all__ = ["MainScreen"]

#: The toast rack Textual mounts on every screen (by its id: the class is private to Textual).
TOAST_RACK = "#textual-toastrack"


class MainScreen(Screen[None]):
    """The first screen on the stack; ``home`` puts the focus on the pane on show."""

    #: No automatic "first focusable widget": :meth:`_settle_focus` chooses.
    AUTO_FOCUS = ""

    def __init__(self, home: Callable[[], None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._home = home

    def on_mount(self) -> None:
        self.watch(self, "focused", self._focus_moved, init=False)

    def on_screen_suspend(self) -> None:
        """A dialog opened: its own rack draws the toasts now. This screen's stayed under the dialog,
        and where the two are laid out apart (the editor's toasts sit at the left) each was drawn twice."""
        for rack in self.query(TOAST_RACK):
            rack.display = False

    def on_screen_resume(self) -> None:
        """A dialog closed: the widget it gives the focus back to may be hidden by now."""
        for rack in self.query(TOAST_RACK):
            rack.display = True  # Textual shows the current toasts on it as the screen resumes
        self.call_after_refresh(self._settle_focus)

    def _focus_moved(self, old: Widget | None, new: Widget | None) -> None:
        """Lost (None), or handed on because the focused widget was hidden: settle it.

        Textual hands the focus of a widget whose tab was switched away to
        a neighbour in the focus chain (often the tab bar); a move the user
        made (tab, a pane key) leaves the old widget on screen, or focuses
        the pane on show itself.
        """
        if not self.is_current:
            return
        if new is None or (old is not None and old.is_attached and old not in self.focus_chain):
            self.call_after_refresh(self._settle_focus, lost=old)

    def _settle_focus(self, lost: Widget | None = None) -> None:
        if not self.is_current or not self.is_attached:
            return
        focused = self.focused
        chain = self.focus_chain
        if focused is None or focused not in chain:  # nothing, or hidden in another tab
            self._home()
        elif lost is not None and lost not in chain and isinstance(focused, Tabs):  # handed to the tab bar
            self._home()
