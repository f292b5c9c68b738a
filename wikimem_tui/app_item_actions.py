"""The App's keys that act on the item in front of the user: edit, rename, move, copy, back, undo…

Split from ``app.py`` (which lays out and routes). Each action hands over to
``ItemArea``, which owns the item view, the editor and their flows; the
bindings stay on the App so they work wherever the focus is, and
``app_guards`` disables them (with the reason) when they cannot run.
``AppItemActions`` is a mixin of the App.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from textual import work
from textual.app import App

from wikimem_tui.core.backend import ReadOnlyError, UndoRefused
from wikimem_tui.item.item_area import ItemArea

if TYPE_CHECKING:
    from wikimem_tui.core.backend import Backend

__all__ = ["AppItemActions"]


class AppItemActions(App[None]):
    """The item area's actions, reachable from every pane."""

    backend: Backend
    _item_area_found: ItemArea | None = None

    def mounted_item_area(self) -> ItemArea | None:
        """The item area, None before it is composed or once the app shuts down.

        Found once and kept: ``check_action`` asks for it for every binding
        each time the footer refreshes (dozens of times while the app
        starts), and a DOM query per ask was a quarter of the app's start-up CPU.
        """
        area = self._item_area_found
        if area is None or not area.is_attached:
            area = self._item_area_found = next(iter(self.query(ItemArea)), None)
        return area

    @property
    def item_area(self) -> ItemArea:
        """The item view / editor area."""
        return self.mounted_item_area() or self.query_one(ItemArea)  # the query raises NoMatches

    @property
    def editing(self) -> bool:
        """True while the editor (not the item view) is shown."""
        return self.item_area.editing

    def action_edit(self) -> None:
        """Edit the open item."""
        self.item_area.edit()

    def action_save(self) -> None:
        """Save the editor's draft."""
        self.item_area.editor.save()

    def action_cancel(self) -> None:
        """Leave the editor (asks when there are unsaved edits)."""
        self.item_area.cancel_edit()

    def action_new_item(self) -> None:
        """Create a new item (asks for file and name)."""
        self.item_area.new_item()

    def action_new_file(self) -> None:
        """Create a new RecallFile with its first item."""
        self.item_area.new_item(new_file=True)

    def action_rename(self) -> None:
        """Rename the open item."""
        self.item_area.rename()

    def action_move(self) -> None:
        """Move the open item to another RecallFile."""
        self.item_area.move()

    def action_delete(self) -> None:
        """Delete the open item after confirmation (lists the items linking to it)."""
        self.item_area.delete()

    def action_promote(self) -> None:
        """Promote entries of the diary day shown into a wiki item."""
        self.item_area.promote()

    def action_audit(self) -> None:
        """What the item shown rests on and what rests on it (for a diary day: what cites its entries)."""
        self.item_area.audit()

    def action_retract(self) -> None:
        """Retract the item shown or a diary entry: mark or delete what rests on it."""
        self.item_area.retract()

    def action_history(self) -> None:
        """Past versions of the item shown, from git, with diff and restore."""
        self.item_area.history()

    def action_back(self) -> None:
        """Back to the item opened before."""
        self.item_area.go(-1)

    def action_forward(self) -> None:
        """Forward again after going back."""
        self.item_area.go(1)

    def action_copy_link(self) -> None:
        """Copy the open item as ``[[file:name]]``."""
        self.item_area.copy("link")

    def action_copy_block(self) -> None:
        """Copy the open item as its markdown block."""
        self.item_area.copy("block")

    def action_external_editor(self) -> None:
        """Edit the open item in $VISUAL/$EDITOR (suspends the app)."""
        self.item_area.external_editor(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")

    @work(thread=True, exclusive=True, group="undo", exit_on_error=False)
    def action_undo(self) -> None:
        """Undo the app's last write (checked: refused when the item changed on disk since)."""
        try:
            write = self.backend.undo()
        except (UndoRefused, ReadOnlyError) as exc:
            self.call_from_thread(self.notify, str(exc), severity="warning", markup=False)
            return
        restored = next((c.before for c in write.changes if c.before is not None), None)
        self.call_from_thread(self.notify, f"undid the {write.what} (journaled)", markup=False)
        if restored is not None:
            self.call_from_thread(self.item_area.open_item, restored.file, restored.name)
