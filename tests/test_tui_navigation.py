"""Everyday keys (issue 9): history, copy, dialogs that keep what you typed, disabled actions that say why, warm-up."""

from __future__ import annotations

import threading

from conftest import SAFETY_NET, make_app, notices, open_item, screen_text, started, wait_for
from wikimem import MemoryStore
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.common.messages import StoreChanged
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.item.conflict import ConflictScreen
from wikimem_tui.common.dialogs import FormScreen
from wikimem_tui.item.editor import ItemEditor
from wikimem_tui.item.item_view import ItemView


def current(pilot):  # type: ignore[no-untyped-def]
    return pilot.app.query_one(ItemView).current


# -- back / forward ----------------------------------------------------------------------------


async def test_alt_left_and_alt_right_walk_the_items_opened(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        await open_item(pilot, "people", "Alice")
        await open_item(pilot, "preferences", "tea")
        await pilot.press("alt+left")
        assert await wait_for(pilot, lambda: current(pilot) == ("people", "Alice"))
        await pilot.press("alt+left")
        assert await wait_for(pilot, lambda: current(pilot) == ("preferences", "coffee"))
        await pilot.press("alt+right")
        assert await wait_for(pilot, lambda: current(pilot) == ("people", "Alice"))
        await open_item(pilot, "people", "张伟")  # a new branch drops what was ahead
        await pilot.press("alt+right")
        await wait_for(pilot)
        assert current(pilot) == ("people", "张伟")
        assert "nothing to go forward to" in notices(pilot.app)[-1]


async def test_backspace_in_the_item_view_goes_back(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        await open_item(pilot, "preferences", "tea")
        pilot.app.query_one(ItemView).focus()
        await pilot.press("backspace")
        assert await wait_for(pilot, lambda: current(pilot) == ("preferences", "coffee"))


async def test_following_a_link_then_going_back_returns(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "people", "Alice")
        pilot.app.query_one("#item-links").focus()
        await pilot.press("enter")  # preferences:coffee
        assert await wait_for(pilot, lambda: current(pilot) == ("preferences", "coffee"))
        await pilot.press("alt+left")
        assert await wait_for(pilot, lambda: current(pilot) == ("people", "Alice"))


# -- copy --------------------------------------------------------------------------------------------


async def test_y_copies_the_link_and_shift_y_the_markdown_block(backend) -> None:
    copied: list[str] = []
    app = make_app(backend)
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with started(app) as pilot:
        await open_item(pilot, "preferences", "coffee")
        await pilot.press("y", "Y")
        await wait_for(pilot)
    assert copied == ["[[preferences:coffee]]",
                      "## coffee\n\nOat milk flat white, no sugar. Ask [[people:Alice]] for the place.\n"]


# -- dialogs keep what you typed ----------------------------------------------------------------------


async def test_an_existing_address_keeps_the_new_item_dialog_open_with_the_input(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("n")
        await wait_for(pilot)
        await pilot.press("ctrl+a", *"preferences", "enter", *"tea", "enter")
        await wait_for(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, FormScreen)
        assert "preferences:tea already exists" in str(screen.query_one("#form-error").render())
        assert screen.query_one("#field-name").value == "tea"
        assert not pilot.app.editing


async def ask_to_discard(pilot) -> None:  # type: ignore[no-untyped-def]
    """Type a file into the new-item dialog, then escape: the discard question is on screen."""
    await pilot.press("n")
    await wait_for(pilot)
    await pilot.press(*"hobbies", "escape")
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
    await wait_for(pilot)


async def test_escape_with_typed_text_asks_before_discarding_it(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await ask_to_discard(pilot)
        assert "Discard what you typed?" in screen_text(pilot.app)
        await pilot.press("n")  # keep editing
        await wait_for(pilot)
        assert isinstance(pilot.app.screen, FormScreen)
        assert pilot.app.screen.query_one("#field-file").value == "hobbies"
        await pilot.press("escape", "y")
        await wait_for(pilot)
        assert not isinstance(pilot.app.screen, (FormScreen, ConfirmScreen))


async def test_the_discard_question_says_what_each_key_does_and_refuses_a_stray_key(backend) -> None:
    """Escape twice (the key that asked) keeps the draft and says so; a letter is no silent "keep editing"."""
    async with started(make_app(backend)) as pilot:
        await ask_to_discard(pilot)
        text = screen_text(pilot.app)
        assert "y: discard and close · n or escape: keep editing" in text
        assert "Keep editing (n, esc)" in text
        await pilot.press("x")  # answers nothing: the question stays, and says why
        await wait_for(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert "'x' answers nothing: y: discard and close" in screen_text(pilot.app)
        await pilot.press("escape")  # as the line said: back to editing, the text kept
        await wait_for(pilot)
        assert isinstance(pilot.app.screen, FormScreen)
        assert pilot.app.screen.query_one("#field-file").value == "hobbies"


async def test_escape_in_an_untouched_dialog_just_closes_it(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("r")  # pre-filled with the name: nothing typed yet
        await wait_for(pilot)
        await pilot.press("escape")
        await wait_for(pilot)
        assert pilot.app.screen is pilot.app.screen_stack[0]


async def test_the_new_file_dialog_shows_the_allowed_characters(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("N")
        await wait_for(pilot)
        assert "RecallFile name ([a-z0-9_-])" in screen_text(pilot.app)


async def test_escape_in_the_diary_dialog_with_an_entry_asks_first(backend, memory_dir) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("a")
        await wait_for(pilot)
        await pilot.press(*"half a thought", "escape")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_for(pilot)
        assert pilot.app.screen.query_one("TextArea").text == "half a thought"


# -- disabled actions say why ---------------------------------------------------------------------------


async def test_a_disabled_key_says_why(backend, memory_dir) -> None:
    before = (memory_dir / "wiki" / "preferences.md").read_bytes()
    async with started(make_app(backend)) as pilot:
        assert not pilot.app.screen.active_bindings["d"].enabled  # dimmed in the footer
        await pilot.press("d")
        await wait_for(pilot)
        assert "open an item first (t tree, g go to)" in notices(pilot.app)
        assert not isinstance(pilot.app.screen, ConfirmScreen)
    assert (memory_dir / "wiki" / "preferences.md").read_bytes() == before


async def test_the_palette_lists_a_disabled_action_with_its_reason(backend) -> None:
    async with started(make_app(backend), (120, 40)) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(pilot)
        await pilot.press(*"undo")
        assert await wait_for(pilot, lambda: "unavailable now: nothing to undo" in screen_text(pilot.app))
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: any(n.startswith("nothing to undo") for n in notices(pilot.app)))


# -- toasts stay off the conflict screen's buttons --------------------------------------------------------


async def test_toasts_never_cover_the_conflict_screens_buttons(backend, memory_dir) -> None:
    from textual.widgets import Button
    from textual.widgets._toast import Toast

    async with started(make_app(backend), (80, 24), notifications=True) as pilot:
        await open_item(pilot, "preferences", "tea")
        await pilot.press("e")
        await wait_for(pilot)
        MemoryStore(memory_dir).add("preferences", "tea", "Disk version.", owner="agent")
        pilot.app.query_one(ItemEditor).area.load_text("Mine.")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConflictScreen))
        await wait_for(pilot)
        pilot.app.notify("a long notification " * 6)
        await wait_for(pilot)
        screen = pilot.app.screen
        buttons = [b.region for b in screen.query(Button)]
        toasts = [t.region for t in screen.query(Toast) if t.region.area]
        assert buttons and not any(t.overlaps(b) for t in toasts for b in buttons)
        await pilot.press("escape")  # back to the editor: the toast shows there
        assert await wait_for(pilot, lambda: "a long notification" in screen_text(pilot.app))


# -- warm-up never blocks a query ---------------------------------------------------------------------------


async def test_a_query_is_answered_while_the_warm_up_runs_and_a_refresh_does_not_cancel_it(backend) -> None:
    warming, release, refreshed = threading.Event(), threading.Event(), threading.Event()
    refresh = backend.index.refresh_files

    def slow_warm(progress=None, *, should_stop=None):  # type: ignore[no-untyped-def]
        warming.set()
        assert release.wait(SAFETY_NET), "the test never released the warm-up"

    def refresh_files(files, **options):  # type: ignore[no-untyped-def]
        result = refresh(files, **options)
        refreshed.set()
        return result

    backend.index.warm = slow_warm
    backend.index.refresh_files = refresh_files
    app = make_app(backend)
    try:
        async with started(app, (120, 40)) as pilot:
            assert await wait_for(pilot, warming.is_set)
            await pilot.press("slash", *"coffee")
            assert await wait_for(pilot, lambda: "preferences:coffee" in screen_text(app))
            app.post_message(StoreChanged(StoreChange(frozenset({"preferences"}))))  # another process wrote
            assert await wait_for(pilot, refreshed.is_set)
            assert any(w.group == "warm" and w.is_running for w in app.workers)
            release.set()
    finally:
        release.set()


async def test_after_a_dialog_the_focus_is_on_the_item_opened_from_another_pane(backend) -> None:
    """Queue pane focused, go to an item, audit it, close the audit: keys act on the item again.

    Found in tmux at 80x24: the focus went back to a widget of the hidden
    queue tab, Textual fell back to the first focusable widget (the tree's
    filter box), and the next key (``H``) was typed into the filter.
    """
    from wikimem_tui.item.audit import AuditScreen
    from wikimem_tui.common.goto import GoToScreen
    from wikimem_tui.item.history import HistoryScreen
    from wikimem_tui.queue.promote import PromoteScreen
    from wikimem_tui.item.item_area import ItemArea

    app = make_app(backend)
    async with started(app, (80, 24)) as pilot:
        await pilot.press("R")
        assert await wait_for(pilot, lambda: in_queue(app))
        await pilot.press("p")  # a promotion started, then abandoned
        assert await wait_for(pilot, lambda: isinstance(app.screen, PromoteScreen))
        await pilot.press("tab", "escape")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, PromoteScreen))
        await pilot.press("g")
        assert await wait_for(pilot, lambda: isinstance(app.screen, GoToScreen))
        await pilot.press(*"coffee", "enter")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, GoToScreen) and app.item_area.view.item is not None)
        # The item's keys act once the focus has landed on it (moved after the go-to dialog closes):
        # pressed before, "A" went to the widget focused meanwhile (seen once under load).
        assert await wait_for(pilot, lambda: app.focused is not None and app.item_area in app.focused.ancestors_with_self)
        await pilot.press("A")
        assert await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, AuditScreen))
        await wait_for(pilot)
        area = app.query_one(ItemArea)
        assert await wait_for(pilot, lambda: app.focused is not None and area in app.focused.ancestors_with_self)
        await pilot.press("H")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))


def in_queue(app) -> bool:  # type: ignore[no-untyped-def]
    return app.focused is not None and "queue" in str(app.focused.ancestors_with_self)


async def test_opening_an_item_from_another_pane_moves_the_focus_with_the_tab(backend) -> None:
    """The focus is on the item in the same step as the tab switch, with no await in between (``common/panes``).

    Moved a queue round later, the hidden queue's rows heard first that they
    were hidden and handed the focus to their neighbour in that hidden pane,
    whose focus then switched the tab back to the queue: after the go-to
    dialog, about one run in six ended on the queue with the item's keys dead.
    """
    from textual.widgets import TabbedContent

    app = make_app(backend)
    async with started(app, (80, 24)) as pilot:
        await pilot.press("R")
        assert await wait_for(pilot, lambda: in_queue(app))
        app.item_area.open_item("preferences", "coffee")
        assert app.screen.focused is app.item_area.view
        await wait_for(pilot)
        assert app.query_one("#panes", TabbedContent).active == "tab-item"
        assert app.focused is app.item_area.view
        await pilot.press("slash")  # the query pane, then edit the item shown: the editor takes the focus at once
        assert await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "query-input")
        app.item_area.edit()
        assert app.screen.focused is app.item_area.editor.area
        await wait_for(pilot)
        assert app.query_one("#panes", TabbedContent).active == "tab-item"
        assert app.focused is app.item_area.editor.area


async def test_a_pane_follows_the_focus_only_while_the_focus_is_there(backend) -> None:
    """A pane's "something in me was focused" that arrives once the focus has moved on switches nothing."""
    from textual.widgets import TabbedContent, TabPane

    app = make_app(backend)
    async with started(app, (80, 24)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        app.action_pane("item")
        await wait_for(pilot)
        queue = app.query_one("#tab-queue", TabPane)
        queue.post_message(TabPane.Focused(queue))  # what a queue widget focused a moment ago still says
        await wait_for(pilot)
        tabs = app.query_one("#panes", TabbedContent)
        assert tabs.active == "tab-item"
        assert app.focused is app.item_area.view
        app.query_one("#queue-list").focus()  # a widget really focused in another pane still shows it (Textual's rule)
        assert await wait_for(pilot, lambda: tabs.active == "tab-queue")
        assert in_queue(app)
