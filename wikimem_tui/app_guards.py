"""Which of the App's actions can run right now, and why not: one place for every key and the palette.

Split from ``app.py`` (which lays out and routes). Actions that cannot run
(read-only, nothing open, editing, nothing to undo) are disabled through
Textual's ``check_action`` — dimmed in the footer, listed with the reason in
the palette — and say why when invoked anyway, from a key or the palette.
``AppGuards`` is a mixin of the App; ``disabled_reason`` reads the item area
and the backend, nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.binding import Binding
from textual.widgets import Input, TextArea

from wikimem_tui.item.item_area import ItemArea

if TYPE_CHECKING:
    from wikimem_tui.core.backend import Backend
    from wikimem_tui.core.catalogue import Catalogue

__all__ = ["AppGuards", "CURATION_ACTIONS", "ITEM_ACTIONS", "WRITE_ACTIONS"]

#: Actions that write: disabled (with the reason) when read-only.
WRITE_ACTIONS = {"edit", "save", "new_item", "new_file", "rename", "move", "delete", "append_diary", "promote",
                 "external_editor", "undo", "retract"}
#: Actions on the item shown in the view.
ITEM_ACTIONS = {"edit", "rename", "move", "delete", "external_editor", "copy_link", "copy_block"}
#: Curation actions on the item or diary day shown.
CURATION_ACTIONS = {"audit", "retract", "history"}


class AppGuards(App[None]):
    """``check_action`` / ``disabled_reason`` / ``run_action`` for the App."""

    backend: Backend
    catalogue: Catalogue | None

    if TYPE_CHECKING:
        @property
        def editing(self) -> bool: ...
        def mounted_item_area(self) -> ItemArea | None: ...

    def _refresh_keys(self) -> None:
        """Re-ask ``check_action`` for the footer (not while the app is shutting down)."""
        if self.screen_stack:
            self.refresh_bindings()

    def disabled_reason(self, action: str) -> str | None:
        """Why ``action`` cannot run right now (None: it can); shown when it is invoked anyway."""
        area = self.mounted_item_area()
        if area is None:  # not composed yet, or shutting down
            return None
        if action in WRITE_ACTIONS and self.backend.read_only:
            what = next((b.description for b in self.BINDINGS if isinstance(b, Binding) and b.action == action), action)
            return f"read-only (--read-only): {what} would write to the memory; nothing written"
        if action in ITEM_ACTIONS - {"edit", "external_editor"} and area.editing:
            return "finish editing first (ctrl+s saves, esc cancels)"
        if action in ITEM_ACTIONS and not area.editing and area.view.item is None:
            return "open an item first (t tree, g go to)"
        if action in CURATION_ACTIONS and area.editing:
            return "finish editing first (ctrl+s saves, esc cancels)"
        if action in ("audit", "retract") and area.view.item is None and area.shown_day is None:
            return "open an item or a diary day first (t tree, g go to, c calendar)"
        if action == "history" and (not area.view.shown or area.view.shown[0] != "item"):
            return "open an item first (t tree, g go to): history is per wiki item"
        if action == "promote" and area.shown_day is None:
            return "open a diary day first (tree: diary, or the calendar)"
        if action == "undo" and self.backend.last_write is None:
            return "nothing to undo: the app has written nothing this session"
        if action == "back" and not area.can_go_back:
            return "nothing to go back to"
        if action == "forward" and not area.can_go_forward:
            return "nothing to go forward to"
        if action == "goto" and self.catalogue is None:
            return "still reading the store…"
        return None

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
