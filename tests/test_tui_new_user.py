"""What a new user met in the app, each pinned by what the screen shows (every test here failed before its fix)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from textual.widgets import Static

from conftest import SAFETY_NET, make_app, make_backend, open_item, screen_text, started, wait_for
from wikimem_tui.item.history import HistoryScreen

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git (.ci/run installs it)")


@needs_git
async def test_history_in_a_repository_with_no_commit_says_no_history_yet(memory_dir: Path) -> None:
    subprocess.run(["git", "init", "-q", str(memory_dir)], check=True, capture_output=True, timeout=SAFETY_NET)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        await pilot.press("H")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, HistoryScreen) and pilot.app.screen.loaded)
        await wait_for(pilot)
        status = str(pilot.app.screen.query_one("#history-status", Static).render())
        text = screen_text(pilot.app)
        assert "No history yet" in status
        assert "fatal" not in text and "add -A" in text


def test_a_move_with_no_link_rewritten_announces_and_journals_none(memory_dir: Path) -> None:
    """Appending to the target file touches its last block's blank line: that is not a link rewrite."""
    backend = make_backend(memory_dir)
    coffee = backend.store.get("preferences", "coffee")
    assert coffee is not None
    backend.relocate("preferences", "coffee", "notes", "coffee", expected=coffee.content)
    undone = backend.undo()
    assert undone.what == "move of preferences:coffee to notes:coffee"
    last = json.loads((memory_dir / "journal.jsonl").read_text("utf-8").splitlines()[-1])
    assert last["detail"] == "undo of move of preferences:coffee to notes:coffee"
