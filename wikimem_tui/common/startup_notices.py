"""Notices about the whole session (a demo copy, read-only) that give way to the user's first key.

They were toasts with a 12-second timeout at the top right, where every
pane keeps its title and its filter box: ``wikimem-tui --demo`` followed at
once by ``c`` had the demo notice over the calendar's month, ``h`` over
the health filter, ``g`` over the go-to box. What they say stays true all
session, so it belongs on the status line (``StatusLine.tag``, "demo copy",
"READ-ONLY"), and the toast is only the first telling: it stays until the
user does something -- the first key from the terminal (a held or gated
key included: it is the user's intent, before any pane acts on it) takes
every start-up notice away, and nothing is drawn over the pane that key
opens. Other toasts (a write's result, a keymap error) are not touched.
"""

from __future__ import annotations

import math
from contextlib import suppress
from typing import Any

from textual.app import App
from textual.notifications import Notification, Notify

from wikimem_tui.common.safe import clean

__all__ = ["StartupNotices"]

#: Seconds a start-up notice stays when no key comes: for ever (a newcomer reads it, looks around, then
#: starts; one that vanished while they read was gone before they knew what it said).
TIMEOUT = math.inf


class StartupNotices:
    """The App's start-up notices: :meth:`show` before or while it starts, :meth:`dismiss` at the first key."""

    def __init__(self, app: App[Any]) -> None:
        self._app = app
        self._shown: list[Notification] = []
        self._done = False
        """A key came: notices shown from now on are ordinary toasts."""
        self.timeout = TIMEOUT
        """Seconds a notice stays without a key: only the key takes it away."""

    @property
    def pending(self) -> tuple[Notification, ...]:
        """The notices the first key will take away (tests wait on them)."""
        return tuple(self._shown)

    def show(self, message: str, *, severity: Any = "information") -> None:
        """Toast ``message`` (literal text, hidden characters made visible) until the first key."""
        notification = Notification(clean(message), "", severity, self.timeout, markup=False)
        if not self._done:
            self._shown.append(notification)
        self._app.post_message(Notify(notification))

    def dismiss(self) -> None:
        """The user pressed a key: take every start-up notice away (once; later calls are free)."""
        if self._done:
            return
        self._done = True
        shown, self._shown = self._shown, []
        for notification in shown:
            # Textual has no public "remove this one": ``_unnotify`` is what its own toasts call on a click.
            with suppress(KeyError):
                self._app._unnotify(notification, refresh=False)
        if shown:
            self._app._refresh_notifications()
