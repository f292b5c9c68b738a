"""The journal's rows on screen: the one virtual list (``common/virtual_list``), rendering only what is visible.

A journal can hold hundreds of thousands of lines, so the view draws only
the rows on screen, each a few fitted plain strings (never markup, never a
``Text`` render), cached by (row, width, highlighted). What is this list's
own: the rows that pass the filter, a cursor that starts unset (the first
key highlights the bottom visible row), following the newest rows and
counting those that arrive while the user is scrolled up. Journal text is
untrusted like the memory itself: every field has its control characters
made visible.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive

from wikimem_tui.common.messages import OpenDiaryDay, OpenItem
from wikimem_tui.common.safe import clean_line, safe_line
from wikimem_tui.common.virtual_list import Cell, VirtualList, cursor_bindings, fit, style
from wikimem_tui.journal.journal_reader import UNDO, JournalRow

__all__ = ["ACTION_STYLES", "ACTION_WIDTH", "NARROW_DETAIL", "UNDO_MARK", "JournalView", "RowFilter", "action_label", "column_widths", "detail_text", "open_message_for",
           "owner_width", "row_cells", "row_detail", "who"]

ACTION_STYLES: dict[str, str] = {
    "add": "green",
    "update": "yellow",
    "remove": "red",
    "diary": "magenta",
}

#: Cells a narrow line keeps for the detail (when a row has one) before the target may take them.
NARROW_DETAIL = 8

#: The action column's widest (``↶update``): narrower when no row needs it (``add``/``diary``: 5).
ACTION_WIDTH = 7

#: Marks the action of a line an undo wrote: ``↶update`` is an update that took a write back.
UNDO_MARK = "↶"


def action_label(row: JournalRow) -> str:
    """The action as shown: an undo's line keeps its real action (the file's), marked ``↶``."""
    return UNDO_MARK + row.action if row.undo else row.action


def owner_width(widest: int, width: int) -> int:
    """The owner column for a journal whose widest ``who`` is ``widest`` cells, on a ``width``-cell line.

    As wide as the widest owner, so ``agent:companion`` is not cut to
    ``agent:com…`` beside empty space; capped at a quarter of the line (and
    24 cells) so the target stays readable, and never under 5 (``owner``).
    A longer owner is cut with an ellipsis; the detail line shows it whole.
    """
    return max(5, min(widest, 24, max(width // 4, 10)))


def open_message_for(row: JournalRow) -> Message | None:
    """What selecting ``row`` should open: its diary day, its item, or nothing."""
    if row.data is None:
        return None
    if row.action == "diary" and row.field("date"):
        return OpenDiaryDay(row.field("date"), row.entry_key or row.field("time") or None)  # that entry, not the minute's first
    if row.field("file") and row.field("item"):
        return OpenItem(row.field("file"), row.field("item"))
    return None


def who(row: JournalRow) -> str:
    """The owner, and the writer when someone else wrote (``by``): ``user:x by tui:me``."""
    owner, by = row.field("owner"), row.field("by")
    if by and by != owner:
        return f"{owner} by {by}" if owner else f"by {by}"
    return owner


def row_detail(row: JournalRow) -> Text:
    """The whole row, nothing cut: what the fitted columns may have shortened, for the detail line."""
    if row.data is None:
        return Text.assemble((f"line {row.lineno} is not JSON: ", "bold red"), safe_line(row.raw))
    text = Text.assemble(safe_line(row.field("ts"), "dim"), " ",
                         (clean_line(action_label(row)), f"bold {ACTION_STYLES.get(row.action, '')}".strip()), " ",
                         safe_line(row.target, "bold"))
    if row.undo:
        text.append("  (an undo: the block as it was before)", style="italic")
    for key in ("owner", "by", "detail", "source_conv"):
        if row.field(key):
            text.append(f"  {key} ", style="dim")
            text.append_text(safe_line(row.field(key), "cyan" if key in ("owner", "by") else ""))
    known = {"ts", "action", "file", "item", "date", "time", "owner", "by", "detail", "source_conv", "ordinal"}
    for key in sorted(set(row.data) - known):  # fields a newer writer added are shown, not dropped
        text.append(f"  {clean_line(key)} ", style="dim")
        text.append_text(safe_line(row.field(key)))
    return text


def detail_text(row: JournalRow) -> str:
    """What the detail column shows: the line's detail, else the conversation it came from."""
    return row.field("detail") or row.field("source_conv")


def column_widths(rows: list[JournalRow]) -> tuple[int, int, int, int]:
    """The widest owner (``who``), detail, target and action of ``rows``, in cells: what the columns fit.

    The action is measured too: a fixed 7 cells for ``↶update`` in a journal
    of ``add`` and ``diary`` lines cost the detail the two cells that cut
    every conversation id to ``conv_2026…`` at 85 columns.
    """
    return (max(map(cell_len, set(map(who, rows))), default=0),
            max(map(cell_len, set(map(detail_text, rows))), default=0), _widest_target(rows),
            max(map(cell_len, {action_label(row) for row in rows if row.data is not None}), default=0))


def _widest_target(rows: list[JournalRow]) -> int:
    """The widest target of ``rows``, from the fields (not ``row.target``: a 1M-line journal has 1M of them).

    A diary target is a date, a time and maybe ``#n``: 19 cells at most.
    """
    widest = 0
    for row in rows:
        data = row.data
        if data is None:
            continue
        file, item = data.get("file"), data.get("item")
        if data.get("action") == "diary" or not isinstance(file, str) or not isinstance(item, str):
            width = 19
        else:
            width = len(file) + 1 + len(item)
            if not (file.isascii() and item.isascii()):
                width = cell_len(file) + 1 + cell_len(item)
        widest = max(widest, width)
    return widest


def row_cells(row: JournalRow, width: int, owner_w: int | None = None, detail_w: int | None = None,
              target_widest: int | None = None, action_widest: int | None = None) -> list[Cell]:
    """One screen line as fitted cells: ts / action / owner / target / detail.

    Below 100 cells the timestamp loses its seconds (never its year: a
    journal spans years, and ``11-24`` does not say which one) and the
    target comes first: as wide as ``target_widest`` (the widest target of
    the view's rows; None: all there is) as long as the detail keeps
    :data:`NARROW_DETAIL` cells, cut with "…" (the detail line shows the row
    whole). ``detail_w`` is the widest detail (0: no row has one, so the
    target takes the whole rest; None: assume one). ``owner_w`` is the owner
    column (the view fits it to its rows, :func:`owner_width`; default 16
    wide, 10 narrow). ``action_widest`` is the widest action label (None:
    :data:`ACTION_WIDTH`): the column is that wide, 3 to 7 cells, as every
    column is as wide as what it holds. An undo's action is marked (``↶update``): the detail
    may be cut, and nothing else on the line says so. Cells are plain
    strings (never markup) so a line costs a few string operations, not a
    ``Text`` render: the view draws thousands.
    """
    wide = width >= 100
    ts_w = 19 if wide else 16
    if owner_w is None:
        owner_w = 16 if wide else 10
    action_w = ACTION_WIDTH if action_widest is None else max(3, min(action_widest, ACTION_WIDTH))
    if row.data is None:
        bad_w = max(action_w, 5)  # "✗ bad" whole, in line with the actions when they are as wide
        return _within([
            (fit(f"line {row.lineno}", ts_w), "dim"),
            (" " + fit("✗ bad", bad_w), "dim red"),
            (" " + fit(f"not JSON: {row.raw}", max(width - ts_w - bad_w - 2, 1)), "dim italic"),
        ], width)
    fixed = ts_w + owner_w + action_w + 3  # ts, action, owner and their separators
    room = width - fixed  # the target, a space and the detail
    if wide:
        target_w = 32
    else:
        keep = min(NARROW_DETAIL, room if detail_w is None else detail_w)
        want = room if target_widest is None else target_widest
        target_w = max(8, min(want, room - 1 - keep)) if keep > 0 else max(room, 8)
    rest = room - target_w - 1
    style = ACTION_STYLES.get(row.action, "")
    ts = row.field("ts")
    cells = [
        (fit(ts[:19] if wide else ts[:16].replace("T", " "), ts_w), "dim"),
        (" " + fit(action_label(row), action_w), f"bold {style}".strip()),
        (" " + fit(who(row), owner_w), "cyan"),
        (" " + fit(row.target, target_w), style),
    ]
    if rest > 0:
        cells.append((" " + fit(detail_text(row), rest), "dim"))
    return _within(cells, width)


def _within(cells: list[Cell], width: int) -> list[Cell]:
    """``cells`` cut to ``width`` with "…" at the edge: each column keeps a minimum a very narrow pane lacks."""
    if sum(cell_len(text) for text, _ in cells) <= width:
        return cells
    kept: list[Cell] = []
    room = width
    for text, spec in cells:
        if cell_len(text) >= room:  # the last cell that shows: cut, and "…" says more follows
            kept.append((fit(text + " ", room), spec))
            break
        kept.append((text, spec))
        room -= cell_len(text)
    return kept


@dataclass(frozen=True)
class RowFilter:
    """Which rows are shown: exact action (or ``undo``: an undo's lines), owner / file substrings (case-blind)."""

    action: str = ""
    owner: str = ""
    file: str = ""

    def __call__(self, row: JournalRow) -> bool:
        if self.action and (not row.undo if self.action == UNDO else row.action != self.action):
            return False
        if self.owner and self.owner.lower() not in who(row).lower():
            return False
        if self.file:
            where = row.target if row.data is not None else row.raw
            if self.file.lower() not in where.lower():
                return False
        return True


class JournalView(VirtualList):
    """Virtual list of journal rows: only visible lines are rendered."""

    HELP_TITLE = "Journal rows"

    BINDINGS = [
        *cursor_bindings("journal"),
        Binding("home", "home", "Top", show=False, id="journal.home"),
        Binding("end", "end", "Follow", id="journal.end"),
        Binding("enter", "open", "Open", id="journal.open"),
    ]

    # A one-cell scrollbar: the two of Textual's default cost the detail column the cell that, at 85
    # columns, cut every conversation id (``conv_20260710``, 13 cells) to ``conv_202607…``.
    DEFAULT_CSS = """
    JournalView { height: 1fr; overflow-x: hidden; scrollbar-size-vertical: 1; }
    """

    pending: reactive[int] = reactive(0)
    """Matching rows that arrived while the user was scrolled up."""
    following: reactive[bool] = reactive(True)
    """Whether new rows scroll the view to the bottom."""
    cursor: reactive[int | None] = reactive(None)
    """Index into ``shown`` of the highlighted row (None: nothing highlighted)."""

    class Highlighted(Message):
        """The highlighted row changed (``row`` is None when nothing is highlighted)."""

        def __init__(self, row: JournalRow | None) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[JournalRow] = []
        """Every row read so far, in file order."""
        self.shown: list[JournalRow] = []
        """The rows passing ``row_filter``."""
        self.row_filter = RowFilter()
        self.widest_owner = 0
        """Cells of the widest owner (``who``) read so far: the owner column fits it (:func:`owner_width`)."""
        self.widest_detail = 0
        """Cells of the widest detail read so far: a narrow line gives none to a journal without details."""
        self.widest_target = 0
        """Cells of the widest target read so far: a narrow line's target column is no wider."""
        self.widest_action = 0
        """Cells of the widest action label read so far (``↶update``: 7): the action column fits it."""

    def add_rows(self, rows: list[JournalRow], *, reset: bool = False,
                 widths: tuple[int, int, int, int] | None = None) -> None:
        """Append a batch (after clearing everything when ``reset``).

        ``widths``: the batch's :func:`column_widths`, when the reader measured
        them off the event loop (a 20,000-row batch takes tens of ms).
        """
        if reset:
            self.rows, self.shown, self.cursor, self.pending = [], [], None, 0
            self.widest_owner = self.widest_detail = self.widest_target = self.widest_action = 0
            self.forget_strips()
        self.rows.extend(rows)
        seen = widths if widths is not None else column_widths(rows)
        known = (self.widest_owner, self.widest_detail, self.widest_target, self.widest_action)
        if any(new > old for new, old in zip(seen, known)):  # drawn rows were fitted to narrower columns
            self.widest_owner, self.widest_detail, self.widest_target, self.widest_action = map(max, zip(seen, known))
            self.forget_strips()
        matched = [row for row in rows if self.row_filter(row)]
        self.shown.extend(matched)
        self.size_to_rows()
        if self.following:
            self._stick_to_end()
        else:
            self.pending += len(matched)
        self.refresh()

    def _stick_to_end(self) -> None:
        # Deferred: before the first layout max_scroll_y is still 0.
        self.scroll_end(animate=False, immediate=False, x_axis=False)

    def on_resize(self) -> None:
        if self.following:
            self._stick_to_end()

    def set_filter(self, row_filter: RowFilter) -> None:
        """Re-filter every row and jump back to following the bottom."""
        self.row_filter = row_filter
        self.shown = [row for row in self.rows if row_filter(row)]
        self.forget_strips()
        self.cursor, self.pending, self.following = None, 0, True
        self.size_to_rows()
        self._stick_to_end()
        self.refresh()

    def watch_cursor(self, cursor: int | None) -> None:
        row = self.shown[cursor] if cursor is not None and cursor < len(self.shown) else None
        self.post_message(self.Highlighted(row))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        at_end = round(new_value) >= self.max_scroll_y
        self.following = at_end
        if at_end:
            self.pending = 0

    def row_count(self) -> int:
        """The rows passing the filter."""
        return len(self.shown)

    def row_look(self, index: int) -> Hashable:
        """Highlighted or not."""
        return index == self.cursor

    def row_segments(self, index: int, width: int, base: Style) -> list[Segment]:
        """The row's cells; the highlighted row reversed over its own colours."""
        extra = style("reverse") if index == self.cursor else None
        return [Segment(text, base + style(spec) + extra if extra else base + style(spec))
                for text, spec in row_cells(self.shown[index], width, owner_width(self.widest_owner, width),
                                            self.widest_detail, self.widest_target, self.widest_action)]

    def _move_to(self, index: int) -> None:
        if not self.shown:
            return
        self.cursor = max(0, min(index, len(self.shown) - 1))
        self.reveal(self.cursor)
        self.refresh()

    def action_cursor(self, delta: int) -> None:
        """Move the highlight; the first press highlights the bottom visible row."""
        if self.cursor is None:
            last_visible = round(self.scroll_y) + self.scrollable_content_region.height - 1
            self._move_to(min(last_visible, len(self.shown) - 1))
        else:
            self._move_to(self.cursor + delta)

    def action_home(self) -> None:
        """Go to the oldest row."""
        self._move_to(0)

    def action_end(self) -> None:
        """Go to the newest row and resume following."""
        self.cursor = len(self.shown) - 1 if self.shown else None
        self._stick_to_end()
        self.following, self.pending = True, 0
        self.refresh()

    def action_open(self) -> None:
        """Open what the highlighted row is about."""
        if self.cursor is not None and self.cursor < len(self.shown):
            message = open_message_for(self.shown[self.cursor])
            if message is not None:
                self.post_message(message)

    def on_click(self, event: events.Click) -> None:
        """A click highlights the row and opens it."""
        index = self.row_at(event)
        if index is not None:
            self.cursor = index
            self.refresh()
            self.action_open()
