"""What a new user met in the app, each pinned by what the screen shows (every test here failed before its fix)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from textual.widgets import Static

from conftest import SAFETY_NET, make_app, make_backend, open_item, screen_text, started, wait_for
from pane_harness import PaneApp
from wikimem_tui.health.health import HealthPane
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


async def test_a_toast_is_drawn_once_when_a_dialog_opens(memory_dir: Path) -> None:
    """The editor's toasts sit at the left, a dialog's at the right: the screen under the dialog drew its own too."""
    from textual.command import CommandPalette

    async with started(make_app(make_backend(memory_dir)), (120, 40), notifications=True) as pilot:
        await open_item(pilot, "preferences", "coffee")
        await pilot.press("e")
        await wait_for(pilot)
        pilot.app.notify("one toast, drawn once")
        assert await wait_for(pilot, lambda: "one toast, drawn once" in screen_text(pilot.app))
        await pilot.press("ctrl+p")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
        await wait_for(pilot)
        assert screen_text(pilot.app).count("one toast, drawn once") == 1, screen_text(pilot.app)


async def test_live_changes_show_one_notice_that_updates_and_goes(memory_dir: Path) -> None:
    """An agent writing for minutes: one short-lived toast, the latest, never a stack over the item pane."""
    from wikimem_tui.common.store_sync import LIVE_TIMEOUT

    async with started(make_app(make_backend(memory_dir)), (120, 40), notifications=True) as pilot:
        live = pilot.app.sync._live_notices
        for n in range(3):
            live._notify(f"changed on disk: wiki: notes ({n + 2} changes)")
        await wait_for(pilot)
        shown = [n for n in pilot.app._notifications if n.title == "live"]
        assert [n.message for n in shown] == ["changed on disk: wiki: notes (4 changes)"]
        assert shown[0].timeout <= LIVE_TIMEOUT
        assert screen_text(pilot.app).count("changed on disk") == 1


def test_the_demo_notice_stays_until_the_first_key() -> None:
    """A notice with a timeout vanished while a newcomer was still reading it: only a key takes it away."""
    import math

    from wikimem_tui.common.startup_notices import StartupNotices

    assert StartupNotices(object()).timeout == math.inf  # type: ignore[arg-type]


async def test_escape_from_the_results_then_t_h_leaves_the_query_as_typed(memory_dir: Path) -> None:
    from textual.widgets import Input, TabbedContent

    from wikimem_tui.query.query_panel import QueryPanel

    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await pilot.press("slash")
        box = pilot.app.query_one("#query-input", Input)
        assert await wait_for(pilot, lambda: box.has_focus)
        await pilot.press(*"coffee", "enter")
        panel = pilot.app.query_one(QueryPanel)
        assert await wait_for(pilot, lambda: panel.table.has_focus)
        await pilot.press("escape", "t", "h")
        await wait_for(pilot)
        assert box.value == "coffee"
        assert pilot.app.query_one("#panes", TabbedContent).active == "tab-health"


async def test_link_rows_take_at_most_two_lines_in_the_query_pane_at_120_columns(tmp_path: Path) -> None:
    """The pane beside the tree at 120 columns is 84 wide: a link row's note took three lines, names broke mid-word."""
    from test_tui_query import QueryApp, ScriptedIndex, type_query

    from conftest import retrieved
    from wikimem import RetrievalResult
    from wikimem_tui.query.table import ResultsTable

    result = RetrievalResult(items=[
        retrieved("preferences", "likes-the-sea", score=1.8, bm25_score=1.8, matched_terms=["like"], tokens_est=17,
                  rank=4),
        retrieved("daily_life", "beach-trip-plan", "link", score=1.6, bm25_score=1.6, via="likes-the-sea",
                  matched_terms=["lin"], tokens_est=22, rank=5),
        retrieved("agent_notes", "untrusted-text-demo", score=1.1, bm25_score=1.1, matched_terms=["like"],
                  tokens_est=40, rank=8),
    ])
    async with QueryApp(tmp_path, ScriptedIndex(result)).run_test(size=(84, 30)) as pilot:
        await type_query(pilot, "what does lin like to drink")
        table = pilot.app.query_one("#query-results", ResultsTable)
        assert await wait_for(pilot, lambda: table.row_total == 3)
        await wait_for(pilot)
        heights = [[row for row, _part in table._lines].count(i) for i in range(3)]
        assert max(heights) <= 2, heights
        text = screen_text(pilot.app)
        assert "(via likes-the-sea)" in text  # the note's first line whole
        assert "untrusted-text-demo" in text  # the name whole, on its own line


async def test_the_promote_dialog_starts_on_the_similar_items_and_gives_the_preview_room(tmp_path: Path) -> None:
    """↓ ⏎ pick the item to extend as the label says; what will be written is not squeezed into a few lines."""
    from textual.widgets import OptionList

    from test_tui_reconcile import QueueApp, loaded, promote_screen, queue_store

    backend = queue_store(tmp_path)
    long = "\n".join(f"Line {n}: the user swims at the beach in cold water." for n in range(30))
    backend.store.add("places", "beach", long, owner="user:xnne", ts="2026-07-21T06:30:00+00:00")
    async with QueueApp(backend).run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        screen = await promote_screen(pilot, "down")  # the 14:30 swim
        similar = screen.query_one("#rp-similar", OptionList)
        assert screen.similar[0].name == "beach"
        await pilot.press("down")
        assert await wait_for(pilot, lambda: similar.has_focus and similar.highlighted == 0)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: screen.target == ("places", "beach"))
        await wait_for(pilot)
        body, preview = screen.query_one("#rp-body"), screen.query_one("#rp-preview")
        shown = preview.region.intersection(body.region).height
        assert shown >= 10, shown


def test_a_summary_line_is_cut_at_a_word_with_an_ellipsis() -> None:
    from wikimem_tui.common.badges import clip_words

    cut = clip_words("Pour-over with new beans from Yunnan; said it tasted like apricot and honey.", 40)
    assert cut.endswith("…") and len(cut) <= 40
    assert cut[:-1].split()[-1] in "Pour-over with new beans from Yunnan said it tasted".split()


@needs_git
async def test_restore_pressed_before_git_answers_still_asks(memory_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race behind "a history restore never asked": r came while git was still being read, and was dropped."""
    import threading

    from test_tui_history import history_repo

    from wikimem_tui.common.confirm import ConfirmScreen
    from wikimem_tui.item import history as history_module

    history_repo(memory_dir)
    gate = threading.Event()
    real = history_module.item_history

    def slow(*args: object) -> object:
        assert gate.wait(SAFETY_NET), "the test never let git answer"
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(history_module, "item_history", slow)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        await pilot.press("H")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, HistoryScreen))
        screen = pilot.app.screen
        await pilot.press("down", "r")  # before git answered
        assert await wait_for(pilot, lambda: "still asking git" in screen_text(pilot.app))
        gate.set()
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        assert screen.loaded


async def test_the_status_line_parts_are_separated(memory_dir: Path) -> None:
    """Parts joined by spaces alone read as one word once the spacing is lost (``index readyowner tui:test``)."""
    from textual.widgets import Static

    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        line = str(pilot.app.query_one("#status", Static).render())
        assert "memory │ index ready │ owner tui:test" in line, line


async def test_matched_terms_show_the_words_typed_not_their_stems(tmp_path: Path) -> None:
    from test_tui_query import QueryApp, ScriptedIndex, table_rows, type_query

    from conftest import retrieved
    from wikimem import RetrievalResult

    result = RetrievalResult(items=[retrieved("preferences", "coffee", score=2.0, bm25_score=2.0,
                                              matched_terms=["coffe", "like"], tokens_est=9, rank=1)],
                             query_tokens=["coffe", "like"], stemmed={"coffee": "coffe"},
                             typed_terms={"coffe": "coffee", "like": "like"})
    async with QueryApp(tmp_path, ScriptedIndex(result)).run_test(size=(120, 30)) as pilot:
        await type_query(pilot, "coffee like")
        assert await wait_for(pilot, lambda: table_rows(pilot.app) and table_rows(pilot.app)[0][7] == "[coffee, like]")


async def test_the_calendar_opens_on_the_latest_entry_when_this_month_has_none(tmp_path: Path) -> None:
    from test_tui_calendar import CalendarApp

    from wikimem import MemoryStore
    from wikimem_tui.calendar.calendar import DiaryCalendar

    diary = MemoryStore(tmp_path).diary
    diary.append("a diary kept long ago", date="2023-03-14", time="08:00", owner="agent")
    diary.append("the first entry", date="2022-01-02", time="08:00", owner="agent")
    async with CalendarApp(tmp_path).run_test(size=(120, 40)) as pilot:
        calendar = pilot.app.query_one(DiaryCalendar)
        assert await wait_for(pilot, lambda: calendar.selected_date == "2023-03-14")
        assert "a diary kept long ago" in screen_text(pilot.app)


async def test_f4_hands_the_editor_a_file_with_a_final_newline(memory_dir: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The editor sees a proper text file; appending a line there does not run into the last one."""
    import contextlib
    import shlex
    import sys

    from wikimem import MemoryStore
    from wikimem_tui.app import WikimemApp

    seen = tmp_path / "seen.bin"
    editor = tmp_path / "editor.py"  # copies what it was handed, then appends a line as `cat >>` would
    editor.write_text("import shutil, sys\nshutil.copy(sys.argv[2], sys.argv[1])\n"
                      "open(sys.argv[2], 'a').write('More tea.\\n')\n", "utf-8")
    monkeypatch.setattr(WikimemApp, "suspend", lambda self: contextlib.nullcontext())
    monkeypatch.setenv("EDITOR", f"{shlex.quote(sys.executable)} {shlex.quote(str(editor))} {shlex.quote(str(seen))}")
    async with started(make_app(make_backend(memory_dir))) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("f4")
        await wait_for(pilot)
    assert seen.read_bytes().endswith(b"Jasmine tea in the afternoon.\n")
    tea = MemoryStore(memory_dir).get("preferences", "tea")
    assert tea is not None and tea.content == "Jasmine tea in the afternoon.\nMore tea."


async def test_a_folder_inside_wiki_is_named_in_the_health_pane(memory_dir: Path) -> None:
    (memory_dir / "wiki" / "sub").mkdir()
    (memory_dir / "wiki" / "sub" / "notes.md").write_text("# notes\n\n## tea\n\nJasmine.\n", "utf-8")
    async with PaneApp(make_backend(memory_dir), HealthPane).run_test(size=(120, 40)) as pilot:
        assert await wait_for(pilot, lambda: "wiki/sub/" in screen_text(pilot.app))


async def test_the_audit_rows_stay_one_line_each_in_an_80_column_terminal(memory_dir: Path) -> None:
    """At 100 columns and below the dialog is narrower than the rows were cut for: an excerpt wrapped under its row."""
    from wikimem import MemoryStore, draft_promotion
    from textual.widgets import OptionList
    from wikimem_tui.item.audit import AuditScreen

    store = MemoryStore(memory_dir)
    entry = store.diary.append("Fixed the bike: replaced the rear derailleur cable and re-indexed the gears, "
                               "then rode twenty kilometres to check the shifting under load.",
                               date="2026-07-21", time="18:20", owner="agent:claude-code")
    store.add("maintenance", "bike", draft_promotion([entry]).content, owner="agent:claude-code")
    async with started(make_app(make_backend(memory_dir)), (80, 24)) as pilot:
        await open_item(pilot, "maintenance", "bike")
        await pilot.press("A")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, AuditScreen) and pilot.app.screen.loaded)
        await wait_for(pilot)
        rows = pilot.app.screen.query_one(OptionList)
        assert rows.virtual_size.height == rows.option_count, screen_text(pilot.app)
        assert "kilometres" not in screen_text(pilot.app)  # the excerpt is cut with …, not wrapped


@pytest.mark.parametrize("days_from_now", [0, 400, -400])
def test_the_demo_journal_never_logs_a_diary_entry_before_it_happened_nor_in_the_future(
        tmp_path: Path, days_from_now: int) -> None:
    """The diary moved to end yesterday while the journal kept its build time: ``2026-11-29 23:42 diary 2026-12-04 07:45``."""
    import datetime as dt

    from wikimem import MemoryStore
    from wikimem_tui.core.demo import make_demo_copy

    today = dt.date.today() + dt.timedelta(days=days_from_now)
    store = MemoryStore(make_demo_copy(tmp_path, today=today))
    now = dt.datetime.now(dt.timezone.utc)
    stamps = {(e.date, e.time): e.ts for d in store.diary.dates() for e in store.diary.day(d)}
    lines = [line for line in store.journal.entries() if line["action"] == "diary"]
    assert lines
    for line in lines:
        logged = dt.datetime.fromisoformat(line["ts"])
        assert logged >= dt.datetime.fromisoformat(stamps[(line["date"], line["time"])]), line
        assert days_from_now > 0 or logged <= now, line


@pytest.mark.parametrize("box", ["#query-input", "#query-time"])
async def test_text_pasted_into_a_query_box_draws_nothing_hidden(memory_dir: Path, box: str) -> None:
    """A line copied from an agent's text (``Y`` copies an item's block as stored) pasted into the query pane
    put its escapes on the terminal as they were: the boxes drew their text raw."""
    from textual import events
    from textual.widgets import Input
    from test_tui_safe import HOSTILE, drawn

    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await pilot.press("slash")
        await wait_for(pilot)
        pilot.app.query_one(box, Input).focus()
        await wait_for(pilot)
        pilot.app.post_message(events.Paste(HOSTILE))
        assert await wait_for(pilot, lambda: "pwned" in pilot.app.query_one(box, Input).value)
        await wait_for(pilot)
        drawn(pilot.app)
        field = pilot.app.query_one(box, Input)
        field.value = ""
        pilot.app.post_message(events.Paste("sea\tsunrise pay\u200bpal"))
        assert await wait_for(pilot, lambda: field.value == "sea sunrise paypal")


def test_the_new_item_and_move_dialogs_offer_only_files_a_write_can_reach() -> None:
    """A hand-made ``wiki/Weird-Name.md`` was listed under "Existing files", then refused when typed."""
    from wikimem_tui.common.dialogs import move_form, new_item_form

    def check(_values: dict[str, str]) -> None:
        return None

    files = ["Weird-Name", "bikes", "people"]
    assert new_item_form(files, None, check).hint == "Existing files: bikes, people"
    assert move_form("bikes", "tires", files, check).hint == "Files: people"
