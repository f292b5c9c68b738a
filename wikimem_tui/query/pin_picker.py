"""Pick the item whose fate the query pane should explain ("why not recalled?").

The go-to screen's fuzzy finder over every item name, with its own prompt.
``suggested`` (the query result under the cursor, possibly a diary entry,
which the name list does not hold) is offered first and typed in, so Enter
pins it straight away and a few keystrokes find any other item.

:func:`pin_for` says which item a ``w`` key means before any picker is
needed: the tree's item under the cursor, or the item open in the view.
"""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Input

from wikimem_tui.common.goto import GoToScreen

__all__ = ["PinPicker", "pin_for"]


def pin_for(
    focused: Widget | None, tree: Widget, tree_item: tuple[str, str] | None, area: Widget,
    area_item: tuple[str, str] | None,
) -> tuple[str, str] | None:
    """The item the focus points at: the tree's cursor item, else the item in the view; None: ask by name."""
    if focused is None:
        return None
    if tree_item is not None and tree in focused.ancestors_with_self:
        return tree_item
    if area_item is not None and area in focused.ancestors_with_self:
        return area_item
    return None


class PinPicker(GoToScreen):
    """Pick one ``(file, name)`` to pin in the query pane."""

    def __init__(
        self, items: list[tuple[str, str]], *, suggested: tuple[str, str] | None = None, cursor_blink: bool = True
    ) -> None:
        offered = [suggested, *(key for key in items if key != suggested)] if suggested else items
        super().__init__(offered, cursor_blink=cursor_blink)
        self.suggested = suggested
        """Offered first (e.g. the query row under the cursor)."""

    def on_mount(self) -> None:
        # GoToScreen.on_mount runs as well (Textual calls each class's handler): it lists and focuses.
        box = self.query_one(Input)
        box.placeholder = "why (not) recalled? pin an item… (fuzzy: file and name)"
        if self.suggested is not None:
            box.value = f"{self.suggested[0]}:{self.suggested[1]}"
