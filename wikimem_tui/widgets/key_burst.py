"""A filter key followed by fast typing: every key of the burst goes into the filter box.

In a real terminal a fast typist (or a paste) sends ``f`` and the next
letters together. Textual queues them all to the widget focused then (a
list, a tree) and runs ``f``'s binding only after they got there, so the
letters after ``f`` would run as that pane's commands: in the reconcile
queue ``x`` marks an entry reviewed and ``u`` undoes a mark, in the tree
``e`` edits. Pilot waits after each key and never shows it; the tests queue
the keys first.

:func:`route_burst`, called from a pane's ``on_key``, moves the focus into
the box *at once* when the filter key arrives (``screen.set_focus``, not
``focus()``, which waits its turn in the message queue), and types into
the box the keys that were queued to the pane before the focus moved.
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input

__all__ = ["focus_now", "route_burst"]


def focus_now(box: Input) -> None:
    """Focus ``box`` before the next queued key is handled."""
    box.screen.set_focus(box)


def route_burst(pane: Widget, event: events.Key, box: Input, *, action: str = "filter") -> bool:
    """Handle ``event`` if it belongs in ``box``: True when it was handled (and stopped).

    The pane's binding for ``action`` (its filter key) moves the focus now;
    a printable key reaching the pane while ``box`` has the focus was queued
    before the focus moved (the box consumes what is typed into it), so it
    is typed into the box instead of running as a command.
    """
    if not event.is_printable or not event.character:
        return False
    focused = pane.screen.focused  # has_focus lags: it follows Focus events
    if focused is box:
        event.stop()
        event.prevent_default()
        box.insert_text_at_cursor(event.character)
        return True
    active = pane.screen.active_bindings.get(event.key)
    if active is not None and active.node is pane and active.binding.action == action:
        event.stop()
        event.prevent_default()
        focus_now(box)
        return True
    return False
