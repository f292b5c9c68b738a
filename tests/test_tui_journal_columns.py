"""The journal pane's columns: owners shown whole when there is room, undo lines said to be undos.

A new user saw ``agent:com…`` beside empty space (the owner column was a
fixed 10 cells), and an undo appear as a plain ``update`` (the journal has
no undo action, SPEC §1: an undo journals the add/update/remove that puts
the old block back, with ``detail`` ``undo of …``).
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Select, Static

from conftest import make_backend, wait_for
from test_tui_journal import TailApp, line, screen_text, write
from wikimem_tui.journal.journal_reader import UNDO, JournalRows
from wikimem_tui.journal.journal_view import JournalView, owner_width, row_cells


def test_the_owner_column_fits_the_widest_owner_within_a_quarter_of_the_line() -> None:
    assert owner_width(15, 85) == 15  # agent:companion, whole
    assert owner_width(3, 85) == 5  # never narrower than its title
    assert owner_width(60, 85) == 21  # a quarter of the line
    assert owner_width(60, 200) == 24  # and never more than 24


async def test_an_owner_is_shown_whole_in_a_narrow_pane(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, line("add", 1, owner="agent:companion"), line("add", 2, owner="user:x"))
    async with TailApp(journal).run_test(size=(85, 12)) as pilot:
        await wait_for(pilot, lambda: "prefs:item-2" in screen_text(pilot.app))
        text = screen_text(pilot.app)
        assert "agent:companion prefs:item-1" in text and "…" not in text
        assert "user:x          prefs:item-2" in text  # one column: the targets line up


async def test_a_longer_owner_arriving_later_widens_the_column_of_rows_already_drawn(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, line("add", 1, owner="user:x"))
    async with TailApp(journal).run_test(size=(85, 12)) as pilot:
        app = pilot.app
        await wait_for(pilot, lambda: "prefs:item-1" in screen_text(app))
        write(journal, line("add", 2, owner="agent:companion"))
        await wait_for(pilot, lambda: "user:x          prefs:item-1" in screen_text(app), "the old row redrawn")
        assert "agent:companion prefs:item-2" in screen_text(app)


async def test_an_owner_too_long_for_the_line_is_cut_with_an_ellipsis_and_the_target_stays(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    owner = "agent:" + "x" * 60
    write(journal, line("add", 1, owner=owner))
    async with TailApp(journal).run_test(size=(85, 12)) as pilot:
        await wait_for(pilot, lambda: "prefs:item-1" in screen_text(pilot.app))
        first = screen_text(pilot.app).splitlines()[0]
        assert "agent:" + "x" * 14 + "… prefs:item-1" in first


def test_an_undo_through_the_app_is_marked_in_the_journal(memory_dir: Path) -> None:
    """The real undo's journal line (Backend.undo's detail) is the one the pane recognises."""
    backend = make_backend(memory_dir)
    item = backend.store.get("preferences", "tea")
    backend.save("preferences", "tea", "Green tea.", expected=item.content)
    backend.undo()
    _, rows = JournalRows(memory_dir / "journal.jsonl").poll()
    edit, undo = rows[-2:]
    assert (edit.action, edit.undo) == ("update", False)
    assert (undo.action, undo.undo, undo.target) == ("update", True, "preferences:tea")
    cells = "".join(text for text, _ in row_cells(undo, 85))
    assert " ↶update " in cells and " ↶update " not in "".join(text for text, _ in row_cells(edit, 85))


async def test_undo_lines_are_marked_explained_and_filterable(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, line("update", 1, owner="agent", detail="undo of edit of prefs:item-1"),
          line("add", 2, owner="agent"), line("remove", 3, owner="agent", detail="undo of new item prefs:item-3"))
    async with TailApp(journal).run_test(size=(85, 14)) as pilot:
        app = pilot.app
        await wait_for(pilot, lambda: "prefs:item-3" in screen_text(app))
        rows = screen_text(app).splitlines()
        assert " ↶update agent" in rows[0] and " add     agent" in rows[1] and " ↶remove agent" in rows[2]
        app.query_one("#journal-action", Select).value = UNDO
        await wait_for(pilot, lambda: "prefs:item-2" not in screen_text(app))
        assert "prefs:item-1" in screen_text(app) and "prefs:item-3" in screen_text(app)
        app.query_one(JournalView).focus()
        await pilot.press("up")
        detail = app.query_one("#journal-detail", Static)
        assert await wait_for(pilot, lambda: "(an undo" in str(detail.render()), "the detail line says it")
        assert "undo of new item prefs:item-3" in str(detail.render())
