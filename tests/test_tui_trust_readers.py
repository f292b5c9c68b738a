"""The app's journal pane survives hostile journal lines and files (tolerant readers, app side)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from textual.app import App
from textual.widgets import Static

from conftest import wait_for
from test_tui_journal import TailApp
from wikimem_tui.journal.journal_tail import JournalView

DEEP = "[" * 100_000


def shown(app: App) -> str:
    view = app.query_one(JournalView)
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


def good(item: str) -> str:
    return json.dumps({"ts": "2026-07-10T03:00:00+00:00", "action": "add", "file": "prefs", "item": item}) + "\n"


async def test_a_deeply_nested_journal_line_is_shown_as_bad_and_the_app_keeps_running(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    journal.write_text(good("before") + DEEP + "\n" + good("after"), encoding="utf-8")
    async with TailApp(journal).run_test(size=(120, 24)) as pilot:
        assert await wait_for(pilot, lambda: "prefs:after" in shown(pilot.app))
        assert "prefs:before" in shown(pilot.app)
        assert "✗ bad" in shown(pilot.app)
        assert pilot.app.is_running


async def test_a_fifo_journal_shows_why_instead_of_hanging_the_pane(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    os.mkfifo(journal)
    try:
        async with TailApp(journal).run_test(size=(120, 24)) as pilot:
            status = lambda: str(pilot.app.query_one("#journal-status", Static).render())  # noqa: E731
            assert await wait_for(pilot, lambda: "cannot be read" in status())
            assert "FIFO" in status()
    finally:  # the code before this fix blocked in open(): release it so the app can exit
        _has_reader(journal)


async def test_a_journal_symlinked_out_of_the_memory_is_not_shown(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text(good("outside"), encoding="utf-8")
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "journal.jsonl").symlink_to(elsewhere)
    async with TailApp(memory / "journal.jsonl").run_test(size=(120, 24)) as pilot:
        status = lambda: str(pilot.app.query_one("#journal-status", Static).render())  # noqa: E731
        assert await wait_for(pilot, lambda: "outside the memory directory" in status())
        assert "outside" not in shown(pilot.app)


def _has_reader(fifo: Path) -> bool:
    """Open ``fifo`` for writing if someone is blocked reading it (that releases them)."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # ENXIO: nobody is blocked reading it
        return False
    return True
