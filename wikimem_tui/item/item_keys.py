"""The item keys on the App: each hands over to the item area and the flows on it.

Bound on the App, not on the item area, so ``e``, ``d``, ``A``… work
wherever the focus is (the tree, the query results, another pane): the key
acts on the item shown. Whether it can act now is the item area's to say
(``ItemArea.disabled_reason``), asked by the App's ``check_action``. The
App declares one ``action_<name>`` per key with :func:`item_action`; the
action finds the area through the App's ``item_area``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Protocol

from wikimem_tui.item.item_area import ItemArea

__all__ = ["ShowsItems", "external_editor", "item_action"]


class ShowsItems(Protocol):
    """The App, as far as an item key needs it: the area that shows the item."""

    @property
    def item_area(self) -> ItemArea: ...


def item_action(run: Callable[[ItemArea], object], doc: str) -> Callable[[ShowsItems], None]:
    """An App action that hands over to the item area (its docstring is what help and the palette show)."""

    def action(app: ShowsItems) -> None:
        run(app.item_area)

    action.__doc__ = doc
    return action


def external_editor(area: ItemArea) -> None:
    """Edit the item shown in ``$VISUAL``, else ``$EDITOR``, else ``vi``."""
    area.external_editor(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")
