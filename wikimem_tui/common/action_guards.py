"""Which of the App's actions can run now, and why not: the footer dims them, a key or the palette says why.

The App mixes :class:`GuardedActions` in (ahead of Textual's ``App``, so its
``check_action`` and ``run_action`` are the ones Textual calls). The rules
are rows (``common/guards``): the App's own (:data:`APP_GUARDS`) first, then
the item pane's (``ItemArea.disabled_reason``), so read-only, nothing to
undo and "still reading the store" read the same from every pane.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from textual.binding import Binding
from textual.widgets import Input, TextArea

from wikimem_tui.common.guards import Guard, reason_for
from wikimem_tui.common.keys import WRITE_ACTIONS

if TYPE_CHECKING:
    from textual.app import App

    from wikimem_tui.core.backend import Backend
    from wikimem_tui.core.catalogue import Catalogue

    _AppBase = App[None]
else:
    _AppBase = object

__all__ = ["APP_GUARDS", "GuardedActions"]


class _PaneGuards(Protocol):
    """The item pane, as far as the guards ask it (its own rows: ``ItemArea.disabled_reason``)."""

    def disabled_reason(self, action: str) -> str | None: ...

    def hides(self, action: str) -> bool: ...


class GuardedActions(_AppBase):
    """``check_action`` / ``run_action`` from the guard rows; what they read, the App provides."""

    backend: Backend

    @property
    def catalogue(self) -> Catalogue | None:  # the App's (StoreSync's)
        raise NotImplementedError

    @property
    def editing(self) -> bool:  # the App's (the item area's)
        raise NotImplementedError

    def mounted_item_area(self) -> _PaneGuards | None:  # the App's
        raise NotImplementedError

    def hides(self, action: str) -> bool:
        """True: the footer leaves ``action`` out, it means nothing for what is shown (edit on a diary day).

        Not ``check_action`` -> False: that would make the key no command at
        all, and in the tree ``e`` would start the filter instead of saying
        why it cannot edit a diary day; the key stays a dimmed command.
        """
        area = self.mounted_item_area()
        return area is not None and area.hides(action)

    def refresh_keys(self) -> None:
        """Re-ask ``check_action`` for the footer (not while the app is shutting down)."""
        if self.screen_stack:
            self.refresh_bindings()

    def _read_only_reason(self, action: str) -> str:
        what = next((b.description for b in self.BINDINGS if isinstance(b, Binding) and b.action == action), action)
        return f"read-only (--read-only): {what} would write to the memory; nothing written"

    def disabled_reason(self, action: str) -> str | None:
        """Why ``action`` cannot run right now (None: it can); shown when it is invoked anyway."""
        area = self.mounted_item_area()
        if area is None:  # not composed yet, or shutting down
            return None
        return reason_for(APP_GUARDS, self, action) or area.disabled_reason(action)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Save/cancel exist only while editing; undo leaves text fields their own; others dim with a reason."""
        if action in ("save", "cancel") and not self.editing:
            return False
        if action == "undo" and isinstance(self.focused, (Input, TextArea)):
            return False  # the text field's own undo
        return None if self.disabled_reason(action) else True

    async def run_action(self, action: Any, default_namespace: Any = None, namespaces: Any = None) -> bool:
        """Run ``action``; an app action refused by ``check_action`` says why (keys and palette alike)."""
        handled = await super().run_action(action, default_namespace, namespaces)
        if not handled and isinstance(action, str) and default_namespace in (None, self):
            reason = self.disabled_reason(action.removeprefix("app.").partition("(")[0])
            if reason:
                self.notify(reason, severity="warning", markup=False)
        return handled


#: Why an App action cannot run, before the item pane is asked (``ItemArea.disabled_reason``).
APP_GUARDS: tuple[Guard[GuardedActions], ...] = (
    Guard(WRITE_ACTIONS, lambda a: a.backend.read_only, GuardedActions._read_only_reason),
    Guard({"undo"}, lambda a: a.backend.last_write is None,
          "nothing to undo: the app has written nothing this session"),
    Guard({"goto"}, lambda a: a.catalogue is None, "still reading the store…"),
)
