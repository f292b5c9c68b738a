"""Issue 13, the diary in the app: a queue longer than the screen, same-minute entries, diary backlinks.

Each test drives the app (Pilot) and asserts what the user sees and what is
on disk afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import TS, make_app, make_backend, open_item, screen_text, started, wait_for
from pane_harness import PaneApp, item_area
from test_tui_curation import audit_screen, open_day, retract_screen
from test_tui_query import QueryApp, table_rows, type_query
from test_tui_reconcile import SIZE, QueueApp, journal_lines, loaded, pane, promote_screen, queue_store, rows
from textual.widgets import Input, OptionList, Static

from wikimem import MemoryIndex, MemoryStore, draft_promotion
from wikimem_tui.core.backend import Backend
from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.item.audit import AuditScreen
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.queue.promote import PromoteScreen
from wikimem_tui.item.item_area import ItemArea
from wikimem_tui.item.item_view import ItemView
from wikimem_tui.query.query_panel import QueryPanel
from wikimem_tui.query.table import ResultsTable
from wikimem import agent_text


async def test_the_queue_scrolls_past_the_visible_rows_without_crashing(tmp_path: Path) -> None:
    backend = queue_store(tmp_path)
    for minute in range(60):
        backend.store.diary.append(f"Entry number {minute}.", date="2026-07-10", time=f"10:{minute:02d}",
                                   owner="agent", ts="2026-07-10T08:00:00+00:00")
    async with QueueApp(backend).run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        view = pane(pilot.app).rows_view
        view.focus()
        await wait_for(pilot)
        await pilot.press(*["down"] * 30)  # 30 rows never fit in an 80x24 screen
        await wait_for(pilot)
        assert view.cursor == 30
        visible = view.scrollable_content_region.height
        top = round(view.scroll_y)
        assert 0 < visible < 30 and top > 0
        assert top <= view.cursor < top + visible  # the highlighted row is on screen
        await pilot.press("end")
        await wait_for(pilot)
        assert view.cursor == len(rows(pilot.app)) - 1
        assert round(view.scroll_y) + visible > view.cursor
        await pilot.press("home")
        await wait_for(pilot)
        assert (view.cursor, round(view.scroll_y)) == (0, 0)
        assert pilot.app.is_running



# -- finding 5: two entries in one minute are two entries ------------------------------------


def two_in_a_minute(root: Path) -> Backend:
    """The queue store plus two uncited entries at 2026-07-09 12:00, the second with equal text's neighbour."""
    backend = queue_store(root)
    diary = backend.store.diary
    diary.append("Lunch by the harbour.", date="2026-07-09", time="12:00", owner="agent", ts=TS)
    diary.append("Found a lost harbour map.", date="2026-07-09", time="12:00", owner="agent", ts=TS)
    return backend


def rows_of(app: Any, day: str) -> list[str]:
    return [r for r in rows(app) if r.startswith(day)]


async def test_promoting_one_entry_of_a_minute_leaves_the_other_on_the_queue(tmp_path: Path) -> None:
    backend = two_in_a_minute(tmp_path)
    async with QueueApp(backend).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert rows_of(pilot.app, "2026-07-09") == [
            "2026-07-09 12:00 agent #2 Found a lost harbour map.",
            "2026-07-09 12:00 agent Lunch by the harbour.",
        ]
        at = next(i for i, q in enumerate(pane(pilot.app).shown) if q.entry.ordinal == 2)
        pane(pilot.app).rows_view.cursor = at
        screen = await promote_screen(pilot)
        assert "2026-07-09 12:00#2" in screen_text(pilot.app)
        screen.query_one("#rp-file", Input).value = "things"
        screen.query_one("#rp-name", Input).value = "map"
        assert await wait_for(pilot, lambda: screen.target == ("things", "map"))
        await wait_for(pilot)
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: not isinstance(pilot.app.screen, PromoteScreen))
        await loaded(pilot, 2)
        assert rows_of(pilot.app, "2026-07-09") == ["2026-07-09 12:00 agent Lunch by the harbour."]
        await pilot.press("enter")  # the one left opens as the minute's first entry
        days = lambda: [o for o in pilot.app.opened if o[0] == "diary"]  # noqa: E731
        assert await wait_for(pilot, lambda: days()[-1:] == [("diary", "2026-07-09", "12:00")])
    item = backend.store.get("things", "map")
    assert item is not None and "(evidence: diary 2026-07-09 12:00#2, owner agent)" in item.content
    assert journal_lines(tmp_path)[-1]["detail"] == "promoted from diary 2026-07-09 12:00#2"


async def test_marking_one_of_two_equal_entries_reviewed_leaves_the_other(tmp_path: Path) -> None:
    backend = queue_store(tmp_path)
    for _ in range(2):
        backend.store.diary.append("ok", date="2026-07-09", time="12:00", owner="agent", ts=TS)
    async with QueueApp(backend).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert rows_of(pilot.app, "2026-07-09") == ["2026-07-09 12:00 agent #2 ok", "2026-07-09 12:00 agent ok"]
        view = pane(pilot.app).rows_view
        view.focus()
        view.cursor = next(i for i, q in enumerate(pane(pilot.app).shown) if q.entry.ordinal == 2)
        await pilot.press("space")  # selecting one of two equal texts selects one
        await wait_for(pilot)
        assert len(pane(pilot.app).selected) == 1
        await pilot.press("x")
        await loaded(pilot, 2)
        assert rows_of(pilot.app, "2026-07-09") == ["2026-07-09 12:00 agent ok"]
    records = json.loads((tmp_path / "reviewed.json").read_text(encoding="utf-8"))["entries"]
    assert [(r["time"], r["ordinal"]) for r in records] == [("12:00", 2)]


def cited_minute(root: Path) -> None:
    """On the shared sample memory: two entries at 2026-07-21 12:00, each promoted into its own item."""
    store = MemoryStore(root)
    first = store.diary.append("Lunch with Alice.", date="2026-07-21", time="12:00", owner="agent", ts=TS)
    second = store.diary.append("Alice lost her keys.", date="2026-07-21", time="12:00", owner="agent", ts=TS)
    assert (first.ordinal, second.ordinal) == (1, 2)
    store.add("notes", "lunch", draft_promotion([first]).content, owner="agent", ts=TS)
    store.add("notes", "keys", draft_promotion([second]).content, owner="agent", ts=TS)


async def test_audit_of_an_item_shows_the_one_entry_it_cites(memory_dir: Path) -> None:
    cited_minute(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "notes", "keys")
        await audit_screen(pilot)
        text = screen_text(pilot.app)
        assert "diary 2026-07-21 12:00#2" in text and "Alice lost her keys." in text
        assert "Lunch with Alice." not in text
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: not isinstance(pilot.app.screen, AuditScreen))  # else the next is this one
        await open_item(pilot, "notes", "lunch")
        await audit_screen(pilot)
        text = screen_text(pilot.app)
        assert "Lunch with Alice." in text and "Alice lost her keys." not in text
        assert "the first of 2 entries at that minute" in text


async def test_retracting_the_second_entry_of_a_minute_lists_only_what_cites_it(memory_dir: Path) -> None:
    cited_minute(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_day(pilot, "2026-07-21")
        await pilot.press("X")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, AuditScreen) and pilot.app.screen.loaded)
        picker = pilot.app.screen
        keys = [r.minute for r in picker.rows if r.minute is not None and r.minute[0] == "2026-07-21"]
        assert ("2026-07-21", "12:00") in keys and ("2026-07-21", "12:00#2") in keys
        picker.query_one("OptionList").highlighted = next(
            i for i, r in enumerate(picker.rows) if r.minute == ("2026-07-21", "12:00#2"))
        await pilot.press("X")
        screen = await retract_screen(pilot)
        assert screen.subject == ("entry", "2026-07-21", "12:00#2")
        assert [f"{c.item.file}:{c.item.name}" for c in screen.candidates] == ["notes:keys"]
        assert "Retract diary 2026-07-21 12:00#2" in screen_text(pilot.app)
        assert "Alice lost her keys." in screen_text(pilot.app)


async def test_the_day_view_highlights_the_entry_it_was_opened_on(memory_dir: Path) -> None:
    cited_minute(memory_dir)
    async with PaneApp(make_backend(memory_dir), item_area, catalogue=True).run_test(size=(120, 40)) as pilot:
        pilot.app.query_one(ItemArea).open_day("2026-07-21", "12:00#2")
        await wait_for(pilot)
        body = pilot.app.query_one("#item-body", Static).render()  # a Content: plain text and styled spans
        reversed_at = [span.start for span in body.spans if "reverse=True" in repr(span.style)]
        assert "## 12:00  #2" in body.plain
        assert reversed_at == [body.plain.index("## 12:00  #2")]  # the second entry, not the first


async def test_the_query_pane_shows_two_entries_of_a_minute_as_two_rows(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.diary.append("Swam at the harbour.", date="2026-07-21", time="14:30")
    store.diary.append("Bought a harbour map.", date="2026-07-21", time="14:30")
    async with QueryApp(tmp_path, MemoryIndex(store, use_jieba=False)).run_test(size=(140, 40)) as pilot:
        pilot.app.query_one("#query-time", Input).value = "2026-07-21"
        await type_query(pilot, "harbour")
        panel = pilot.app.query_one(QueryPanel)
        # Every run the time knob and the keys started has answered: a late one would reset the highlight.
        assert await wait_for(pilot, lambda: panel.settled and len(table_rows(pilot.app)) == 2)
        assert sorted(r[6].strip() for r in table_rows(pilot.app)) == ["diary 2026-07-21 14:30", "diary 2026-07-21 14:30#2"]
        table = pilot.app.query_one("#query-results", ResultsTable)
        table.focus()
        await pilot.press("enter", "down", "enter")
        assert await wait_for(pilot, lambda: len(pilot.app.opened) == 2)
        assert sorted(pilot.app.opened) == [("diary", "2026-07-21", "14:30"), ("diary", "2026-07-21", "14:30#2")]
        assert panel.last_result is not None
        assert "## diary 2026-07-21 14:30#2" in agent_text(panel.last_result)


# -- finding 4: diary links are backlinks too, and they are never rewritten ------------------------


def diary_links_alice(root: Path) -> None:
    """Two entries of one minute link to people:Alice; one entry links to preferences:tea and nothing else does."""
    diary = MemoryStore(root).diary
    diary.append("Lunch with [[people:Alice]].", date="2026-07-21", time="12:00", owner="agent", ts=TS)
    diary.append("[[people:Alice]] lost her keys.", date="2026-07-21", time="12:00", owner="agent", ts=TS)
    diary.append("Tried [[ notes : oolong ]] today.", date="2026-07-21", time="13:00", owner="agent", ts=TS)
    MemoryStore(root).add("notes", "oolong", "A tea nobody links to.", owner="agent", ts=TS)


def diary_bytes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "diary").glob("*.md"))}


async def confirm_text(pilot: Any) -> str:
    """The confirmation's question, its detail lines and its buttons, unwrapped (the dialog wraps at 72)."""
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
    await wait_for(pilot)
    screen = pilot.app.screen
    return "\n".join([screen.message.plain, *(line.plain for line in screen.details), screen.yes, screen.no])


async def test_the_item_view_lists_diary_entries_among_its_backlinks(memory_dir: Path) -> None:
    diary_links_alice(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "people", "Alice")
        view = pilot.app.query_one(ItemView)
        assert await wait_for(pilot, lambda: len(view.diary_backlinks) == 2)
        assert view.diary_backlinks == [("2026-07-21", "12:00"), ("2026-07-21", "12:00#2")]
        assert view.backlinks == [("preferences", "coffee")]
        text = screen_text(pilot.app)
        assert "diary 2026-07-21 12:00#2" in text and "append-only" in text
        backlinks = pilot.app.query_one("#item-backlinks", OptionList)
        backlinks.focus()
        backlinks.highlighted = 2
        await pilot.press("enter")  # opens the day at that entry
        assert await wait_for(pilot, lambda: view.shown == ("day", "2026-07-21", "12:00#2"))


async def test_rename_says_the_diary_links_will_dangle_and_leaves_the_diary_untouched(memory_dir: Path) -> None:
    diary_links_alice(memory_dir)
    before = diary_bytes(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "people", "Alice")
        await pilot.press("r", "end", *"-b", "enter")
        text = await confirm_text(pilot)
        assert "1 item links to people:Alice. Rewrite those links to people:Alice-b?" in text
        assert "2 diary entries link to it too; the diary is append-only" in text
        assert "diary 2026-07-21 12:00#2" in text
        await pilot.press("y")
        assert await wait_for(pilot, lambda: pilot.app.query_one(ItemView).current == ("people", "Alice-b"))
    assert "[[people:Alice-b]]" in MemoryStore(memory_dir).get("preferences", "coffee").content
    assert diary_bytes(memory_dir) == before  # never rewritten


async def test_a_move_with_only_diary_links_asks_first_and_escape_moves_nothing(memory_dir: Path) -> None:
    diary_links_alice(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "notes", "oolong")
        await pilot.press("m", *"teas", "enter")
        text = await confirm_text(pilot)
        assert "Move notes:oolong to teas:oolong?" in text
        assert "1 diary entry links to it; the diary is append-only, so its link is never rewritten" in text
        assert "diary 2026-07-21 13:00" in text
        await pilot.press("n")
        assert await wait_for(pilot, lambda: not isinstance(pilot.app.screen, ConfirmScreen))
        await wait_for(pilot)  # the flow the answer ended
        assert MemoryStore(memory_dir).get("notes", "oolong") is not None  # not moved
        await pilot.press("m", *"teas", "enter")
        await confirm_text(pilot)
        await pilot.press("y")
        assert await wait_for(pilot, lambda: pilot.app.query_one(ItemView).current == ("teas", "oolong"))


async def test_delete_lists_the_diary_entries_whose_links_will_dangle(memory_dir: Path) -> None:
    diary_links_alice(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "notes", "oolong")
        await pilot.press("d")
        text = await confirm_text(pilot)
        assert "1 diary entry links to it; the diary is append-only" in text
        assert "diary 2026-07-21 13:00" in text and "Delete, leave links dangling" in text
        await pilot.press("n")


def test_the_catalogue_follows_a_new_diary_entry_and_a_gone_day(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("people", "Alice", "Colleague.")
    catalogue = Catalogue.build(store)
    assert catalogue.diary_backlinks_of("people", "Alice") == []
    store.diary.append("Saw [[people:Alice]].", date="2026-07-21", time="09:00")
    store.diary.append("Saw [[people:Alice]] again.", date="2026-07-21", time="09:00")
    catalogue = catalogue.updated(store, dates={"2026-07-21"})
    assert catalogue.diary_backlinks_of("people", " Alice ") == [("2026-07-21", "09:00"), ("2026-07-21", "09:00#2")]
    assert Catalogue.build(store).diary_backlinks_of("people", "Alice") == catalogue.diary_backlinks_of("people", "Alice")
    store.diary.path("2026-07-21").unlink()
    assert catalogue.updated(store, dates={"2026-07-21"}).diary_backlinks_of("people", "Alice") == []
    assert catalogue.backlinks_of("people", "Alice") == []  # the wiki's own list stays the wiki's
