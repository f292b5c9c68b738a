"""Keys that arrive together (a fast typist, a paste) go where the focus lands, never run as commands.

Textual hands a key to the widget focused *when the App dequeues it*, and
runs a binding only after the key has travelled through that widget and
its ancestors' message queues back to the App. In a real terminal a burst
(``/beach`` typed fast, a paste, tmux ``send-keys``) is all queued before
the first key's binding runs, so the keys after ``/`` were handed to the
pane the user was leaving and ran there as its single-key commands: ``e``
edited, ``a`` opened the append dialog that then took the rest of the text,
``c`` and ``h`` switched panes under it. Pilot waits after each key and
never shows this; a test must queue the keys first.

:class:`KeyGate` is the App's one answer, for every binding of every pane
and dialog: while a key that may act (anything but a character typed into
a text box) is on its way, the keys and pastes that arrive after it are
held, and handed on one by one only once that key has *settled*: it went
through every queue on its path, what it queued in turn ran (``focus()``
is a callback on the App's queue), a worker it started took its first
step (the dialog flows push their screen there) and the screen and focus
stopped changing -- and when the screen changed, the new one (a dialog) has
been drawn: a modal gets no key before it is on screen. A held key is then
handed to the widget focused *then* -- the query box ``/`` opened, the
dialog ``a`` pushed -- which is where the user was typing. Characters typed into a box that has the focus pass at
once, so typing itself is never slowed.

The other way round too: a key that acts never overtakes the characters
typed before it. The App forwards a character by posting it to the text
box, but it runs a priority binding (``ctrl+s`` in the editor and the
dialogs) the moment the key is dequeued, so ``name`` + ``ctrl+s`` in one
burst saved what the box held before the last letters arrived (in the
promote flow: a refusal of a half-typed name, which the preview of the
whole name then wiped). So a key that may act, arriving while characters
typed into the focus are still queued there, waits until that box and its
ancestors have handled them.
"""

from __future__ import annotations

import asyncio
from collections import deque
from contextlib import suppress
from typing import Any

from textual import events
from textual.app import App
from textual.dom import DOMNode
from textual.message_pump import MessagePump
from textual.widgets import Input, TextArea
from textual.worker import WorkerState

__all__ = ["KeyGate"]

#: Rounds of "let what the key queued run" before the held keys go anyway (a bound, not a timing).
MAX_ROUNDS = 50
#: Seconds one queue may take to reach a marker, and one settling in all, before the gate stops
#: waiting (liveness only: a wedged widget or an app that never stops changing must never swallow
#: the keyboard; settling takes milliseconds).
DRAIN_LIMIT = 2.0


class KeyGate:
    """Serialises the App's key and paste events around the keys that may move the focus.

    The App calls :meth:`admit` first thing for every key or paste it
    receives from the terminal; ``False`` means "held": the gate posts the
    event to the App again when its turn comes.
    """

    def __init__(self, app: App[Any]) -> None:
        self._app = app
        self._held: deque[events.Event] = deque()
        self._busy = False
        """A key is settling, or held events are being handed on: new ones queue behind them."""
        self._passing: events.Event | None = None
        """The held event re-posted to the App just now: admitted when it comes back."""
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._typed_to: MessagePump | None = None
        """The text box characters were admitted to since its queue was last drained."""

    @property
    def holding(self) -> int:
        """How many keys and pastes wait for the focus to settle."""
        return len(self._held)

    def admit(self, event: events.Event) -> bool:
        """True: the App handles ``event`` now; False: it is held and re-posted in its turn."""
        if event is self._passing:
            self._passing = None
        elif self._busy:
            self._held.append(event)
            return False
        if self._typed_into_focus(event):
            self._typed_to = self._app.focused
            self._next()
            return True
        if self._typed_to is not None:  # characters typed before this key are still on their way
            typed_to, self._typed_to = self._typed_to, None
            self._busy = True
            self._held.appendleft(event)
            self._task = asyncio.get_running_loop().create_task(self._after_typing(typed_to))
            return False
        self._busy = True
        target: MessagePump = self._app.focused or self._app.screen
        self._task = asyncio.get_running_loop().create_task(self._settle(target))
        return True

    def close(self) -> None:
        """The App is shutting down: stop settling, drop what is held."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
        self._held.clear()

    def _typed_into_focus(self, event: events.Event) -> bool:
        """A character or a paste for the text box that has the focus: it cannot act, only type."""
        focused = self._app.focused
        if isinstance(focused, TextArea) and focused.read_only:
            return False  # a read-only area lets characters through to the bindings
        if not isinstance(focused, (Input, TextArea)):
            return False
        return isinstance(event, events.Paste) or (isinstance(event, events.Key) and event.is_printable)

    def _next(self) -> None:
        """Hand on the next held event, or open the gate."""
        if self._closed:
            return
        if not self._held:
            self._busy = False
            return
        self._passing = self._held.popleft()
        if not self._app.post_message(self._passing):  # the App is closing
            self._passing = None
            self.close()

    async def _settle(self, target: MessagePump) -> None:
        first = self._app.screen
        try:
            # The key's own path: the focused widget, its ancestors, the screen, the App.
            path: list[MessagePump] = list(target.ancestors_with_self) if isinstance(target, DOMNode) else [target]
            for step in path:
                await _drained(step)
            # What it set going: a focus() queued on the App, a worker's dialog and that dialog's focus.
            before = None
            loop = asyncio.get_running_loop()
            deadline = loop.time() + DRAIN_LIMIT
            for _ in range(MAX_ROUNDS):
                if loop.time() > deadline:
                    break
                await asyncio.sleep(0)  # workers started by the binding take their first step
                app = self._app
                screen = app.screen
                for node in (app, screen, screen.focused):
                    if node is not None:
                        await _drained(node)
                state = (app.screen, app.screen.focused, len(app.screen_stack), self._starting_workers())
                if state == before and not state[3]:
                    break
                before = state
            if self._app.screen is not first:  # a dialog opened (or closed): no key reaches it unseen
                await _drawn(self._app.screen)
        except Exception:  # noqa: BLE001 -- the App is shutting down (no screen): hand on what is held
            pass
        finally:
            self._task = None
            self._next()

    async def _after_typing(self, box: MessagePump) -> None:
        """Let ``box`` and its ancestors handle the characters typed into it, then hand on what waits."""
        try:
            path: list[MessagePump] = list(box.ancestors_with_self) if isinstance(box, DOMNode) else [box]
            for step in path:
                await _drained(step)
        except Exception:  # noqa: BLE001 -- the box went away meanwhile: nothing is left to wait for
            pass
        finally:
            self._task = None
            self._next()

    def _starting_workers(self) -> int:
        return sum(1 for worker in self._app.workers if worker.state is WorkerState.PENDING)


async def _drawn(screen: MessagePump) -> None:
    """Wait until ``screen`` has drawn everything pending (``call_after_refresh`` runs then)."""
    done = asyncio.Event()
    if screen.call_after_refresh(done.set):
        with suppress(asyncio.TimeoutError):
            await asyncio.wait_for(done.wait(), DRAIN_LIMIT)


async def _drained(pump: MessagePump) -> None:
    """Wait until ``pump`` handled every message queued to it so far."""
    done = asyncio.Event()
    if not pump.call_later(done.set):
        return  # closed: nothing more will run there
    with suppress(asyncio.TimeoutError):
        await asyncio.wait_for(done.wait(), DRAIN_LIMIT)
