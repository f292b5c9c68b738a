"""The item view wraps a ``[[wiki link]]`` as a whole, and the link stays clickable on the line it moved to."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import make_app, make_backend, open_item, screen_text, started, wait_for
from wikimem import MemoryStore
from wikimem_tui.item.item_view import ItemView
from wikimem_tui.item.link_wrap import break_offsets

GLUED = "喜欢海边，提到过想去海边玩。[[people:Alice]]"
LONG_GLUED = "喜欢海边，提到过想去海边玩。" * 2 + "[[people:Alice]]"  # 72 cells: wider than the body (68)
SPACED = "Worries about the Q4 demo deadline, and then [[people:my old friend]] said so"


def _lines(line: str, width: int, atoms: list[tuple[int, int]]) -> list[str]:
    cuts = [0, *break_offsets(line, width, atoms), len(line)]
    return [line[a:b] for a, b in zip(cuts, cuts[1:])]


def test_a_link_glued_to_chinese_text_moves_to_the_next_line_whole() -> None:
    start = GLUED.index("[[")
    lines = _lines(GLUED, 32, [(start, len(GLUED))])
    assert lines == ["喜欢海边，提到过想去海边玩。", "[[people:Alice]]"]


def test_a_link_with_a_space_in_its_name_is_not_broken_at_that_space() -> None:
    start, end = SPACED.index("[["), SPACED.index("]]") + 2
    for width in range(end - start, len(SPACED)):  # from the link's own width up
        lines = _lines(SPACED, width, [(start, end)])
        assert any("[[people:my old friend]]" in line for line in lines), (width, lines)
        assert all(len(line.rstrip()) <= width for line in lines)


def test_outside_links_lines_break_after_spaces_and_fold_words_wider_than_the_line() -> None:
    assert _lines("aaa bbb ccc", 6, []) == ["aaa ", "bbb ", "ccc"]
    assert _lines("abcdefghij", 4, []) == ["abcd", "efgh", "ij"]
    assert _lines("[[a:bcdefgh]]", 5, [(0, 13)]) == ["[[a:b", "cdefg", "h]]"]  # a link wider than the line


@pytest.fixture
def glued(memory_dir: Path) -> Path:
    MemoryStore(memory_dir).add("people", "lin", LONG_GLUED, ts="2026-07-20T09:00:00+00:00")
    return memory_dir


async def test_the_item_view_keeps_a_glued_link_whole_and_clicking_it_follows_it(glued: Path) -> None:
    async with started(make_app(make_backend(glued)), (100, 24)) as pilot:
        await open_item(pilot, "people", "lin")
        body = pilot.app.query_one("#item-body")
        assert body.region.width == 68
        pilot.app.query_one(ItemView).focus()  # a click focuses the pane: its layout is then the same
        await wait_for(pilot)
        first, second = screen_text(pilot.app).splitlines()[body.region.y : body.region.y + 2]
        assert first.rstrip().endswith("▕ " + "喜欢海边，提到过想去海边玩。" * 2)
        assert second.rstrip().endswith("▕ [[people:Alice]]")
        await pilot.click("#item-body", offset=(3, 1))
        assert await wait_for(pilot, lambda: pilot.app.query_one(ItemView).current == ("people", "Alice"))
