"""The topic tree: type-to-filter, the filter box (names, then content), type-ahead, big files.

What the user sees is read from the tree's nodes and the filter's status line
(public widget APIs), never from the whole screen, where the filter box would
echo the very text a test looks for.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from textual import events
from textual.app import App
from textual.widgets import Static

from pane_harness import PaneApp
from conftest import make_app, open_item, started, wait_for
from wikimem import MemoryStore
from wikimem_tui.core.catalogue import Catalogue
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.item.item_view import ItemView
from wikimem_tui.tree.topic_tree import CHUNK, TopicTree


def labels(app: App) -> list[str]:
    """Every node the tree holds, depth first (children of collapsed nodes too)."""
    out: list[str] = []

    def walk(node) -> None:  # type: ignore[no-untyped-def]
        for child in node.children:
            out.append(str(child.label))
            walk(child)

    walk(app.query_one(TopicTree).node_tree.root)
    return out


def status(app: App) -> str:
    return str(app.query_one("#tree-filter-status", Static).render())


def filter_value(app: App) -> str:
    return app.query_one("#tree-filter").value  # type: ignore[attr-defined]


class TreeApp(PaneApp):
    """Only the tree, over a store, recording what it asks to open."""

    def __init__(self, root: Path) -> None:
        super().__init__(SimpleNamespace(store=MemoryStore(root)), TopicTree)

    def on_mount(self) -> None:
        tree = self.query_one(TopicTree)
        tree.set_catalogue(Catalogue.build(self.backend.store))
        tree.node_tree.focus()


# -- one model: commands are keys, typing goes into the filter ---------------------------


async def test_typing_a_word_in_the_tree_filters_and_fires_no_command(backend, memory_dir) -> None:
    before = (memory_dir / "wiki" / "preferences.md").read_bytes()
    async with started(make_app(backend)) as pilot:
        app = pilot.app
        await pilot.press(*"sea")  # s is no command: it starts the filter, e and a are typed into it
        assert await wait_for(pilot, lambda: app.query_one(TopicTree).filter_text == "sea")
        assert filter_value(app) == "sea"
        assert not app.editing and app.screen is app.screen_stack[0]  # no editor, no append dialog
        assert await wait_for(pilot, lambda: "no matches" in status(app))
    assert (memory_dir / "wiki" / "preferences.md").read_bytes() == before


async def burst(pilot, keys: str) -> None:  # type: ignore[no-untyped-def]
    """Keys that arrive together, as from a fast typist or a terminal paste: all queued before any is handled."""
    for key in keys:
        pilot.app.post_message(events.Key("space" if key == " " else key, key))
    await wait_for(pilot)


async def test_a_burst_of_keys_in_the_tree_all_goes_into_the_filter(backend, memory_dir) -> None:
    before = (memory_dir / "wiki" / "preferences.md").read_bytes()
    async with started(make_app(backend)) as pilot:
        app = pilot.app
        await open_item(pilot, "preferences", "coffee")  # e would edit it, a would append to the diary
        app.query_one(TopicTree).node_tree.focus()
        await wait_for(pilot)
        await burst(pilot, "sea")
        assert await wait_for(pilot, lambda: filter_value(app) == "sea")
        assert not app.editing and app.screen is app.screen_stack[0]  # no editor, no append dialog
    assert (memory_dir / "wiki" / "preferences.md").read_bytes() == before


async def test_f_then_a_burst_of_keys_all_goes_into_the_filter(backend) -> None:
    async with started(make_app(backend)) as pilot:
        app = pilot.app
        await open_item(pilot, "preferences", "coffee")
        app.query_one(TopicTree).node_tree.focus()
        await wait_for(pilot)
        await burst(pilot, "fdate flat")  # d would delete, e edit, a append, t show the tree, space toggle a node
        assert await wait_for(pilot, lambda: filter_value(app) == "date flat")
        assert not app.editing and app.screen is app.screen_stack[0]


async def test_f_puts_the_focus_in_the_filter_and_the_footer_says_so(backend) -> None:
    async with started(make_app(backend)) as pilot:
        app = pilot.app
        keys = {(k.key, k.description) for k in app.query("FooterKey")}  # type: ignore[attr-defined]
        assert ("f", "Filter") in keys
        await pilot.press("f")
        await wait_for(pilot)
        assert app.focused is app.query_one("#tree-filter")


async def test_command_keys_in_the_tree_still_run_their_command(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("g")
        assert await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "GoToScreen")
        assert filter_value(pilot.app) == ""


async def test_letters_typed_in_the_filter_box_do_not_trigger_bindings(backend) -> None:
    async with started(make_app(backend)) as pilot:
        await pilot.press("f", "d", "q", "e")
        await wait_for(pilot)
        assert pilot.app.is_running and not isinstance(pilot.app.screen, ConfirmScreen)
        assert filter_value(pilot.app) == "dqe"


# -- what the filter shows ---------------------------------------------------------------


async def test_filter_narrows_the_tree_to_matching_names(tmp_path: Path) -> None:
    from conftest import fill_memory

    fill_memory(tmp_path)
    async with TreeApp(tmp_path).run_test() as pilot:
        await pilot.press("f", *"tea")
        assert await wait_for(pilot, lambda: "1 name" in status(pilot.app))
        shown = labels(pilot.app)
        assert shown[:2] == ["preferences (1/2)", "tea"]
        assert not any(label.startswith("people") for label in shown)


async def test_filter_also_matches_content_after_a_scan(tmp_path: Path) -> None:
    from conftest import fill_memory

    fill_memory(tmp_path)
    async with TreeApp(tmp_path).run_test() as pilot:
        await pilot.press("f", *"flat white")
        assert await wait_for(pilot, lambda: "in content" in status(pilot.app))
        assert "0 names · 1 in content" == status(pilot.app)
        assert labels(pilot.app) == ["preferences (1/2)", "coffee"]


async def test_filter_finds_diary_days_by_their_entries(tmp_path: Path) -> None:
    from conftest import fill_memory

    fill_memory(tmp_path)
    async with TreeApp(tmp_path).run_test() as pilot:
        await pilot.press("f", *"planned the")
        assert await wait_for(pilot, lambda: "in content" in status(pilot.app))
        assert labels(pilot.app) == ["diary (1/2 days)", "2026-07-21 (1)"]  # shown/total, as files say


async def test_a_filter_matching_nothing_says_no_matches(tmp_path: Path) -> None:
    from conftest import fill_memory

    fill_memory(tmp_path)
    async with TreeApp(tmp_path).run_test() as pilot:
        await pilot.press("f", *"zzz")
        assert await wait_for(pilot, lambda: status(pilot.app) == "no matches for 'zzz'")
        assert labels(pilot.app) == ["no matches"]


async def test_escape_clears_the_filter_and_returns_to_the_tree(tmp_path: Path) -> None:
    from conftest import fill_memory

    fill_memory(tmp_path)
    async with TreeApp(tmp_path).run_test() as pilot:
        await pilot.press("f", *"tea")
        assert await wait_for(pilot, lambda: pilot.app.query_one(TopicTree).filter_text == "tea")
        await pilot.press("escape")
        await wait_for(pilot)
        tree = pilot.app.query_one(TopicTree)
        assert tree.filter_text == "" and filter_value(pilot.app) == ""
        assert pilot.app.focused is tree.node_tree
        assert "people (2)" in labels(pilot.app)


async def test_enter_in_the_filter_opens_the_best_match(tmp_path: Path) -> None:
    from conftest import fill_memory

    fill_memory(tmp_path)
    async with TreeApp(tmp_path).run_test() as pilot:
        await pilot.press("f", *"co", "enter")  # coffee starts with "co"; Alice's content only contains it
        assert await wait_for(pilot, lambda: pilot.app.opened != [])
        assert pilot.app.opened == [("item", "preferences", "coffee")]
        assert pilot.app.focused is pilot.app.query_one(TopicTree).node_tree


async def test_arrows_in_the_filter_move_the_tree_cursor(tmp_path: Path) -> None:
    from conftest import fill_memory

    fill_memory(tmp_path)
    async with TreeApp(tmp_path).run_test() as pilot:
        await pilot.press("f", "a")  # names with "a": Alice, tea, loud…
        assert await wait_for(pilot, lambda: pilot.app.query_one(TopicTree).filter_text == "a")
        tree = pilot.app.query_one(TopicTree).node_tree
        first = tree.cursor_node
        await pilot.press("down")
        await wait_for(pilot)
        assert tree.cursor_node is not first
        assert pilot.app.focused is pilot.app.query_one("#tree-filter")


async def test_filter_keeps_up_with_a_new_catalogue(tmp_path: Path) -> None:
    from conftest import fill_memory

    fill_memory(tmp_path)
    async with TreeApp(tmp_path).run_test() as pilot:
        await pilot.press("f", *"kayak")
        assert await wait_for(pilot, lambda: "no matches" in status(pilot.app))
        store = MemoryStore(tmp_path)
        store.add("hobbies", "paddling", "A kayak on the lake.", ts="2026-07-20T09:00:00+00:00")
        pilot.app.query_one(TopicTree).set_catalogue(Catalogue.build(store))
        assert await wait_for(pilot, lambda: "1 in content" in status(pilot.app))
        assert labels(pilot.app) == ["hobbies (1/1)", "paddling"]


# -- big files ---------------------------------------------------------------------------


def big_store(root: Path, n: int) -> None:
    wiki = root / "wiki"
    wiki.mkdir(parents=True)
    blocks = "\n".join(f"## item {i:05d}\n\ncontent {i}\n" for i in range(n))
    (wiki / "big.md").write_text("# big\n\n" + blocks, encoding="utf-8")
    (wiki / "small.md").write_text("# small\n\n## one\n\nx\n", encoding="utf-8")


async def test_expanding_a_file_renders_only_the_labels_on_screen(tmp_path: Path) -> None:
    """A 1M-item store has 5,000 file nodes: expanding one must not render all their labels to measure them.

    Textual's ``Tree`` rebuilds its lines after every change and, by default,
    renders each line's label to find the widest; at 5,000 files that made
    any expand cost about a second, whatever the file's size.
    """
    wiki = tmp_path / "wiki"
    wiki.mkdir(parents=True)
    for f in range(600):
        (wiki / f"topic_{f:04d}.md").write_text(f"# topic_{f:04d}\n\n## one\n\nx\n\n## two\n\ny\n", "utf-8")
    async with TreeApp(tmp_path).run_test(size=(80, 24)) as pilot:
        tree = pilot.app.query_one(TopicTree).node_tree
        assert await wait_for(pilot, lambda: len(tree.root.children) > 600)  # the files and the diary
        rendered = 0
        render_label = tree.render_label

        def counted(*args):  # type: ignore[no-untyped-def]
            nonlocal rendered
            rendered += 1
            return render_label(*args)

        tree.render_label = counted  # type: ignore[method-assign]
        tree.move_cursor(tree.root.children[300])
        await pilot.press("space")
        assert await wait_for(pilot, lambda: tree.root.children[300].is_expanded and tree.root.children[300].children)
        await wait_for(pilot)
        assert [str(n.label) for n in tree.root.children[300].children] == ["one", "two"]
        assert 0 < rendered <= 3 * 24, f"{rendered} labels rendered for a 24-line screen"
        # The width Textual lays the tree out with is still every line's own (icon + label).
        assert tree.get_label_width(tree.root.children[300]) == render_label(tree.root.children[300], *[tree.rich_style] * 2).cell_len


async def test_a_big_file_expands_in_the_tree_without_rendering_it_whole(tmp_path: Path) -> None:
    big_store(tmp_path, CHUNK * 25)  # 5,000 items: the item pane took 1.6 s to lay them out
    async with TreeApp(tmp_path).run_test() as pilot:
        tree = pilot.app.query_one(TopicTree).node_tree
        await pilot.press("enter")  # "big" is the first node
        assert await wait_for(pilot, lambda: tree.root.children[0].is_expanded)
        big = tree.root.children[0]
        assert len(big.children) == CHUNK + 1 and str(big.children[-1].label) == f"more… ({CHUNK * 24} left)"
        await pilot.press("enter")  # collapse
        await wait_for(pilot)
        tree.move_cursor(tree.root.children[1])
        await pilot.press("enter")  # the small file is still shown whole
        assert await wait_for(pilot, lambda: pilot.app.opened != [])
        assert pilot.app.opened == [("file", "small")]
