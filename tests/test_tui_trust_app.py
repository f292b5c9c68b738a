"""Smaller trust findings on the app side: keys that stop working, stale panes, lost text, silent refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import make_app, make_backend, open_item, screen_text, started, wait_for
from wikimem import MemoryStore
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.item.conflict import ConflictScreen
from wikimem_tui.item.editor import ItemEditor


async def test_after_back_on_the_conflict_screen_escape_reaches_the_editor_while_the_file_keeps_changing(
        backend, memory_dir) -> None:
    """Back means "I have seen the disk version": a write to another item of the file must not reopen it.

    It did: every later change to the RecallFile (the agent writing another
    item) compared the disk with the draft's base again and pushed the
    conflict screen again, which then took the Escape meant for the editor.
    """
    async with started(make_app(backend, watch=True), (120, 40)) as pilot:
        app = pilot.app
        assert await wait_for(pilot, lambda: app.watcher_ready)
        await open_item(pilot, "preferences", "tea")
        await pilot.press("e")
        assert await wait_for(pilot, lambda: app.editing)
        editor = app.query_one(ItemEditor)
        editor.area.load_text("My version.")
        MemoryStore(memory_dir).add("preferences", "tea", "Disk version.", owner="agent")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, ConflictScreen))
        MemoryStore(memory_dir).add("preferences", "juice", "Another item of the same file.", owner="agent")
        # Counted once the watcher's batch went through the item area (which would have asked).
        assert await wait_for(pilot, lambda: app.catalogue is not None and app.catalogue.count("preferences") == 3)
        await wait_for(pilot)  # what the batch set going (a conflict screen it would push) has run
        assert not isinstance(app.screen, ConflictScreen)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))  # discard the draft?
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not app.editing)


async def test_the_new_item_dialog_starts_in_the_name_field_and_typing_keeps_the_file(backend) -> None:
    from wikimem_tui.common.dialogs import FormScreen

    async with started(make_app(backend), (120, 40)) as pilot:
        app = pilot.app
        await open_item(pilot, "preferences", "tea")
        await pilot.press("n")
        assert await wait_for(pilot, lambda: isinstance(app.screen, FormScreen)
                              and app.focused is not None and app.focused.id == "field-name")
        await pilot.press(*"juice")
        await wait_for(pilot)
        screen = app.screen
        assert screen.query_one("#field-file").value == "preferences"  # pre-filled, untouched
        assert screen.query_one("#field-name").value == "juice"
        await pilot.press("shift+tab")  # back to the file field: the cursor at its end, nothing selected
        await pilot.press("s")
        assert await wait_for(pilot, lambda: screen.query_one("#field-file").value == "preferencess")


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_toasts_never_cover_the_editor(backend, size) -> None:
    from textual.widgets._toast import Toast

    from wikimem_tui.item.editor import ItemEditor

    async with started(make_app(backend), size, notifications=True) as pilot:
        app = pilot.app
        await open_item(pilot, "preferences", "tea")
        await pilot.press("e")
        assert await wait_for(pilot, lambda: app.editing)
        for text in ("saved preferences:tea · ctrl+z undoes it",
                     "not saved: the name must not be empty, and a RecallFile name is lower-case letters, digits, "
                     "'_' or '-' (you typed 'Bad Name'); nothing written"):
            app.notify(text)
        assert await wait_for(pilot, lambda: len(app.screen.query(Toast)) == 2)
        await wait_for(pilot)  # the toasts laid out where they stay
        editor = app.query_one(ItemEditor)
        edited = [editor.area, editor.query_one("#editor-owner"), editor.query_one("#editor-source")]
        for toast in app.screen.query(Toast):
            for widget in edited:
                assert not toast.region.overlaps(widget.region), (toast.region, widget.id, widget.region)


async def test_the_query_pane_at_80x24_with_a_pinned_item_still_shows_result_rows(tmp_path) -> None:
    from wikimem_tui.core.demo import make_demo_copy
    from wikimem_tui.query.query_panel import QueryPanel

    async with started(make_app(make_backend(make_demo_copy(tmp_path))), (80, 24)) as pilot:
        app = pilot.app
        await pilot.press("slash", *"priya lin")
        panel = app.query_one(QueryPanel)
        assert await wait_for(pilot, lambda: panel.last_result is not None and len(panel.last_result.items) >= 3)
        panel.pin("preferences", "likes-the-sea")
        assert await wait_for(pilot, lambda: "missing tokens" in screen_text(app))
        await wait_for(pilot)
        assert panel.table.region.height >= 4  # the header and at least three rows
        text = screen_text(app)
        assert "verdict:" in text and "people:priya" in text
