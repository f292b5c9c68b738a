"""The app shell: tree, item view, dialogs, bindings — what the user sees and what lands on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import MARKUP_NAME, make_app, make_backend, notices, open_item, screen_text, started, wait_for
from wikimem import MemoryStore
from wikimem_tui.common.messages import OpenItem
from wikimem_tui.common.safe import clean, safe_line, safe_text
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.common.help import HelpScreen
from wikimem_tui.item.item_view import ItemView
from wikimem_tui.tree.topic_tree import TopicTree


def journal(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "journal.jsonl").read_text(encoding="utf-8").splitlines()]


# -- safe rendering --------------------------------------------------------------------


def test_escape_and_control_characters_are_made_visible() -> None:
    assert clean("a\x1b[31mb\x07\u202e") == "a␛[31mb␇\\u202e"


def test_safe_text_keeps_markup_literal() -> None:
    assert safe_text("[bold]x[/bold]").plain == "[bold]x[/bold]"
    assert safe_line("a\nb").plain == "a␊b"


# -- tree and item view -----------------------------------------------------------------


async def test_tree_lists_recall_files_with_item_counts_and_the_diary(backend) -> None:
    async with started(make_app(backend)) as pilot:
        text = screen_text(pilot.app)
        assert "people (2)" in text
        assert "preferences (2)" in text
        assert "diary (2 days)" in text


async def test_expanding_a_file_shows_its_items(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("t", "down", "enter")  # notes, people: the second file node
        await wait_for(pilot)
        assert "张伟" in screen_text(pilot.app)


async def test_opening_an_item_shows_content_provenance_and_backlinks(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        text = screen_text(pilot.app)
        assert "Oat milk flat white" in text
        assert "owner: agent" in text and "source: conv-1" in text
        assert "Backlinks" in text and "people:Alice" in text


async def test_go_to_finds_an_item_by_fuzzy_name(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("g")
        await wait_for(pilot)
        await pilot.press(*"prcof", "enter")
        assert await wait_for(pilot, lambda: pilot.app.query_one(ItemView).current == ("preferences", "coffee"))


async def test_dangling_link_is_marked_missing(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "people", "Alice")
        assert "work:apollo  (missing)" in screen_text(pilot.app)


async def test_selecting_a_link_opens_its_target(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "people", "Alice")
        pilot.app.query_one("#item-links").focus()
        await pilot.press("enter")  # first link: preferences:coffee
        assert await wait_for(pilot, lambda: pilot.app.query_one(ItemView).current == ("preferences", "coffee"))


async def test_markup_and_escapes_in_names_and_content_show_literally(backend) -> None:
    async with started(make_app(backend), (110, 30)) as pilot:
        await pilot.press("t", "enter")  # expand "notes"
        await wait_for(pilot)
        pilot.app.post_message(OpenItem("notes", MARKUP_NAME))
        await wait_for(pilot)
        text = screen_text(pilot.app)
        assert "[bold]loud[/bold]" in text
        assert "[link=https://evil.example]click me[/link]" in text
        assert "␛[31mred␛[0m" in text


async def test_chinese_item_renders(backend) -> None:
    async with started(make_app(backend)) as pilot:
        pilot.app.post_message(OpenItem("people", "张伟"))
        await wait_for(pilot)
        assert "大学同学，喜欢喝[[preferences:tea]]。" in screen_text(pilot.app)


# -- writes ------------------------------------------------------------------------------


async def test_delete_asks_then_removes_the_item_and_journals_the_app_as_by(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("d")
        await wait_for(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await wait_for(pilot)
    assert MemoryStore(memory_dir).get("preferences", "tea") is None
    last = journal(memory_dir)[-1]
    # issue 13, finding 6: the item's owner stays the owner; the app is who acted
    assert (last["action"], last["item"], last["owner"], last["by"]) == ("remove", "tea", "agent", "tui:test")


async def test_rename_of_an_item_nobody_links_to_asks_nothing(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "notes", MARKUP_NAME)
        await pilot.press("r", "end", *"!", "enter")
        assert await wait_for(pilot, lambda: pilot.app.query_one(ItemView).current == ("notes", MARKUP_NAME + "!"))
    assert MemoryStore(memory_dir).get("notes", MARKUP_NAME + "!") is not None


async def test_delete_cancelled_writes_nothing(backend, memory_dir) -> None:
    before = (memory_dir / "wiki" / "preferences.md").read_bytes()
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("d", "n")
        await wait_for(pilot)
    assert (memory_dir / "wiki" / "preferences.md").read_bytes() == before


async def test_rename_adds_the_new_name_and_removes_the_old(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("r", "end", *" green", "enter")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.press("n")  # keep the links as they are
        assert await wait_for(pilot, lambda: pilot.app.query_one(ItemView).current == ("preferences", "tea green"))
    store = MemoryStore(memory_dir)
    assert store.get("preferences", "tea") is None
    assert store.get("preferences", "tea green").content == "Jasmine tea in the afternoon."


async def test_rename_offers_to_rewrite_links_that_point_at_the_item(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("r", "end", *" green", "enter")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: pilot.app.query_one(ItemView).current == ("preferences", "tea green"))
    assert "[[preferences:tea green]]" in MemoryStore(memory_dir).get("people", "张伟").content
    assert any("link rewrite" in (e.get("detail") or "") for e in journal(memory_dir))


async def test_move_puts_the_item_in_another_file(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("m", *"drinks", "enter")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: pilot.app.query_one(ItemView).current == ("drinks", "tea"))
    store = MemoryStore(memory_dir)
    assert store.get("preferences", "tea") is None
    assert store.get("drinks", "tea") is not None


async def test_new_item_dialog_then_editor_creates_the_item(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("n")
        await wait_for(pilot)
        await pilot.press(*"hobbies", "enter", *"chess", "enter")
        await wait_for(pilot)
        await pilot.press(*"Plays chess on Sundays.", "ctrl+s")
        await wait_for(pilot)
    item = MemoryStore(memory_dir).get("hobbies", "chess")
    assert item is not None and item.content == "Plays chess on Sundays." and item.owner == "tui:test"


async def test_new_item_dialog_rejects_a_bad_file_name_inline(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("n")
        await wait_for(pilot)
        await pilot.press(*"Bad Name", "enter", *"x", "enter")
        await wait_for(pilot)
        assert type(pilot.app.screen).__name__ == "FormScreen"
        assert "Bad Name" in str(pilot.app.screen.query_one("#form-error").render())
        assert not pilot.app.editing


async def test_read_only_refuses_writes_with_a_notice(memory_dir) -> None:
    before = (memory_dir / "wiki" / "preferences.md").read_bytes()
    app = make_app(make_backend(memory_dir, read_only=True))
    async with started(app) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("d")
        await wait_for(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        await pilot.press("e")
        await wait_for(pilot)
        assert not app.editing
        said = notices(app)
        assert "read-only (--read-only): Delete would write to the memory; nothing written" in said
        assert "read-only (--read-only): Edit would write to the memory; nothing written" in said
        assert "READ-ONLY" in screen_text(app)
        bindings = app.screen.active_bindings  # the footer shows write keys dimmed: disabled, with a reason
        assert not bindings["d"].enabled and not bindings["e"].enabled and bindings["g"].enabled
    assert (memory_dir / "wiki" / "preferences.md").read_bytes() == before


# -- keys ----------------------------------------------------------------------------------


async def test_letters_typed_in_the_filter_do_not_trigger_bindings(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.click("#tree-filter")
        await pilot.press("d", "q", "e")
        await wait_for(pilot)
        assert pilot.app.is_running
        assert not isinstance(pilot.app.screen, ConfirmScreen)
        assert pilot.app.query_one("#tree-filter").value == "dqe"


async def test_help_lists_bindings_with_their_ids(backend) -> None:
    async with started(make_app(backend), (100, 40)) as pilot:
        await pilot.press("f1")
        await wait_for(pilot)
        assert isinstance(pilot.app.screen, HelpScreen)
        ids = {binding_id for section in pilot.app.screen.sections for _, _, binding_id, _ in section.rows}
        assert {"goto", "delete", "external-editor"} <= ids  # the help scrolls: read its rows, not the screen


async def test_keymap_file_remaps_a_binding_by_id(backend, tmp_path) -> None:
    config = tmp_path / "keymap.toml"
    config.write_text('[keymap]\ngoto = "ctrl+o"\n', encoding="utf-8")
    async with started(make_app(backend, config=config)) as pilot:
        await pilot.press("ctrl+o")
        await wait_for(pilot)
        assert type(pilot.app.screen).__name__ == "GoToScreen"


async def test_pane_keys_switch_tabs(backend) -> None:
    async with started(make_app(backend)) as pilot:
        tabs = pilot.app.query_one("#panes")
        for key, tab in (("c", "tab-calendar"), ("t", "tab-calendar"), ("j", "tab-journal"), ("h", "tab-health")):
            await pilot.press(key)
            await wait_for(pilot)
            assert tabs.active == tab


async def test_shift_n_starts_a_new_recall_file(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("N")
        await wait_for(pilot)
        assert "New RecallFile" in screen_text(pilot.app)


async def test_question_mark_opens_help(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot)
        assert isinstance(pilot.app.screen, HelpScreen)


async def test_command_palette_offers_items_by_name(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(pilot)
        await pilot.press(*"coffee")
        assert await wait_for(pilot, lambda: "open preferences:coffee" in screen_text(pilot.app))
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: pilot.app.query_one(ItemView).current == ("preferences", "coffee"))


# -- command line ----------------------------------------------------------------------------


def test_help_documents_every_flag(capsys) -> None:
    import pytest

    from wikimem_tui.__main__ import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    out = capsys.readouterr().out
    assert exit_info.value.code == 0
    for flag in ("--demo", "--embed", "--embed-model", "--embed-key-env", "--jieba", "--no-jieba", "--owner", "--read-only"):
        assert flag in out


def test_missing_directory_without_a_terminal_exits_2_with_a_message(tmp_path, capsys) -> None:
    from wikimem_tui.__main__ import main

    assert main([str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "memory directory not found" in err and "nope" in err
    assert f"'wikimem init {tmp_path / 'nope'}'" in err  # the verb the CLI names too
    assert not (tmp_path / "nope").exists()


def test_a_directory_of_other_files_is_refused_like_the_cli_refuses_it(tmp_path, capsys) -> None:
    """``wikimem-tui /etc`` opened /etc as an empty memory (``n`` would write wiki/ there)."""
    from wikimem_tui.__main__ import _ensure_dir  # main() would run the app when it is not refused

    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "passwd").write_text("root:x:0:0\n", encoding="utf-8")
    assert _ensure_dir(etc) is False  # main() exits 2 on False
    err = capsys.readouterr().err
    assert "not a memory directory" in err and str(etc) in err
    assert sorted(p.name for p in etc.iterdir()) == ["passwd"]  # nothing created


def test_an_empty_directory_or_a_memory_is_opened(tmp_path) -> None:
    from wikimem_tui.__main__ import _ensure_dir

    (tmp_path / "new").mkdir()
    (tmp_path / "new" / ".git").mkdir()  # a fresh `git init`: still a new, empty memory
    (tmp_path / "old" / "diary").mkdir(parents=True)
    (tmp_path / "old" / "notes.txt").write_text("x", encoding="utf-8")
    assert _ensure_dir(tmp_path / "new") and _ensure_dir(tmp_path / "old")


def test_demo_copy_is_a_fresh_memory_outside_the_package(tmp_path) -> None:
    from wikimem_tui.core.demo import demo_source, make_demo_copy

    copy = make_demo_copy(tmp_path)
    assert MemoryStore(copy).files() == MemoryStore(demo_source()).files()
    assert demo_source() not in copy.parents


@pytest.mark.parametrize("today,last", [("2027-03-02", "2027-03-01"), ("2026-11-30", "2026-11-29")])
def test_demo_copy_moves_the_diary_so_its_last_day_is_yesterday(tmp_path, today, last) -> None:
    import datetime as dt

    from wikimem_tui.core.demo import demo_source, make_demo_copy

    bundled = MemoryStore(demo_source()).diary
    copy = MemoryStore(make_demo_copy(tmp_path, today=dt.date.fromisoformat(today))).diary
    assert copy.dates()[-1] == last
    assert len(copy.dates()) == len(bundled.dates())
    first_old, first_new = bundled.day(bundled.dates()[0]), copy.day(copy.dates()[0])
    assert [(e.time, e.content) for e in first_new] == [(e.time, e.content) for e in first_old]
    assert all(e.ts and e.ts.startswith(e.date) for d in copy.dates() for e in copy.day(d))
    journal_days = {e["date"] for e in copy.journal.entries() if e["action"] == "diary"}
    assert journal_days == set(copy.dates())


async def test_a_appends_a_diary_entry_with_the_apps_owner(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("a")
        await wait_for(pilot)
        pilot.app.screen.query_one("TextArea").load_text("Wrote the tests.")
        await pilot.press("ctrl+s")
        await wait_for(pilot)
        assert "diary (2 days)" in screen_text(pilot.app)
    diary = MemoryStore(memory_dir).diary
    [entry] = [e for d in diary.dates() for e in diary.day(d) if e.content == "Wrote the tests."]
    assert entry.owner == "tui:test"


async def test_clicking_a_link_in_the_content_follows_it(backend) -> None:
    async with started(make_app(backend), (120, 30)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        column = "Oat milk flat white, no sugar. Ask [[".index("[[") + 3
        await pilot.click("#item-body", offset=(column, 0))
        assert await wait_for(pilot, lambda: pilot.app.query_one(ItemView).current == ("people", "Alice"))


async def test_a_huge_file_loads_its_items_in_chunks(memory_dir) -> None:
    store = MemoryStore(memory_dir)
    for i in range(230):
        store.add("big", f"item {i:03d}", f"content {i}", ts="2026-07-20T09:00:00+00:00")
    async with started(make_app(make_backend(memory_dir))) as pilot:
        tree = pilot.app.query_one(TopicTree)
        big = next(n for n in tree.node_tree.root.children if n.data and n.data.file == "big")
        big.expand()
        await wait_for(pilot)
        labels = [str(c.label) for c in big.children]
        assert len(labels) == 201 and labels[-1] == "more… (30 left)"
        tree.node_tree.move_cursor(big.children[-1])
        await pilot.press("enter")
        await wait_for(pilot)
        assert len(big.children) == 230 and str(big.children[-1].label) == "item 229"


def test_keymap_is_read_from_xdg_config_home(tmp_path, monkeypatch) -> None:
    from wikimem_tui.common.config import load_keymap

    path = tmp_path / "xdg" / "wikimem-tui" / "keymap.toml"
    path.parent.mkdir(parents=True)
    path.write_text('goto = "ctrl+o"\n', encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert load_keymap().keymap == {"goto": "ctrl+o"}


def test_a_broken_keymap_file_keeps_the_defaults_and_says_why(tmp_path) -> None:
    from wikimem_tui.common.config import load_keymap

    path = tmp_path / "keymap.toml"
    path.write_text("goto = [unclosed\n", encoding="utf-8")
    loaded = load_keymap(path)
    assert loaded.keymap == {} and loaded.error is not None and str(path) in loaded.error


async def test_an_empty_memory_directory_opens_and_takes_a_first_item(tmp_path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    async with started(make_app(make_backend(root))) as pilot:
        assert "diary (0 days)" in screen_text(pilot.app)
        await pilot.press("N")
        await wait_for(pilot)
        await pilot.press(*"first", "enter", *"hello", "enter")
        await wait_for(pilot)
        pilot.app.query_one("#editor-area").load_text("The very first memory.")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: "first (1)" in screen_text(pilot.app))
    assert MemoryStore(root).get("first", "hello").content == "The very first memory."


async def test_notifications_show_escape_characters_visibly(backend) -> None:
    async with make_app(backend).run_test(size=(100, 30)) as pilot:
        pilot.app.notify("deleted x:\x1b[2Jevil", markup=False)
        await wait_for(pilot)
        assert "deleted x:␛[2Jevil" in notices(pilot.app)


async def test_escape_in_the_tree_filter_clears_it_and_returns_to_the_tree(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.click("#tree-filter")
        await pilot.press(*"tea")
        assert await wait_for(pilot, lambda: pilot.app.query_one(TopicTree).filter_text == "tea")
        await pilot.press("escape")
        await wait_for(pilot)
        tree = pilot.app.query_one(TopicTree)
        assert tree.filter_text == ""
        assert pilot.app.query_one("#tree-filter").value == ""
        assert pilot.app.focused is tree.node_tree


# -- narrow screens (80x24): the tree is a sidebar, the query table folds --------------------

LONG_NAME = "oat-milk-flat-white-before-standup"  # preferences:… is 46 columns


async def test_narrow_screen_hides_the_tree_while_another_pane_has_focus(backend) -> None:
    async with started(make_app(backend), (80, 24)) as pilot:
        assert pilot.app.query_one(TopicTree).display  # it starts with the focus
        await pilot.press("c")
        await wait_for(pilot)
        assert not pilot.app.query_one(TopicTree).display
        assert "preferences" not in screen_text(pilot.app)


async def test_t_brings_the_tree_back_on_a_narrow_screen(backend) -> None:
    async with started(make_app(backend), (80, 24)) as pilot:
        await pilot.press("h", "t")
        await wait_for(pilot)
        assert pilot.app.query_one(TopicTree).display
        assert "preferences (2)" in screen_text(pilot.app)


async def test_opening_an_item_from_the_narrow_tree_gives_it_the_whole_width(backend) -> None:
    async with started(make_app(backend), (80, 24)) as pilot:
        tree = pilot.app.query_one(TopicTree)
        node = next(n for n in tree.node_tree.root.children if n.data and n.data.file == "preferences")
        tree.node_tree.move_cursor(node)
        await pilot.press("enter", "down", "enter")  # expand preferences, open its first item
        await wait_for(pilot)
        await wait_for(pilot)
        assert not tree.display
        assert pilot.app.query_one(ItemView).size.width >= 78


async def test_narrow_query_results_show_the_whole_file_and_name(backend, memory_dir) -> None:
    MemoryStore(memory_dir).add("preferences", LONG_NAME, "Oat milk, before the standup.", owner="agent")
    async with started(make_app(backend), (80, 24)) as pilot:
        await pilot.press("slash", *"standup")
        assert await wait_for(pilot, lambda: LONG_NAME in screen_text(pilot.app))
        text = screen_text(pilot.app)
        assert f"preferences:{LONG_NAME}" in text
        assert "score" in text and "bm25" not in text


async def test_wide_screen_keeps_the_tree_and_every_result_column(backend) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await pilot.press("slash", *"coffee")
        # The results and the tree's counts come from two workers: wait for both.
        assert await wait_for(pilot, lambda: all(
            s in screen_text(pilot.app) for s in ("preferences:coffee", "people (2)")))
        text = screen_text(pilot.app)
        assert pilot.app.query_one(TopicTree).display
        assert "bm25" in text and "cos" in text


async def test_a_first_item_saved_on_a_narrow_screen_is_in_the_tree_t_brings_back(tmp_path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    async with started(make_app(make_backend(root)), (80, 24)) as pilot:
        await pilot.press("N")
        await wait_for(pilot)
        await pilot.press(*"first", "enter", *"hello", "enter")
        await wait_for(pilot)
        pilot.app.query_one("#editor-area").load_text("The very first memory.")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: not pilot.app.editing)
        await pilot.press("t")
        assert await wait_for(pilot, lambda: "first (1)" in screen_text(pilot.app))


async def test_an_empty_memory_says_where_to_start_until_something_is_in_it(tmp_path: Path) -> None:
    from wikimem_tui.common.messages import StoreChanged
    from wikimem_tui.core.changes import StoreChange

    root = tmp_path / "memory"
    root.mkdir()
    app = make_app(make_backend(root))
    async with started(app, (120, 40)) as pilot:
        assert await wait_for(pilot, lambda: "n creates its first wiki item" in screen_text(app), "the empty hint")
        MemoryStore(root).diary.append("First entry.", date="2026-07-21", time="09:00")
        app.post_message(StoreChanged(StoreChange(diary_dates=frozenset({"2026-07-21"}))))  # as the watcher would
        assert await wait_for(pilot, lambda: "Select an item in the tree" in screen_text(app), "the usual hint")


@pytest.mark.parametrize("width", [120, 121])
async def test_a_wrapped_toast_shows_its_last_line(backend, width) -> None:
    """At 120 columns the demo's start-up toast lost its last line ("quit)"): Textual sized the
    toast's holder with the rack's full width but laid the toast out one column narrower (the
    rack's scrollbar gutter), so the third wrapped line fell outside the holder."""
    from textual.widgets._toast import Toast

    message = "demo: a temporary copy in /tmp/wikimem-demo-m67u5szo/memory (removed when you quit)"
    async with started(make_app(backend), size=(width, 40), notifications=True) as pilot:
        pilot.app.notify(message, markup=False)  # lives until the safety net (make_app)
        await wait_for(pilot, lambda: bool(pilot.app.screen.query(Toast)), "the toast")
        await wait_for(pilot)
        assert "quit)" in screen_text(pilot.app)  # the wrapped message's last line
