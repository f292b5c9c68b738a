"""Counts read as English wherever the app shows one: "1 day", "1 entry", never "1 days" or "item(s)".

Each test shows a count of one (and of two where the plural is the point)
on the screen a user would see it on, through the widget that draws it.
"""

from __future__ import annotations

from pathlib import Path

from conftest import make_app, make_backend, started, wait_for
from pane_harness import PaneApp, item_area
from test_tui_curation import audit_screen, curated, open_day
from test_tui_journal import TailApp, line, status, write
from test_tui_tree import TreeApp, labels
from textual.widgets import Static

from wikimem import MemoryStore
from wikimem_tui.item.item_area import ItemArea
from wikimem_tui.core.words import count


def test_count_words_the_plural_only_when_it_is_not_one() -> None:
    assert [count(n, "day") for n in (0, 1, 2)] == ["0 days", "1 day", "2 days"]
    assert [count(n, "entry") for n in (1, 3)] == ["1 entry", "3 entries"]
    assert [count(n, "match") for n in (1, 2)] == ["1 match", "2 matches"]
    assert count(2, "key") == "2 keys" and count(1_500, "item", grouped=True) == "1,500 items"


async def test_a_diary_of_one_day_says_1_day_in_the_tree(tmp_path: Path) -> None:
    MemoryStore(tmp_path).diary.append("One entry.", date="2026-07-21", time="09:00")
    async with TreeApp(tmp_path).run_test() as pilot:
        assert await wait_for(pilot, lambda: labels(pilot.app)[:1] == ["diary (1 day)"])


async def test_a_journal_of_one_line_says_1_line(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, line("add", 1))
    async with TailApp(journal).run_test() as pilot:
        assert await wait_for(pilot, lambda: status(pilot.app).startswith("1 line "))
        write(journal, line("add", 2))
        assert await wait_for(pilot, lambda: status(pilot.app).startswith("2 lines "))


async def test_a_recallfile_of_one_item_says_1_item(memory_dir: Path) -> None:
    async with PaneApp(make_backend(memory_dir), item_area, catalogue=True).run_test(size=(100, 30)) as pilot:
        area = pilot.app.query_one(ItemArea)
        area.open_file("notes")  # one item
        await wait_for(pilot)
        meta = pilot.app.query_one("#item-meta", Static)
        assert await wait_for(pilot, lambda: str(meta.render()) == "1 item")
        area.open_file("people")  # two items
        assert await wait_for(pilot, lambda: str(meta.render()) == "2 items")


async def test_a_day_audit_says_what_rests_under_one_item(memory_dir: Path) -> None:
    curated(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_day(pilot, "2026-07-21")
        screen = await audit_screen(pilot)
        titles = [str(row.text) for row in screen.rows if row.minute is not None and not row.heading]
    assert any(title.endswith("rests under 1 item") for title in titles), titles
    assert not any("item(s)" in title for title in titles)
