"""The reconcile queue's filter bar: a day range, an owner, and whether reviewed entries show.

The bar only says what the user asked for, in two messages the pane can act
on: ``QueryChanged`` when the *computed* queue must change (day bounds, the
reviewed checkbox: the worker runs again) and ``OwnerChanged`` when only the
rows shown change (the owner filter is applied to the queue already
computed). Each edit of the days box is reported (``DaysChecked``, with why
it does not parse); a range that does not parse leaves the queue as it was,
so a half-typed range never empties the list.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Checkbox, Input, Select

from wikimem_tui.common.fit_input import FitInput
from wikimem_tui.queue.reconcile_model import AGENT_LABELS, Query, parse_days

__all__ = ["QueueFilters"]


class QueueFilters(Horizontal):
    """Days box, owner choice and the "reviewed" checkbox above the queue."""

    class QueryChanged(Message):
        """The day bounds or the reviewed checkbox changed: the queue must be computed again."""

        def __init__(self, query: Query) -> None:
            super().__init__()
            self.query = query

    class OwnerChanged(Message):
        """Show only ``owner``'s entries (None: everyone's)."""

        def __init__(self, owner: str | None) -> None:
            super().__init__()
            self.owner = owner

    class DaysChecked(Message):
        """The days box was read: ``error`` says why it does not parse ("" when it does)."""

        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.shown = Query()
        """The bounds and reviewed choice last announced (what the queue is computed for; not
        ``query``: that is the widget's own DOM query)."""
        self.owner: str | None = None
        """The owner chosen (None: everyone)."""

    def compose(self) -> ComposeResult:
        yield FitInput(placeholder="days: 2026-07-21 · 2026-07 · 2026-07-01..2026-07-15", compact=True, id="queue-days")
        yield Select[str]([], prompt="any owner", compact=True, id="queue-owner")
        yield Checkbox("reviewed", compact=True, id="queue-reviewed")

    @property
    def days_box(self) -> Input:
        """The day-range box (``f`` puts the focus here)."""
        return self.query_one("#queue-days", Input)

    def set_owners(self, owners: Iterable[str]) -> None:
        """Offer ``owners``, keeping the current choice listed even when it has nothing left."""
        options = sorted(set(owners))
        if self.owner is not None and self.owner not in options:
            options.append(self.owner)
        select = self.query_one("#queue-owner", Select)
        with select.prevent(Select.Changed):
            select.set_options([(AGENT_LABELS.get(o, o), o) for o in options])
            if self.owner is not None:
                select.value = self.owner

    def toggle_reviewed(self) -> None:
        """Show or hide the entries marked "reviewed, not promoted"."""
        box = self.query_one("#queue-reviewed", Checkbox)
        box.value = not box.value

    def _announce(self, query: Query) -> None:
        if query != self.shown:
            self.shown = query
            self.post_message(self.QueryChanged(query))

    @on(Input.Changed, "#queue-days")
    def _days_changed(self, event: Input.Changed) -> None:
        event.stop()
        try:
            start, end = parse_days(event.value)
        except ValueError as exc:
            self.post_message(self.DaysChecked(str(exc)))
            return
        self.post_message(self.DaysChecked(""))
        self._announce(Query(start, end, self.shown.include_reviewed))

    @on(Select.Changed, "#queue-owner")
    def _owner_changed(self, event: Select.Changed) -> None:
        event.stop()
        self.owner = event.value if isinstance(event.value, str) else None
        self.post_message(self.OwnerChanged(self.owner))

    @on(Checkbox.Changed, "#queue-reviewed")
    def _reviewed_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self._announce(Query(self.shown.start, self.shown.end, event.value))
