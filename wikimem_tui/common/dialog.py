"""Every dialog of the app: a modal screen with a footer of its own keys.

A modal screen has no footer, so the main screen's stayed visible beneath
it and offered that screen's keys -- ``t Tree``, ``n New``, ``A Audit`` in
the promote, audit and retract dialogs -- none of which does anything
there (Textual stops a modal's binding chain at the modal). :class:`Dialog`
docks a :class:`~wikimem_tui.common.footer.KeysFooter` at the bottom of each
dialog, over the main one, listing what works in the dialog: its own keys
and F1.
"""

from __future__ import annotations

from typing import TypeVar

from textual import events, on
from textual.screen import ModalScreen

from wikimem_tui.common.footer import KeysFooter

__all__ = ["Dialog"]

ResultType = TypeVar("ResultType")


class Dialog(ModalScreen[ResultType]):
    """A modal screen whose footer lists its own keys."""

    @on(events.Mount)
    async def _mount_footer(self) -> None:
        """After the dialog's own ``on_mount`` (Textual runs each class's handlers, the subclass's first)."""
        footer = KeysFooter()
        await self.mount(footer)
        footer.draw_now()
