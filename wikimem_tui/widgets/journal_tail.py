"""Journal tail: ``tail -f journal.jsonl`` as a pane, after toolong's model.

The journal can hold hundreds of thousands of lines, so three rules keep the
UI responsive: the file is read in a thread worker (never on the event loop),
the worker hands the UI whole batches of parsed rows (never one message per
line), and the view is a Line-API ``ScrollView`` that renders only the rows on
screen. The reader follows by size and inode and by a fingerprint of the
file's first bytes, so truncation, rotation and a rewrite that regrows past
the old offset are all noticed and the view is rebuilt from the start.

The journal is untrusted text like the memory itself: every field is drawn as
a plain ``Text`` with control characters made visible.
"""

from __future__ import annotations

import json
import os
import threading
from functools import lru_cache
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, Select, Static
from textual.worker import get_current_worker

from wikimem_tui.messages import OpenDiaryDay, OpenItem, StoreChange
from wikimem_tui.safe import clean_line

__all__ = ["JournalFollower", "JournalRow", "JournalTail", "JournalView", "row_cells"]

#: How often the reader thread looks at the file when nobody wakes it.
POLL_SECONDS = 0.25
#: Bytes compared at the head of the file to notice a same-inode rewrite.
_FINGERPRINT = 64

ACTION_STYLES: dict[str, str] = {
    "add": "green",
    "update": "yellow",
    "remove": "red",
    "diary": "magenta",
}
MALFORMED = "malformed"


class JournalRow(NamedTuple):
    """One line of the journal: parsed fields, or the raw text when not JSON.

    A tuple rather than a dataclass: a 100k-line journal creates 100k of
    these, and a tuple is built several times faster than a frozen dataclass.
    """

    lineno: int
    raw: str
    data: dict[str, Any] | None

    @property
    def malformed(self) -> bool:
        """True when the line is not a JSON object."""
        return self.data is None

    def field(self, key: str) -> str:
        """A field as text (``""`` when absent, JSON for non-strings)."""
        if self.data is None:
            return ""
        value = self.data.get(key)
        if value is None:
            return ""
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

    @property
    def action(self) -> str:
        """The journal action, or ``"malformed"``."""
        return MALFORMED if self.data is None else self.field("action")

    @property
    def target(self) -> str:
        """``file:item`` for wiki actions, ``date time`` for diary appends."""
        if self.data is None:
            return ""
        if self.action == "diary":
            return f"{self.field('date')} {self.field('time')}".strip()
        return f"{self.field('file')}:{self.field('item')}"

    def open_message(self) -> Message | None:
        """What selecting this row should open, if anything."""
        if self.data is None:
            return None
        if self.action == "diary" and self.field("date"):
            return OpenDiaryDay(self.field("date"), self.field("time") or None)
        if self.field("file") and self.field("item"):
            return OpenItem(self.field("file"), self.field("item"))
        return None


def parse_line(lineno: int, text: str) -> JournalRow:
    """Parse one journal line; anything that is not a JSON object is kept raw."""
    text = text.rstrip("\r")
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    return JournalRow(lineno, text, data if isinstance(data, dict) else None)


class JournalFollower:
    """Incremental reader of one append-only file; knows nothing about Textual.

    ``poll()`` returns ``(reset, rows)``: ``reset`` means the file was
    truncated, replaced or rewritten and ``rows`` start again from line 1. A
    trailing line without its newline is held back until it is complete.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._inode: int | None = None
        self._offset = 0
        self._head = b""
        self._partial = b""
        self._lineno = 0
        self._lock = threading.Lock()

    def _restart(self) -> None:
        self._offset, self._head, self._partial, self._lineno = 0, b"", b"", 0

    def poll(self) -> tuple[bool, list[JournalRow]]:
        """Read whatever was appended since the last call."""
        with self._lock:
            try:
                fh = open(self.path, "rb")
            except OSError:  # missing (not yet written, or mid-rotation)
                reset = self._inode is not None and self._offset > 0
                self._inode = None
                self._restart()
                return reset, []
            with fh:
                st = os.fstat(fh.fileno())
                reset = False
                if self._inode is not None and (
                    st.st_ino != self._inode
                    or st.st_size < self._offset
                    or (self._head and fh.read(len(self._head)) != self._head)
                ):
                    reset = True
                    self._restart()
                self._inode = st.st_ino
                if st.st_size == self._offset:
                    return reset, []
                fh.seek(self._offset)
                data = fh.read()
            if len(self._head) < _FINGERPRINT:
                self._head = (self._head + data)[:_FINGERPRINT]
            self._offset += len(data)
            data = self._partial + data
            end = data.rfind(b"\n") + 1  # decode whole lines only: UTF-8 may be cut mid-character
            self._partial = data[end:]
            rows: list[JournalRow] = []
            for line in data[:end].decode("utf-8", errors="replace").split("\n")[:-1]:
                self._lineno += 1
                if line.strip():
                    rows.append(parse_line(self._lineno, line))
            return reset, rows


@lru_cache(maxsize=128)
def _style(spec: str) -> Style:
    return Style.parse(spec) if spec else Style.null()


def _fit(text: str, width: int) -> str:
    """``text`` made safe and padded or cut (with an ellipsis) to exactly ``width`` cells."""
    text = clean_line(text)
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


Cell = tuple[str, str]
"""A column's text, already fitted to its width, and its style spec."""


def row_cells(row: JournalRow, width: int) -> list[Cell]:
    """One screen line as fitted cells: ts / action / owner / target / detail.

    Below 100 cells the timestamp loses its year and seconds, the owner
    column narrows and the detail column goes, so the target stays readable
    in a side pane. Cells are plain strings (never markup) so a line costs a
    few string operations, not a ``Text`` render: the view draws thousands.
    """
    wide = width >= 100
    ts_w, owner_w = (19, 16) if wide else (11, 10)
    if row.data is None:
        return [
            (_fit(f"line {row.lineno}", ts_w), "dim"),
            (" " + _fit("✗ bad", 7), "dim red"),
            (" " + _fit(f"not JSON: {row.raw}", max(width - ts_w - 9, 1)), "dim italic"),
        ]
    fixed = ts_w + owner_w + 10  # ts, action (7), owner and their separators
    target_w = 32 if wide else max(width - fixed, 8)
    rest = width - fixed - target_w - 1
    style = ACTION_STYLES.get(row.action, "")
    ts = row.field("ts")
    cells = [
        (_fit(ts[:19] if wide else ts[5:16].replace("T", " "), ts_w), "dim"),
        (" " + _fit(row.action, 7), f"bold {style}".strip()),
        (" " + _fit(row.field("owner"), owner_w), "cyan"),
        (" " + _fit(row.target, target_w), style),
    ]
    if rest > 0:
        cells.append((" " + _fit(row.field("detail") or row.field("source_conv"), rest), "dim"))
    return cells


@dataclass(frozen=True)
class RowFilter:
    """Which rows are shown: exact action, owner / file substrings (case-blind)."""

    action: str = ""
    owner: str = ""
    file: str = ""

    def __call__(self, row: JournalRow) -> bool:
        if self.action and row.action != self.action:
            return False
        if self.owner and self.owner.lower() not in row.field("owner").lower():
            return False
        if self.file:
            where = row.target if row.data is not None else row.raw
            if self.file.lower() not in where.lower():
                return False
        return True


class JournalView(ScrollView, can_focus=True):
    """Virtual list of journal rows: only visible lines are rendered."""

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False, id="journal.up"),
        Binding("down", "cursor(1)", "Down", show=False, id="journal.down"),
        Binding("pageup", "cursor(-20)", "Page up", show=False, id="journal.pageup"),
        Binding("pagedown", "cursor(20)", "Page down", show=False, id="journal.pagedown"),
        Binding("home", "home", "Top", show=False, id="journal.home"),
        Binding("end", "end", "Follow", id="journal.end"),
        Binding("enter", "open", "Open", id="journal.open"),
    ]

    DEFAULT_CSS = """
    JournalView { height: 1fr; overflow-x: hidden; }
    """

    pending: reactive[int] = reactive(0)
    """Matching rows that arrived while the user was scrolled up."""
    following: reactive[bool] = reactive(True)
    """Whether new rows scroll the view to the bottom."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[JournalRow] = []
        """Every row read so far, in file order."""
        self.shown: list[JournalRow] = []
        """The rows passing ``row_filter``."""
        self.row_filter = RowFilter()
        self.cursor: int | None = None
        """Index into ``shown`` of the highlighted row."""
        self._strips: dict[tuple[int, int, bool], Strip] = {}
        self._base_style: Style | None = None

    def add_rows(self, rows: list[JournalRow], *, reset: bool = False) -> None:
        """Append a batch (after clearing everything when ``reset``)."""
        if reset:
            self.rows, self.shown, self.cursor, self.pending = [], [], None, 0
            self._strips.clear()
        self.rows.extend(rows)
        matched = [row for row in rows if self.row_filter(row)]
        self.shown.extend(matched)
        self._resize()
        if self.following:
            self._stick_to_end()
        else:
            self.pending += len(matched)
        self.refresh()

    def _stick_to_end(self) -> None:
        # Deferred: before the first layout max_scroll_y is still 0.
        self.scroll_end(animate=False, immediate=False, x_axis=False)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def on_resize(self) -> None:
        if self.following:
            self._stick_to_end()

    def set_filter(self, row_filter: RowFilter) -> None:
        """Re-filter every row and jump back to following the bottom."""
        self.row_filter = row_filter
        self.shown = [row for row in self.rows if row_filter(row)]
        self._strips.clear()
        self.cursor, self.pending, self.following = None, 0, True
        self._resize()
        self._stick_to_end()
        self.refresh()

    def _resize(self) -> None:
        self.virtual_size = Size(0, len(self.shown))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        at_end = round(new_value) >= self.max_scroll_y
        self.following = at_end
        if at_end:
            self.pending = 0

    def render_lines(self, crop: Region) -> list[Strip]:
        # Resolve the CSS style once per paint, not once per line.
        self._base_style = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width or self.size.width
        base = self._base_style or self.rich_style
        index = round(self.scroll_y) + y
        if index >= len(self.shown):
            return Strip.blank(width, base)
        key = (index, width, index == self.cursor)
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) > 4000:
                self._strips.clear()
            extra = _style("reverse") if key[2] else None
            segments = [
                Segment(text, base + _style(spec) + extra if extra else base + _style(spec))
                for text, spec in row_cells(self.shown[index], width)
            ]
            strip = self._strips[key] = Strip(segments).crop_extend(0, width, base)
        return strip

    def _move_to(self, index: int) -> None:
        if not self.shown:
            return
        self.cursor = max(0, min(index, len(self.shown) - 1))
        self.scroll_to_region_of(self.cursor)
        self.refresh()

    def scroll_to_region_of(self, index: int) -> None:
        """Scroll just enough that row ``index`` is on screen."""
        top, height = round(self.scroll_y), max(self.scrollable_content_region.height, 1)
        if index < top:
            self.scroll_to(y=index, animate=False, immediate=True)
        elif index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False, immediate=True)

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
            message = self.shown[self.cursor].open_message()
            if message is not None:
                self.post_message(message)

    def on_click(self, event: Any) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = round(self.scroll_y) + offset.y
        if index < len(self.shown):
            self.cursor = index
            self.refresh()
            self.action_open()


class JournalTail(Widget):
    """The journal pane: filters, the live view, and a follow/pending status line."""

    DEFAULT_CSS = """
    JournalTail { height: 1fr; }
    JournalTail #journal-filters { height: 1; margin-bottom: 1; }
    JournalTail #journal-filters Select { width: 18; }
    JournalTail #journal-filters Input { width: 1fr; margin-left: 1; }
    JournalTail #journal-status { height: 1; color: $text-muted; }
    """

    class Batch(Message):
        """Rows read by the worker thread (one message per poll, not per line)."""

        def __init__(self, rows: list[JournalRow], reset: bool) -> None:
            super().__init__()
            self.rows = rows
            self.reset = reset

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._wake = threading.Event()
        self._follower: JournalFollower | None = None
        self._started = False
        self._read = False

    def compose(self) -> ComposeResult:
        actions = [(name, name) for name in (*ACTION_STYLES, MALFORMED)]
        with Horizontal(id="journal-filters"):
            yield Select(actions, prompt="any action", compact=True, id="journal-action")
            yield Input(placeholder="owner contains…", compact=True, id="journal-owner")
            yield Input(placeholder="file / date contains…", compact=True, id="journal-file")
        yield JournalView(id="journal-view")
        yield Static(id="journal-status", markup=False)

    @property
    def view(self) -> JournalView:
        """The scrolling list of rows."""
        return self.query_one(JournalView)

    def on_mount(self) -> None:
        self._follower = JournalFollower(self.app.backend.journal_path)  # type: ignore[attr-defined]
        self.watch(self.view, "pending", self._update_status, init=False)
        self.watch(self.view, "following", self._update_status, init=False)
        self._update_status()

    def on_show(self) -> None:
        # Start reading when first shown: a 100k-line journal should not
        # compete with the index build at launch. Once started it keeps following.
        if self._follower is not None and not self._started:
            self._started = True
            self._follow()

    def on_unmount(self) -> None:
        self._wake.set()

    def refresh_from_store(self, change: StoreChange | None = None) -> None:
        """Read the journal now instead of at the next poll."""
        if change is None or change.journal:
            self._wake.set()

    @work(thread=True, exclusive=True, group="journal-tail")
    def _follow(self) -> None:
        worker = get_current_worker()
        follower = self._follower
        assert follower is not None
        first = True  # always answer the first poll, so "reading…" ends even for an empty file
        while not worker.is_cancelled:
            reset, rows = follower.poll()
            if reset or rows or first:
                self.post_message(self.Batch(rows, reset))
                first = False
            self._wake.wait(POLL_SECONDS)
            self._wake.clear()

    def on_journal_tail_batch(self, message: Batch) -> None:
        message.stop()
        self._read = True
        self.view.add_rows(message.rows, reset=message.reset)
        self._update_status()

    @on(Select.Changed, "#journal-action")
    @on(Input.Changed, "#journal-owner")
    @on(Input.Changed, "#journal-file")
    def _filters_changed(self, event: Message) -> None:
        event.stop()
        action = self.query_one("#journal-action", Select).value
        self.view.set_filter(
            RowFilter(
                action=action if isinstance(action, str) else "",
                owner=self.query_one("#journal-owner", Input).value.strip(),
                file=self.query_one("#journal-file", Input).value.strip(),
            )
        )
        self._update_status()

    def _update_status(self, *_: object) -> None:
        view = self.view
        shown, total = len(view.shown), len(view.rows)
        counts = f"{total} lines" if shown == total else f"{shown} of {total} lines"
        if not self._read:
            counts = "reading journal.jsonl…"
        if view.following:
            state = "following"
        elif view.pending:
            state = f"⏸ {view.pending} new — End to follow"
        else:
            state = "paused — End to follow"
        self.query_one("#journal-status", Static).update(Text(f"{counts} · {state}"))
