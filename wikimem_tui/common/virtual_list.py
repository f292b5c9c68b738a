"""The one virtual list: a Line-API ``ScrollView`` that renders only the rows on screen.

A journal holds hundreds of thousands of lines and a diary of years
thousands of uncited entries, and a ``DataTable`` measures every cell of
every row on the UI thread (about a second for 800 rows on this machine,
bench/bench_curation_panes.py). So the journal's rows and the reconcile
queue's both draw through :class:`VirtualList`: a paint costs the rows on
screen, each row is a few cells of fitted plain text (never markup, never a
``Text`` render), and rendered strips are cached by row, width and
whatever else the list says changes a row's look (the highlight, a
selection mark). What differs between the two lists -- what a row shows,
what the cursor means, what a click does -- is each list's own; scrolling
a row into view, the cache and finding the row under the mouse are here,
and so are a header that stays put while the rows scroll and rows wider
than the list, which scroll sideways (the query pane's result table).
Row text is untrusted like the memory itself: :func:`fit` makes every cell
safe to draw.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Hashable
from functools import lru_cache

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from wikimem_tui.common.safe import clean_line

__all__ = ["Cell", "VirtualList", "cursor_bindings", "fit", "style"]

Cell = tuple[str, str]
"""A column's text, already fitted to its width, and its style spec."""

#: Strips kept before the cache starts over (a few screens' worth at any width).
_CACHE_LIMIT = 4000


@lru_cache(maxsize=128)
def style(spec: str) -> Style:
    """A parsed style spec, parsed once (``""``: no style)."""
    return Style.parse(spec) if spec else Style.null()


def cursor_bindings(pane: str) -> list[Binding]:
    """The row-cursor keys every virtual list has (up, down, a page of 20), with ``pane``'s keymap ids."""
    return [
        Binding("up", "cursor(-1)", "Up", show=False, id=f"{pane}.up"),
        Binding("down", "cursor(1)", "Down", show=False, id=f"{pane}.down"),
        Binding("pageup", "cursor(-20)", "Page up", show=False, id=f"{pane}.pageup"),
        Binding("pagedown", "cursor(20)", "Page down", show=False, id=f"{pane}.pagedown"),
    ]


def fit(text: str, width: int) -> str:
    """``text`` made safe and padded or cut (with an ellipsis) to exactly ``width`` cells."""
    text = clean_line(text)
    if width <= 0:
        return ""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


class VirtualList(ScrollView, can_focus=True):
    """Rows drawn line by line: a subclass says how many rows, what one shows and what changes its look.

    The three abstract methods are what every subclass must say (mypy
    refuses a list that forgets one); a header is optional.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._strips: dict[tuple[int, int, Hashable], Strip] = {}
        self._base_style: Style | None = None

    # -- what a subclass says ------------------------------------------------------

    @abstractmethod
    def row_count(self) -> int:
        """How many rows there are."""

    @abstractmethod
    def row_look(self, index: int) -> Hashable:
        """What besides the row and the width changes how row ``index`` is drawn (its cache key)."""

    @abstractmethod
    def row_segments(self, index: int, width: int, base: Style) -> list[Segment]:
        """Row ``index`` as segments, ``width`` cells wide, on the list's ``base`` style."""

    def header_lines(self) -> int:
        """Lines at the top that stay put while the rows scroll under them (none unless a subclass has a header)."""
        return 0

    def header_segments(self, y: int, width: int, base: Style) -> list[Segment]:
        """Header line ``y`` as segments, ``width`` cells wide (asked only when ``header_lines`` has some)."""
        return []

    def content_width(self) -> int:
        """How wide the rows are when wider than the list (they scroll sideways); 0: as wide as the list."""
        return 0

    # -- drawing ------------------------------------------------------------------------

    def size_to_rows(self) -> None:
        """Size the scroll area to the rows (after rows came or went, or their width changed)."""
        self.virtual_size = Size(self.content_width(), self.row_count() + self.header_lines())

    def forget_strips(self) -> None:
        """Every row is drawn again (the rows' content or look changed in a way the cache key does not say)."""
        self._strips.clear()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def render_lines(self, crop: Region) -> list[Strip]:
        # Resolve the CSS style once per paint, not once per line.
        self._base_style = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width or self.size.width
        base = self._base_style or self.rich_style
        full = max(width, self.content_width())  # a row is drawn whole, then cut to the part scrolled into view
        header = self.header_lines()
        if y < header:
            strip = self._strip((-1 - y, full, (self.has_focus, "header")),
                                lambda: self.header_segments(y, full, base), full, base)
        else:
            index = round(self.scroll_y) + y - header
            if index >= self.row_count():
                return Strip.blank(width, base)
            strip = self._strip((index, full, self.row_look(index)), lambda: self.row_segments(index, full, base),
                                full, base)
        return strip if full == width else strip.crop_extend(round(self.scroll_x), round(self.scroll_x) + width, base)

    def _strip(self, key: tuple[int, int, Hashable], segments: Callable[[], list[Segment]], width: int,
               base: Style) -> Strip:
        """The cached strip for ``key``, drawn from ``segments()`` when it is not cached yet."""
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) > _CACHE_LIMIT:
                self._strips.clear()
            strip = self._strips[key] = Strip(segments()).crop_extend(0, width, base)
        return strip

    # -- moving about -------------------------------------------------------------------

    def reveal(self, index: int) -> None:
        """Scroll just enough that row ``index`` is on screen.

        Not ``_scroll_to``: that is Textual's own private method, which
        ``scroll_to`` calls back with ``animate=`` (a same-named override
        crashed the queue as soon as the cursor left the visible rows).
        """
        top, height = round(self.scroll_y), max(self.scrollable_content_region.height - self.header_lines(), 1)
        if index < top:
            self.scroll_to(y=index, animate=False, immediate=True)
        elif index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False, immediate=True)

    def row_at(self, event: events.Click) -> int | None:
        """The row under a click, or None (outside the rows, or below the last one)."""
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        index = round(self.scroll_y) + offset.y - self.header_lines()
        return index if 0 <= index < self.row_count() else None
