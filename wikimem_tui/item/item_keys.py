"""The item keys on the App: each hands over to the item area and the flows on it.

Bound on the App, not on the item area, so ``e``, ``d``, ``A``… work
wherever the focus is (the tree, the query results, another pane): the key
acts on the item shown. Whether it can act now is the item area's to say
(``ItemArea.disabled_reason``), asked by the App's ``check_action``. The
App mixes :class:`ItemKeys` in; the actions find the area through its
``item_area``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Protocol

from wikimem_tui.item import item_curation, item_writes
from wikimem_tui.item.item_area import ItemArea

__all__ = ["ItemKeys"]


class _ShowsItems(Protocol):
    @property
    def item_area(self) -> ItemArea: ...


def _on_item(run: Callable[[ItemArea], object], doc: str) -> Callable[[_ShowsItems], None]:
    """An App action that hands over to the item area (its docstring is what help and the palette show)."""

    def action(app: _ShowsItems) -> None:
        run(app.item_area)

    action.__doc__ = doc
    return action


def _external_editor(area: ItemArea) -> None:
    area.external_editor(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")


class ItemKeys:
    """The App's item actions (``action_<name>`` for the keymap's item bindings)."""

    action_edit = _on_item(ItemArea.edit, "Edit the open item.")
    action_save = _on_item(lambda area: area.editor.save(), "Save the editor's draft.")
    action_cancel = _on_item(ItemArea.cancel_edit, "Leave the editor (asks when there are unsaved edits).")
    action_new_item = _on_item(item_writes.new_item, "Create a new item (asks for file and name).")
    action_new_file = _on_item(lambda area: item_writes.new_item(area, new_file=True), "A new RecallFile, first item.")
    action_rename = _on_item(item_writes.rename, "Rename the open item.")
    action_move = _on_item(item_writes.move, "Move the open item to another RecallFile.")
    action_delete = _on_item(item_writes.delete, "Delete the open item (asks, listing what links to it).")
    action_promote = _on_item(item_writes.promote, "Promote entries of the diary day shown into a wiki item.")
    action_audit = _on_item(item_curation.audit, "What the item (or diary day) shown rests on, and what rests on it.")
    action_retract = _on_item(item_curation.retract, "Retract the item or diary entry shown: mark or delete dependents.")
    action_history = _on_item(item_curation.history, "Past versions of the item shown, from git: diff and restore.")
    action_forward = _on_item(lambda area: area.go(1), "Forward again after going back.")
    action_copy_link = _on_item(lambda area: item_writes.copy(area, "link"), "Copy the open item as [[file:name]].")
    action_copy_block = _on_item(lambda area: item_writes.copy(area, "block"), "Copy the open item's markdown block.")
    action_external_editor = _on_item(_external_editor, "Edit the open item in $VISUAL/$EDITOR (suspends the app).")

    async def action_back(self: _ShowsItems) -> None:
        """Back to the item opened before (Textual's own ``back`` is this app's history, not a screen pop)."""
        self.item_area.go(-1)
