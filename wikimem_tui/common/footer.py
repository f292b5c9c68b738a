"""The footer: quit and help first, then the keys of where the focus is.

Textual's ``Footer`` lists the active bindings from the focused widget up to
the App, so the App's own keys come last and an 80-column screen cuts them
off exactly where a new user looks for "how do I get out / get help". It has
no ordering option (``priority`` changes which binding wins a key, not where
it is drawn; ``compact`` only trims spaces), so this subclass moves the keys
of ``FIRST`` to the front of what ``Footer.compose`` yields, and leaves
out the keys the App says mean nothing for what is shown (``hides``: edit
and delete on a diary day, which is append-only); those still say why
when pressed.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer

__all__ = ["KeysFooter"]


class KeysFooter(Footer):
    """``Footer`` with the actions of ``FIRST`` drawn first, in that order."""

    FIRST = ("quit", "help")

    def draw_now(self) -> None:
        """Draw the keys soon, focus or not: Textual's footer waits for a bindings change, and skips it
        while the terminal reports the app unfocused (a dialog's footer then stayed blank until a key).
        Queued on the footer itself: its compose binds data in its own context."""
        self.call_next(self._draw)

    def _draw(self) -> None:
        self.bindings_changed(self.screen)  # marks the bindings ready (Textual's flag, set its own way)
        if not self.app.app_focus:  # where bindings_changed stops short of drawing
            self.call_after_refresh(self.recompose)

    def compose(self) -> ComposeResult:
        widgets = list(super().compose())

        def rank(widget: object) -> int:
            action = getattr(widget, "action", None)
            if widget.has_class("-command-palette") or action not in self.FIRST:  # type: ignore[attr-defined]
                return len(self.FIRST)
            return self.FIRST.index(action)

        hides = getattr(self.app, "hides", None)
        if hides is not None:
            kept = [w for w in widgets if not hides(getattr(w, "action", ""))]
            if len(kept) < len(widgets):  # Footer.compose sized its grid for every key
                self.styles.grid_size_columns = max(1, (self.styles.grid_size_columns or 0) - (len(widgets) - len(kept)))
            widgets = kept
        yield from sorted(widgets, key=rank)  # stable: the rest keep Textual's order
