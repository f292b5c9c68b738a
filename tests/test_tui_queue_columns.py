"""The reconcile queue as a new user met it: owners whole, no blank badge column, titles over their rows, clear promote errors.

A new user saw ``agent:com…`` followed by a dozen blank cells: the owner
column was a fixed 10 cells and the badge column took 11 more on rows with
no badge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Static

from conftest import wait_for
from test_tui_reconcile import NOW, TODAY, TS, QueueApp, loaded, pane
from wikimem import MemoryIndex, MemoryStore
from wikimem_tui.core.backend import Backend
from wikimem_tui.queue.reconcile_list import Columns

DERIVED = "The recall answer said so.\n<!-- wikimem-derived -->"


def backend(root: Path, *entries: tuple[str, str, str]) -> Backend:
    """A diary of ``(time, owner, content)`` entries on 2026-07-21."""
    store = MemoryStore(root)
    for time, owner, content in entries:
        store.diary.append(content, date="2026-07-21", time=time, owner=owner, ts=TS)
    return Backend(root=root, store=store, index=MemoryIndex(store, use_jieba=False), owner="tui:test",
                   clock=lambda: NOW, today=lambda: TODAY)


def lines(app: Any) -> list[str]:
    """The titles, then each row, as drawn."""
    view = pane(app).rows_view
    titles = str(app.query_one("#queue-columns", Static).render())
    return [titles] + [view.render_line(y).text.rstrip() for y in range(len(view.rows))]


def test_the_owner_column_fits_the_widest_owner_within_a_quarter_of_the_line() -> None:
    assert Columns.fitted(15, False, 85) == Columns(15, 0)
    assert Columns.fitted(2, True, 85) == Columns(5, 11)  # never narrower than its title
    assert Columns.fitted(60, False, 85).owner == 21 and Columns.fitted(60, False, 200).owner == 24


async def test_an_owner_is_shown_whole_and_the_titles_stand_over_their_columns(tmp_path: Path) -> None:
    app = QueueApp(backend(tmp_path, ("09:00", "agent:companion", "Coffee with Ana."),
                           ("14:30", "user:x", "Swam at the harbour.")))
    async with app.run_test(size=(85, 30)) as pilot:
        await loaded(pilot)
        await wait_for(pilot, lambda: len(lines(app)) == 3)
        titles, first, second = lines(app)
        assert "…" not in first + second
        assert first.endswith("2026-07-21 14:30 user:x          Swam at the harbour.")
        assert second.endswith("2026-07-21 09:00 agent:companion Coffee with Ana.")
        assert titles.index("owner") == first.index("user:x") and titles.index("entry") == first.index("Swam")


async def test_the_badge_column_is_there_only_when_a_row_has_a_badge(tmp_path: Path) -> None:
    app = QueueApp(backend(tmp_path, ("09:00", "agent", "Coffee with Ana."), ("14:30", "agent", DERIVED)))
    async with app.run_test(size=(85, 30)) as pilot:
        await loaded(pilot)
        await wait_for(pilot, lambda: len(lines(app)) == 3)
        titles, derived, plain = lines(app)
        assert "↺ derived" in derived
        assert titles.index("entry") == derived.index("The recall") == plain.index("Coffee")


async def test_promote_on_an_empty_field_says_which_and_goes_there(tmp_path: Path) -> None:
    """ctrl+s before typing a target said "invalid RecallFile name '': must match [a-z0-9_][a-z0-9_-]*"."""
    from textual.widgets import Input

    from test_tui_reconcile import promote_screen, wiki_bytes

    app = QueueApp(backend(tmp_path, ("09:00", "agent", "Coffee with Ana.")))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        before = wiki_bytes(tmp_path)
        screen = await promote_screen(pilot)
        error = screen.query_one("#rp-error", Static)
        screen.query_one("#rp-name", Input).focus()
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: "type a RecallFile (e.g. preferences)" in str(error.render()))
        assert screen.focused is screen.query_one("#rp-file", Input) and "must match" not in str(error.render())
        screen.query_one("#rp-file", Input).value = "events"
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: "type an item name" in str(error.render()))
        assert screen.focused is screen.query_one("#rp-name", Input)
        assert wiki_bytes(tmp_path) == before


async def test_a_change_message_ctrl_s_already_read_keeps_its_refusal_on_screen(tmp_path: Path) -> None:
    """The refusal stayed 0.2 s: a field's Changed message can reach the dialog after the ctrl+s that read
    the field (a value set, or keys typed, just before the key), and its late preview wiped the refusal."""
    from textual.widgets import Input

    from test_tui_reconcile import promote_screen

    app = QueueApp(backend(tmp_path, ("09:00", "agent", "Coffee with Ana.")))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        screen = await promote_screen(pilot)
        error = screen.query_one("#rp-error", Static)
        field = screen.query_one("#rp-file", Input)
        field.value = "events"
        await wait_for(pilot)  # its own Changed handled, its preview shown
        screen.query_one("#rp-name", Input).value = ""
        await wait_for(pilot)
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: "type an item name" in str(error.render()))
        field.post_message(Input.Changed(field, field.value))  # the late message, as the race delivers it
        await wait_for(pilot)  # the message handled and any preview it asked for shown
        assert "type an item name" in str(error.render())
        screen.query_one("#rp-name", Input).value = "coffee"  # a real change after the refusal still previews
        assert await wait_for(pilot, lambda: "type an item name" not in str(error.render()))
