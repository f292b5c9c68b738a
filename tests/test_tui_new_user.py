"""What a new user met in the app, each pinned by what the screen shows (every test here failed before its fix)."""

from __future__ import annotations

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
