"""Which of the App's actions can run now, and why not: the footer dims them, a key or the palette says why.

The App holds an :class:`ActionGuards` and asks it from its
``check_action`` and ``run_action`` (Textual calls those on the App). The
rules are rows (``common/guards``): the App's own (:data:`APP_GUARDS`)
first, then the item pane's (``ItemArea.disabled_reason``), so read-only,
nothing to undo and "still reading the store" read the same from every pane.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Input, TextArea

from wikimem_tui.common.guards import Guard, reason_for
from wikimem_tui.common.keys import WRITE_ACTIONS
from wikimem_tui.core.backend import Backend
from wikimem_tui.core.catalogue import Catalogue

__all__ = ["APP_GUARDS", "ActionGuards"]


class _PaneGuards(Protocol):
    """The item pane, as far as the guards ask it (its own rows: ``ItemArea.disabled_reason``)."""

    def disabled_reason(self, action: str) -> str | None: ...

    def hides(self, action: str) -> bool: ...


class ActionGuards:
    """Why an App action cannot run now, from the App's rows and then the item pane's."""

    def __init__(
        self,
        backend: Backend,
        bindings: Iterable[BindingType],
        *,
        catalogue: Callable[[], Catalogue | None],
        pane: Callable[[], _PaneGuards | None],
    ) -> None:
        self.backend = backend
        self._bindings = list(bindings)
        self._catalogue = catalogue
        """The App's catalogue as it is now (None while the store is still being read)."""
        self._pane = pane
        """The item pane, None before it is composed or once the app shuts down."""

    @property
    def catalogue(self) -> Catalogue | None:
        """The App's catalogue now (None: the store is still being read)."""
        return self._catalogue()

    def hides(self, action: str) -> bool:
        """True: the footer leaves ``action`` out, it means nothing for what is shown (edit on a diary day).

        Not ``check_action`` -> False: that would make the key no command at
        all, and in the tree ``e`` would start the filter instead of saying
        why it cannot edit a diary day; the key stays a dimmed command.
        """
        pane = self._pane()
        return pane is not None and pane.hides(action)

    def read_only_reason(self, action: str) -> str:
        """What a write action refused by ``--read-only`` says, in the words of its binding."""
        what = next((b.description for b in self._bindings if isinstance(b, Binding) and b.action == action), action)
        return f"read-only (--read-only): {what} would write to the memory; nothing written"

    def disabled_reason(self, action: str) -> str | None:
        """Why ``action`` cannot run right now (None: it can); shown when it is invoked anyway."""
        pane = self._pane()
        if pane is None:  # not composed yet, or shutting down
            return None
        return reason_for(APP_GUARDS, self, action) or pane.disabled_reason(action)

    def check_action(self, action: str, *, editing: bool, focused: Widget | None) -> bool | None:
        """Save/cancel exist only while editing; undo leaves text fields their own; others dim with a reason."""
        if action in ("save", "cancel") and not editing:
            return False
        if action == "undo" and isinstance(focused, (Input, TextArea)):
            return False  # the text field's own undo
        return None if self.disabled_reason(action) else True


#: Why an App action cannot run, before the item pane is asked (``ItemArea.disabled_reason``).
APP_GUARDS: tuple[Guard[ActionGuards], ...] = (
    Guard(WRITE_ACTIONS, lambda g: g.backend.read_only, ActionGuards.read_only_reason),
    Guard({"undo"}, lambda g: g.backend.last_write is None,
          "nothing to undo: the app has written nothing this session"),
    Guard({"goto"}, lambda g: g.catalogue is None, "still reading the store…"),
)
