"""The tabbed panes: the tab on show and the focus move together, in one step.

Textual couples the two loosely, and each half lags behind the other by a
few message hops. Switching a tab hides the pane that held the focus, but
the focused widget learns it is hidden only at the next layout (its
``Hide`` event), and a ``focus()`` call lands only when the App's queue
reaches it. In between, the hidden widget's ``Hide`` handler "blurs" it:
Textual hands the focus to a sibling *in the hidden pane* (the queue's
detail box next to its rows), and that sibling's ``TabPane.Focused`` reaches
the ``TabbedContent`` a few hops later and switches the tab back -- after
the focus the user asked for had landed on the new pane, which the tab
switch then hid in turn. Opening an item from the go-to dialog with the
queue pane focused ended that way about one time in six (the queue back on
show, the item's keys dead), depending only on which queue ran first.

So here (a) :func:`show_pane` switches the tab and moves this screen's
focus synchronously, before any layout: the widget being hidden has lost
the focus before it learns it is hidden, and nothing hands it on; and (b)
:class:`Panes` follows a pane's ``Focused`` message only while the focus is
still in that pane: a stale one (its widget lost the focus meanwhile)
never undoes the user's switch.
"""

from __future__ import annotations

from textual import on
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

__all__ = ["Panes", "show_pane"]


def show_pane(tabs: TabbedContent, pane_id: str, focus: Widget | None = None) -> None:
    """Show ``pane_id`` and, with ``focus``, give it the focus of the tabs' screen in the same step.

    ``Widget.focus()`` would land a queue round later (see the module's
    docstring); ``set_focus`` takes a widget that is not laid out yet (a
    pane being shown), and the screen is the tabs' own, not the App's: a
    dialog that opened the pane may still be on top, and the focus it gives
    back when it closes is this one.
    """
    tabs.active = pane_id
    if focus is not None and focus.focusable and focus.is_attached:
        tabs.screen.set_focus(focus)


class Panes(TabbedContent):
    """A ``TabbedContent`` whose tab follows the focus only while the focus is there."""

    @on(TabPane.Focused)
    def _follow_focus(self, event: TabPane.Focused) -> None:
        """Textual's own handler switches to the pane a widget was focused in, however long ago."""
        focused = self.screen.focused
        if focused is None or event.tab_pane not in focused.ancestors:
            event.prevent_default()  # stale: the widget it speaks for has lost the focus since
            event.stop()
