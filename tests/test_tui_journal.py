"""The journal tail pane: follows journal.jsonl live, filters, survives rewrites."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

from textual.app import App
from textual.widgets import Input, Select, Static

from conftest import wait_for
from pane_harness import PaneApp
from wikimem_tui.core.activity import Activity
from wikimem_tui.journal.journal_reader import JournalRows
from wikimem_tui.journal.journal_tail import JournalTail, JournalView


class TailApp(PaneApp):
    """Mounts only the journal tail, over a journal file in a temp dir."""

    def __init__(self, journal: Path) -> None:
        super().__init__(SimpleNamespace(journal_path=journal, activity=Activity()), JournalTail)


def line(action: str, n: int = 0, **extra: str) -> str:
    fields: dict[str, str] = {"ts": f"2026-07-10T03:{n // 60:02d}:{n % 60:02d}+00:00", "action": action}
    if action == "diary":
        fields.update(date="2026-07-21", time="14:30")
    else:
        fields.update(file="prefs", item=f"item-{n}")
    fields.update(extra)
    return json.dumps(fields, ensure_ascii=False) + "\n"


def write(path: Path, *lines: str, mode: str = "a") -> None:
    with open(path, mode, encoding="utf-8") as fh:
        fh.write("".join(lines))


def screen_text(app: App) -> str:
    view = app.query_one(JournalView)
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


def status(app: App) -> str:
    return str(app.query_one("#journal-status", Static).render())


async def test_existing_lines_are_shown(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, line("add", 1, owner="user:x"), line("diary", 2))
    async with TailApp(journal).run_test() as pilot:
        await wait_for(pilot, lambda: "2026-07-21 14:30" in screen_text(pilot.app))
        assert "prefs:item-1" in screen_text(pilot.app)
        assert "user:x" in screen_text(pilot.app)


async def test_missing_journal_shows_nothing_then_follows_its_creation(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    async with TailApp(journal).run_test() as pilot:
        await wait_for(pilot, lambda: status(pilot.app).startswith("0 lines"))
        write(journal, line("add", 1))
        await wait_for(pilot, lambda: "prefs:item-1" in screen_text(pilot.app))


async def test_appended_line_appears(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, line("add", 1))
    async with TailApp(journal).run_test() as pilot:
        await wait_for(pilot, lambda: "item-1" in screen_text(pilot.app))
        write(journal, line("update", 2))
        pilot.app.query_one(JournalTail).refresh_from_store()
        await wait_for(pilot, lambda: "prefs:item-2" in screen_text(pilot.app))


async def test_truncation_rereads_from_start(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, *(line("add", n) for n in range(5)))
    async with TailApp(journal).run_test() as pilot:
        await wait_for(pilot, lambda: "item-4" in screen_text(pilot.app))
        write(journal, line("remove", 99), mode="w")
        await wait_for(pilot, lambda: "item-99" in screen_text(pilot.app))
        assert "item-4" not in screen_text(pilot.app)
        assert status(pilot.app).startswith("1 line ")


async def test_rotation_rereads_new_file(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, *(line("add", n) for n in range(3)))
    async with TailApp(journal).run_test() as pilot:
        await wait_for(pilot, lambda: "item-2" in screen_text(pilot.app))
        fresh = tmp_path / "journal.new"
        write(fresh, *(line("update", n) for n in range(10, 14)))
        os.replace(fresh, journal)
        await wait_for(pilot, lambda: "item-13" in screen_text(pilot.app))
        assert "item-2 " not in screen_text(pilot.app)


async def test_malformed_line_is_shown_marked(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, line("add", 1), "{not json at all\n", line("add", 2))
    async with TailApp(journal).run_test() as pilot:
        await wait_for(pilot, lambda: "item-2" in screen_text(pilot.app))
        text = screen_text(pilot.app)
        assert "✗ bad" in text and "not JSON: {not json at all" in text


async def test_markup_and_escapes_in_fields_are_literal(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, line("add", 1, owner="[b]evil[/b]", item="x\x1b[31mred"))
    async with TailApp(journal).run_test(size=(120, 24)) as pilot:
        await wait_for(pilot, lambda: "evil" in screen_text(pilot.app))
        text = screen_text(pilot.app)
        assert "[b]evil[/b]" in text
        assert "x␛[31mred" in text


async def test_scrolled_up_shows_pending_count_and_end_resumes(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, *(line("add", n) for n in range(100)))
    async with TailApp(journal).run_test(size=(120, 20)) as pilot:
        await wait_for(pilot, lambda: "item-99" in screen_text(pilot.app))
        view = pilot.app.query_one(JournalView)
        view.focus()
        await pilot.press("home")
        await wait_for(pilot)
        assert "item-0 " in screen_text(pilot.app)
        write(journal, line("add", 100), line("add", 101))
        await wait_for(pilot, lambda: "2 new" in status(pilot.app))
        assert "item-101" not in screen_text(pilot.app)
        await pilot.press("end")
        await wait_for(pilot, lambda: "item-101" in screen_text(pilot.app))
        assert "following" in status(pilot.app)


async def test_filters_by_action_owner_and_file(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(
        journal,
        line("add", 1, owner="agent"),
        line("remove", 2, owner="tui:me"),
        line("diary", 3, owner="agent"),
        line("add", 4, owner="agent", file="other"),
    )
    async with TailApp(journal).run_test() as pilot:
        app = pilot.app
        await wait_for(pilot, lambda: "other:item-4" in screen_text(app))
        app.query_one("#journal-action", Select).value = "add"
        await wait_for(pilot, lambda: "item-2" not in screen_text(app))
        assert "prefs:item-1" in screen_text(app) and "14:30" not in screen_text(app)
        app.query_one("#journal-file", Input).value = "other"
        await wait_for(pilot, lambda: "prefs:item-1" not in screen_text(app))
        assert "other:item-4" in screen_text(app)
        app.query_one("#journal-action", Select).clear()
        app.query_one("#journal-file", Input).value = ""
        app.query_one("#journal-owner", Input).value = "TUI"
        await wait_for(pilot, lambda: "other:item-4" not in screen_text(app))
        assert "prefs:item-2" in screen_text(app)


async def test_selecting_lines_opens_item_or_diary_day(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, line("add", 1), line("diary", 2))
    async with TailApp(journal).run_test() as pilot:
        app = pilot.app
        await wait_for(pilot, lambda: "14:30" in screen_text(app))
        app.query_one(JournalView).focus()
        await pilot.press("up", "enter")
        await pilot.click(JournalView, offset=(2, 0))
        await wait_for(pilot)
        assert app.opened == [("diary", "2026-07-21", "14:30"), ("item", "prefs", "item-1")]


async def test_narrow_pane_keeps_the_target_readable(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, line("add", 1, owner="agent"))
    async with TailApp(journal).run_test(size=(60, 12)) as pilot:
        await wait_for(pilot, lambda: "prefs:item-1" in screen_text(pilot.app))
        assert screen_text(pilot.app).startswith("2026-07-10 03:00 add agent")  # the action column fits "add"


async def test_narrow_pane_keeps_the_year_and_the_detail_cut_with_an_ellipsis(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    detail = "rename from prefs:old-name, three links rewritten"
    write(journal, line("add", 1, owner="agent", detail=detail), line("add", 2, owner="agent"))
    async with TailApp(journal).run_test(size=(72, 12)) as pilot:
        await wait_for(pilot, lambda: "prefs:item-2" in screen_text(pilot.app))
        first, second = screen_text(pilot.app).splitlines()[:2]
        start = "2026-07-10 03:00 add agent prefs:item-1 "  # the target (and action) column fits the widest
        assert first.startswith(start)
        shown = first[len(start):].rstrip()
        assert shown.endswith("…") and detail.startswith(shown.removesuffix("…")) and len(shown) >= 8
        assert second.rstrip().endswith("prefs:item-2")  # no detail: nothing after the target


async def test_narrow_pane_without_details_gives_the_target_the_whole_line(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    target = "agent_notes:untrusted-text-demo-notes-x"  # 39 cells: the 41 left, were 8 kept for a detail
    write(journal, line("add", 1, owner="agent", file="agent_notes", item=target.partition(":")[2]))
    async with TailApp(journal).run_test(size=(72, 12)) as pilot:
        await wait_for(pilot, lambda: "agent_notes:" in screen_text(pilot.app))
        assert target in screen_text(pilot.app)


def test_follower_holds_back_a_partial_line(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    follower = JournalRows(journal)
    assert follower.poll() == (False, [])
    write(journal, line("add", 1), '{"ts": "x", "act')
    reset, rows = follower.poll()
    assert not reset and [r.action for r in rows] == ["add"]
    write(journal, 'ion": "remove"}\n')
    _, rows = follower.poll()
    assert [r.action for r in rows] == ["remove"] and rows[0].lineno == 2


def test_follower_notices_same_size_rewrite(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, line("add", 1))
    follower = JournalRows(journal)
    follower.poll()
    with open(journal, "r+", encoding="utf-8") as fh:  # same inode, rewritten head
        fh.write(line("add", 7) + line("add", 8))
    reset, rows = follower.poll()
    assert reset and [r.field("item") for r in rows] == ["item-7", "item-8"]


def test_follower_keeps_a_character_cut_mid_write_intact(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    data = line("add", 1, item="张伟").encode("utf-8")
    cut = data.index("伟".encode("utf-8")) + 1  # inside the 3-byte character
    follower = JournalRows(journal)
    journal.write_bytes(data[:cut])
    assert follower.poll() == (False, [])
    with open(journal, "ab") as fh:
        fh.write(data[cut:])
    _, rows = follower.poll()
    assert rows[0].field("item") == "张伟"


async def test_journal_key_puts_the_focus_on_the_rows_and_escape_leaves_a_filter(memory_dir: Path) -> None:
    from conftest import make_app, make_backend, started

    app = make_app(make_backend(memory_dir))
    async with started(app, (120, 40)) as pilot:
        await pilot.press("j")
        await wait_for(pilot, lambda: app.focused is app.query_one(JournalView))
        app.query_one("#journal-owner", Input).focus()
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.focused is app.query_one(JournalView))


async def test_the_highlighted_row_is_shown_whole_below_the_rows(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    owner = "user:someone-with-a-very-long-login-name"
    item = "an-item-name-far-too-long-for-the-target-column-of-a-side-pane"
    write(journal, line("update", 1, owner=owner, item=item, detail="link rewrite: 3 files"))
    async with TailApp(journal).run_test(size=(80, 24)) as pilot:
        app = pilot.app
        await wait_for(pilot, lambda: "prefs:an-item" in screen_text(app))
        assert owner not in screen_text(app) and item not in screen_text(app)  # the columns cut them
        app.query_one(JournalView).focus()
        await pilot.press("up")
        await wait_for(pilot, lambda: owner in detail(app))
        assert f"prefs:{item}" in detail(app) and "link rewrite: 3 files" in detail(app)


async def test_a_writer_who_is_not_the_owner_is_shown_and_filterable(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    write(journal, line("update", 1, owner="user:x", by="tui:me"), line("add", 2, owner="agent"))
    async with TailApp(journal).run_test(size=(120, 24)) as pilot:
        app = pilot.app
        await wait_for(pilot, lambda: "prefs:item-2" in screen_text(app))
        assert "user:x by tui:me" in screen_text(app)
        app.query_one("#journal-owner", Input).value = "tui:me"
        await wait_for(pilot, lambda: "prefs:item-2" not in screen_text(app))
        assert "prefs:item-1" in screen_text(app)
        app.query_one(JournalView).focus()
        await pilot.press("up")
        await wait_for(pilot, lambda: "by tui:me" in detail(app))


def detail(app: App) -> str:
    return str(app.query_one("#journal-detail", Static).render())


async def test_toasts_do_not_cover_the_newest_journal_rows(memory_dir: Path) -> None:
    from textual.geometry import Region

    from conftest import make_app, make_backend, ready

    app = make_app(make_backend(memory_dir))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await ready(pilot)
        await pilot.press("j")
        await wait_for(pilot)
        view = app.query_one(JournalView)
        await wait_for(pilot, lambda: len(view.rows) > 0)
        app.notify("saved preferences:coffee\nand a second line", markup=False)
        await wait_for(pilot, lambda: len(app.screen.query("Toast")) > 0)
        await wait_for(pilot)
        [toast] = app.screen.query("Toast")
        r = view.region
        newest = Region(r.x, r.bottom - 8, r.width, 8)  # where following puts the newest rows
        assert toast.region.area > 0 and not toast.region.overlaps(newest)


async def test_a_diary_append_opens_on_its_own_entry_not_the_minutes_first(memory_dir: Path) -> None:
    """Two appends in one minute are two journal lines; each opens its day on the entry it appended."""
    from textual.widgets import Static

    from conftest import make_app, make_backend, started
    from wikimem import MemoryStore

    diary = MemoryStore(memory_dir).diary
    diary.append("Swam at the harbour.", date="2026-07-21", time="14:30", owner="agent")
    diary.append("Bought a harbour map.", date="2026-07-21", time="14:30", owner="agent")

    def highlighted(app: App) -> list[str]:
        body = app.query_one("#item-body", Static).render()  # a Content: plain text and styled spans
        starts = [span.start for span in body.spans if "reverse=True" in repr(span.style)]
        return [body.plain[start:].partition("\n")[0] for start in starts]

    app = make_app(make_backend(memory_dir))
    async with started(app, (120, 40)) as pilot:
        await pilot.press("j")
        view = app.query_one(JournalView)
        assert await wait_for(pilot, lambda: app.focused is view and "2026-07-21 14:30#2" in screen_text(app),
                              "the second append's line, named with its #2")
        await pilot.press("up", "enter")  # the newest line: the second append
        assert await wait_for(pilot, lambda: highlighted(app) == ["## 14:30  #2"], "the day on the second entry")
        await pilot.press("j")
        assert await wait_for(pilot, lambda: app.focused is view, "the journal again")
        await pilot.press("up", "enter")  # the line before: the first append of that minute
        assert await wait_for(pilot, lambda: highlighted(app) == ["## 14:30"], "the day on the first entry")


async def test_a_long_journal_reaches_the_view_in_batches_that_wait_while_the_user_types(tmp_path: Path,
                                                                                         monkeypatch) -> None:
    """A 1M-line journal was parsed and handed to the view in one go: a second of the event loop, and no pause."""
    import wikimem_tui.journal.journal_tail as tail

    monkeypatch.setattr(tail, "BATCH_ROWS", 3)
    journal = tmp_path / "journal.jsonl"
    write(journal, *(line("add", n) for n in range(10)))
    app = TailApp(journal)
    app.backend.activity.quiet = 1e6  # once touched, quiet never comes within the test
    app.backend.activity.touch()  # the user is typing when the read starts
    async with app.run_test() as pilot:
        view = app.query_one(JournalView)
        assert await wait_for(pilot, lambda: len(view.rows) == 3, "the first batch")
        assert await wait_for(pilot, lambda: app.backend.activity.idle_for() > 0)
        assert len(view.rows) == 3  # the rest waits for quiet
        app.backend.activity.quiet = 0.0
        assert await wait_for(pilot, lambda: len(view.rows) == 10, "the other batches")
        assert [row.field("item") for row in view.rows] == [f"item-{n}" for n in range(10)]


async def test_narrow_pane_gives_a_long_target_all_but_the_details_eight_cells(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    item = "untrusted-text-demo-with-a-long-name"
    write(journal, line("add", 1, owner="agent", file="agent_notes", item=item, source_conv="conv_20261120"))
    async with TailApp(journal).run_test(size=(72, 12)) as pilot:
        await wait_for(pilot, lambda: "agent_notes:" in screen_text(pilot.app))
        first = screen_text(pilot.app).splitlines()[0].rstrip()
        assert first.endswith(" conv_20…") and len(first) == 72
        assert first.endswith(" agent_notes:untrusted-text-demo-wit… conv_20…")  # 36 of the 45 cells left, 8 kept
