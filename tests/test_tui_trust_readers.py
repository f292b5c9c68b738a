"""The app's journal pane survives hostile journal lines and files (tolerant readers, app side)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from textual.app import App, ComposeResult

from conftest import wait_for
from wikimem_tui.widgets.journal_tail import JournalTail, JournalView

DEEP = "[" * 100_000


class TailApp(App[None]):
    """Only the journal tail, over a journal file in a temp dir."""

    def __init__(self, journal: Path) -> None:
        super().__init__()
        self.backend = SimpleNamespace(journal_path=journal)

    def compose(self) -> ComposeResult:
        yield JournalTail(self.backend)  # type: ignore[arg-type]


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
