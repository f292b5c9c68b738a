"""No hidden character from memory text reaches the terminal, from any widget — proven on what is drawn.

The memory holds an item whose name, content and owner carry terminal
escapes (OSC title, colours, OSC 52 clipboard), NUL, C1, a bidi override,
a zero-width space and Rich markup; a journal line and a diary entry do too.
Each screen is drawn with ``App.export_screenshot()`` — the composited
output the terminal would receive — and no character of it may be hidden.
Each check also asserts the hostile text *is* on screen in visible form, so
a screen that simply failed to show it cannot pass.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from conftest import make_app, make_backend, open_item, screen_text, started, wait_for
from wikimem import MemoryStore
from wikimem_tui.common.safe import clean, from_editor, has_hidden, to_editor
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.item.conflict import ConflictScreen
from wikimem_tui.item.editor import ItemEditor

HOSTILE = ("t \x1b]0;pwned\x07 \x1b[31mred\x1b[0m \x1b]52;c;aGk=\x07 nul\x00 csi\x9b rlo\u202eevil "
           "pay\u200bpal [bold]b[/bold] [link=x]l[/link]")
NAME = "evil \x1b]0;pwned\x07 \u202ename"
# What the terminal must never receive: C0 but tab/newline, DEL, C1, bidi, zero-width, separators.
DRAWN_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064"
                          "\u2066-\u2069\ufeff]")


def hostile_memory(root: Path) -> None:
    """A hand-edited file (the library refuses such names on write, but reading is tolerant)."""
    (root / "wiki").mkdir(parents=True)
    (root / "wiki" / "evil.md").write_text(
        f"# evil\n\n## {NAME}\n\n{HOSTILE}\n\n<!-- wikimem: owner=agent \x1b[5mblink | ts=2026-07-20T09:00:00+00:00 -->\n\n"
        f"## plain\n\n{HOSTILE}\n\n## fan\n\nLinks to [[evil:{NAME}]].\n", encoding="utf-8")
    MemoryStore(root).diary.append(f"diary {HOSTILE}", date="2026-07-21", time="09:00", owner="agent")
    with (root / "journal.jsonl").open("a", encoding="utf-8") as out:
        out.write(json.dumps({"ts": "2026-07-21T09:00:00+00:00", "action": "add", "file": "evil", "item": NAME,
                              "owner": f"agent {HOSTILE}"}, ensure_ascii=False) + "\n")


@pytest.fixture
def hostile_dir(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    root.mkdir()
    hostile_memory(root)
    return root


def drawn(app) -> str:  # type: ignore[no-untyped-def]
    """The whole composited screen (toasts, footer, modal dialogs) as the terminal would get it."""
    svg = app.export_screenshot()
    assert not DRAWN_HIDDEN.search(svg), f"hidden character drawn: {sorted(set(DRAWN_HIDDEN.findall(svg)))!r}"
    return svg


def shows(app, *needles: str) -> bool:  # type: ignore[no-untyped-def]
    """Nothing hidden is drawn, and every needle is on screen (spaces ignored: labels wrap and pad)."""
    drawn(app)
    text = screen_text(app).replace(" ", "")
    return all(needle.replace(" ", "") in text for needle in needles)


# -- the codec the editor uses -------------------------------------------------------------------

ROUND_TRIP = [
    "",
    "plain text",
    "\x1b]0;pwned\x07",
    "\\x1b",  # a literal backslash-x1b typed by a user
    "\\\\x1b",
    "C:\\x41\\new",  # \x41 is not hidden: left as typed
    "\\\x1b",  # a backslash right before a real ESC
    "a\u202eb\u2066c\u2069",
    "😀\u200d😀 and pay\u200dpal",
    "\r\n line\x0bfeed\x0c\x85\u2028",
    "\U000e0041\U000e0042 tag smuggling",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_editor_escapes_round_trip_and_hide_nothing(text: str) -> None:
    escaped = to_editor(text)
    assert from_editor(escaped) == text
    assert not has_hidden(escaped)


def test_editor_escapes_round_trip_on_random_strings() -> None:
    alphabet = ["\\", "x", "u", "U", "1", "b", "0", "2", "e", "a", "\x1b", "\x07", "\x00", "\x9b", "\u202e",
                "\u200d", "\u200b", "é", "😀", "\n", "\t", "\r", " ", "["]
    rng = random.Random(20260721)
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        escaped = to_editor(text)
        assert from_editor(escaped) == text, (text, escaped)
        assert not has_hidden(escaped) and not has_hidden(clean(text)), text


def test_editor_shows_escapes_as_marked_visible_characters() -> None:
    assert to_editor("a\x1bb\u202e") == "a⟦\\x1b⟧b⟦\\u202e⟧"
    assert to_editor("\\x1b") == "\\x1b"  # literal text is shown as it is, and keeps its meaning
    assert from_editor("\\x41") == "\\x41"  # typed escapes stay text


# -- drawn screens ----------------------------------------------------------------------------------


async def editing(pilot, name: str) -> ItemEditor:  # type: ignore[no-untyped-def]
    """Open ``evil:name`` in the editor."""
    await open_item(pilot, "evil", name)
    await pilot.press("e")
    assert await wait_for(pilot, lambda: pilot.app.editing)
    return pilot.app.query_one(ItemEditor)


async def test_tree_item_view_and_window_title_draw_nothing_hidden(hostile_dir: Path) -> None:
    app = make_app(make_backend(hostile_dir))
    async with started(app, (120, 40)) as pilot:
        await open_item(pilot, "evil", NAME)
        assert await wait_for(pilot, lambda: shows(app, "␛]0;pwned␇", "[bold]b[/bold]", "\\u202eevil", "pay\\u200bpal"))
        assert not has_hidden(app.title) and not has_hidden(app.sub_title)


async def test_the_editor_shows_escapes_and_saves_the_same_characters(hostile_dir: Path) -> None:
    app = make_app(make_backend(hostile_dir))
    async with started(app, (120, 40)) as pilot:
        editor = await editing(pilot, "plain")
        assert await wait_for(pilot, lambda: shows(app, "⟦\\x1b⟧]0;pwned⟦\\x07⟧", "⟦\\x1b⟧[31mred", "hidden characters"))
        assert editor.text == HOSTILE and not editor.dirty
        editor.query_one("#editor-owner").value += " "  # touch only the owner field, then change it back
        editor.query_one("#editor-owner").value = editor.query_one("#editor-owner").value[:-1]
        editor.area.insert(" edited", editor.area.document.end)  # an edit that does not touch the escapes
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: not app.editing)
    item = MemoryStore(hostile_dir).get("evil", "plain")
    assert item is not None and item.content == HOSTILE + " edited"  # every hidden character as it was


async def test_an_item_whose_name_has_hidden_characters_is_refused_inline_not_rewritten(hostile_dir: Path) -> None:
    before = (hostile_dir / "wiki" / "evil.md").read_bytes()
    app = make_app(make_backend(hostile_dir))
    async with started(app, (120, 40)) as pilot:
        area = (await editing(pilot, NAME)).area
        area.insert(" edited", area.document.end)
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: shows(app, "not saved:"))
        assert app.editing
    assert (hostile_dir / "wiki" / "evil.md").read_bytes() == before


async def test_a_pasted_escape_enters_the_editor_as_visible_text(hostile_dir: Path) -> None:
    app = make_app(make_backend(hostile_dir))
    async with started(app, (120, 40)) as pilot:
        area = (await editing(pilot, "fan")).area
        area.insert("\x1b]0;PASTED\x07", (0, 0))  # what a paste or a key does: an Edit
        assert await wait_for(pilot, lambda: "PASTED" in area.text)
        assert shows(app, "⟦\\x1b⟧]0;PASTED⟦\\x07⟧")
        assert app.query_one(ItemEditor).text.startswith("\x1b]0;PASTED\x07Links to")


async def test_conflict_screen_and_merge_box_draw_nothing_hidden(hostile_dir: Path) -> None:
    app = make_app(make_backend(hostile_dir))
    async with started(app, (120, 40)) as pilot:
        editor = await editing(pilot, "fan")
        (hostile_dir / "wiki" / "evil.md").write_text(
            (hostile_dir / "wiki" / "evil.md").read_text(encoding="utf-8").replace("Links to", f"{HOSTILE} Links to"),
            encoding="utf-8")
        editor.area.load_text(f"mine {HOSTILE}")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        assert await wait_for(pilot, lambda: shows(app, "mine", "⟦\\x1b⟧]0;pwned⟦\\x07⟧", "␛]0;pwned␇"))


async def test_dialogs_and_toasts_draw_nothing_hidden(hostile_dir: Path) -> None:
    app = make_app(make_backend(hostile_dir))
    async with started(app, (120, 40), notifications=True) as pilot:
        await open_item(pilot, "evil", NAME)
        await pilot.press("d")  # the confirm dialog names the item
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await wait_for(pilot)
        assert shows(app, "Deleteevil:evil␛]0;pwned␇\\u202ename?")
        await pilot.press("escape")
        await pilot.press("r")  # the rename field is pre-filled with the hostile name, escaped
        assert await wait_for(pilot, lambda: shows(app, "evil⟦\\x1b⟧]0;pwned⟦\\x07⟧⟦\\u202e⟧name"))
        await pilot.press("escape")
        await wait_for(pilot)
        app.notify(f"saved evil:{NAME}")
        assert await wait_for(pilot, lambda: shows(app, "savedevil:evil␛]0;pwned␇"))


async def test_side_panes_draw_nothing_hidden(hostile_dir: Path) -> None:
    app = make_app(make_backend(hostile_dir))
    async with started(app, (120, 40)) as pilot:
        await pilot.press("slash", *"pwned")  # the query table
        assert await wait_for(pilot, lambda: shows(app, "evil:evil␛]0;pwned␇"))
        await pilot.press("escape", "j")  # the journal
        assert await wait_for(pilot, lambda: shows(app, "addagentt␛", "evil:evil␛]0;pwned␇"))
        await pilot.press("h")  # health: names that fail validation
        assert await wait_for(pilot, lambda: shows(app, "pwned"))
        await pilot.press("c")  # the calendar lists the day's entries
        assert await wait_for(pilot, lambda: shows(app, "2026-07-21"))
        await pilot.press("g")  # the go-to finder
        assert await wait_for(pilot, lambda: shows(app, "evil␛]0;pwned␇"))
        await pilot.press("escape", "ctrl+p", *"evil")  # the command palette
        assert await wait_for(pilot, lambda: shows(app, "openevil:evil␛]0;pwned␇"))


def test_the_check_catches_a_widget_that_draws_raw_text() -> None:
    """The detector itself: a plain Static given the raw text fails it."""
    import asyncio

    from rich.text import Text
    from textual.app import App
    from textual.widgets import Static

    class Raw(App[None]):
        def compose(self):  # type: ignore[no-untyped-def]
            yield Static(Text(HOSTILE))

    async def run() -> None:
        app = Raw()
        async with app.run_test(size=(80, 5)):
            with pytest.raises(AssertionError, match="hidden character drawn"):
                drawn(app)

    asyncio.run(run())
