"""Text boxes whose placeholder, cut at the box's edge, ends in "…".

Textual's ``Input`` crops a placeholder wider than the box mid-word and
says nothing: at 100x30 the health filter read ``filter: words · sev:``,
the queue's ``days: 2026-07-21 · 2026-07 ·`` and the tree's ``f: filter
names, conten``, each looking like the whole hint. :class:`FitInput` draws
the placeholder fitted to the box with an ellipsis, as every other cut line
in the app is (``common/virtual_list.fit``). Every text box of the app is a ``FitInput`` (``SafeInput`` too):
``tests/test_tui_fit_input.py`` checks that no pane builds a bare ``Input``.

Textual's ``Input`` also draws its value as it is, so text pasted into a
query or filter box (a line copied from an agent's answer) would send its
terminal escapes, bidi overrides and zero-width characters to the terminal.
What is typed or pasted into a ``FitInput`` therefore leaves out every
character the library calls hidden (:func:`wikimem.hidden_at`): they match
nothing a query or a filter looks for (a tab or a line separator becomes a
space, so the words it parted stay two). ``SafeInput`` keeps them instead, as
marked escapes, because what it edits is saved back.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.strip import Strip
from textual.widgets import Input

from wikimem import hidden_at

__all__ = ["FitInput", "fitted_placeholder"]


def fitted_placeholder(placeholder: str, width: int) -> Text:
    """``placeholder`` as one line of at most ``width`` cells, ending in "…" when it was cut."""
    text = Text(placeholder, end="", no_wrap=True)
    if cell_len(placeholder) > width:
        text.truncate(max(width, 1), overflow="ellipsis")
    return text


class FitInput(Input):
    """An ``Input`` whose placeholder never looks whole when it is cut."""

    def replace(self, text: str, start: int, end: int) -> None:
        """Typing and paste end up here: what enters leaves out hidden characters (never drawn raw)."""
        hidden = hidden_at(text, one_line=True)
        if hidden:  # a tab or a line separator still parts two words
            text = "".join(char if i not in hidden else " " if char.isspace() else ""
                           for i, char in enumerate(text))
        super().replace(text, start, end)

    def render_line(self, y: int) -> Strip:
        """Textual's line, except an empty box's placeholder: fitted with "…" (the cursor still on its first cell)."""
        if y != 0 or self.value or not self.placeholder:
            return super().render_line(y)
        width = self.scrollable_content_region.width
        placeholder = fitted_placeholder(self.placeholder, width)
        placeholder.stylize(self.get_component_rich_style("input--placeholder"))
        if self.has_focus and self._cursor_visible:
            placeholder.stylize(self.get_component_rich_style("input--cursor"), 0, 1)
        console = self.app.console
        strip = Strip(console.render(placeholder, self.app.console_options.update_width(width + 1)))
        return strip.extend_cell_length(width + 1).apply_style(self.rich_style)
