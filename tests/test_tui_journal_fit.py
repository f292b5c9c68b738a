"""At 85 columns the journal shows the demo's conversation ids whole (they were all cut to ``conv_2026…``).

The cells went to a fixed 7-cell action column (for ``↶update``) in a
journal of ``add`` and ``diary`` lines, and to a two-cell scrollbar: the
action column now fits its widest label and the scrollbar is one cell.
"""

from __future__ import annotations

import re
from pathlib import Path

from conftest import wait_for
from test_tui_journal import TailApp, line, screen_text, write
from wikimem_tui.core.demo import demo_source
from wikimem_tui.journal.journal_reader import parse_line
from wikimem_tui.journal.journal_view import row_cells


def test_the_action_column_is_as_wide_as_its_widest_label() -> None:
    row = parse_line(1, line("add", 1, owner="agent:companion", source_conv="conv_20260710").rstrip("\n"))
    narrow = "".join(text for text, _ in row_cells(row, 80, 15, 13, 12, action_widest=5))
    fixed = "".join(text for text, _ in row_cells(row, 80, 15, 13, 12))
    assert " add   agent:companion" in narrow and " add     agent:companion" in fixed
    assert len(narrow) == len(fixed)  # the two cells went to the detail, not off the line
    assert "".join(text for text, _ in row_cells(row, 80, 15, 13, 12, action_widest=1)).count(" add ") == 1  # >= 3


async def test_the_demo_journal_at_85_columns_shows_every_conversation_id_whole(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    demo = (demo_source() / "journal.jsonl").read_text(encoding="utf-8")
    write(journal, demo, demo)  # more rows than the pane: the scrollbar is there too
    async with TailApp(journal).run_test(size=(85, 30)) as pilot:
        assert await wait_for(pilot, lambda: "conv_" in screen_text(pilot.app), "the demo's rows")
        await wait_for(pilot)
        text = screen_text(pilot.app)
        assert re.findall(r"conv_\d{8}\b", text) and not re.search(r"conv_\d*…", text), text
        assert "agent_notes:untrusted-text-demo" in text  # the widest target stays whole too


def test_a_row_wider_than_a_very_narrow_pane_ends_in_an_ellipsis_at_its_edge() -> None:
    """At 40 columns the target column kept its 8 cells past the pane's edge: ``maintenance:…`` showed as ``mai``."""
    from rich.cells import cell_len

    row = parse_line(1, line("add", 1, owner="agent:claude-code", source_conv="conv_20260710").rstrip("\n"))
    for width in (20, 30, 36, 40):
        text = "".join(text for text, _ in row_cells(row, width, 10, 13, 20, action_widest=6))
        assert cell_len(text) <= width and text.endswith("…"), (width, text)
