"""Only escapes the editor put there turn back into characters; what the user types stays text.

The editor shows a hidden character (ESC, a bidi override…) as a marked
escape, ``⟦\\x1b⟧``, and saves it back as that character. Text the user
types -- ``\\x1b``, ``\\u202e``, even the marked form itself -- is saved as
the characters typed. Both directions are checked on the bytes on disk.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from textual import events

from conftest import make_app, make_backend, open_item, started, wait_for
from wikimem import MemoryStore
from wikimem_tui.common.safe import from_editor, has_hidden, to_editor
from wikimem_tui.item.editor import ItemEditor
from wikimem_tui.common.safe_inputs import SafeInput, SafeTextArea
from textual.widgets.text_area import Selection

HIDDEN = "bell\x07 esc\x1b[31m rlo\u202eevil zw\u200bsp"
KEY_NAMES = {"\\": "backslash", " ": "space",
             "⟦": "mathematical_left_white_square_bracket", "⟧": "mathematical_right_white_square_bracket"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A hand-written file: one item with hidden characters, one plain."""
    memory = tmp_path / "memory"
    (memory / "wiki").mkdir(parents=True)
    (memory / "wiki" / "notes.md").write_text(
        f"# notes\n\n## hidden\n\n{HIDDEN}\n\n## plain\n\nNothing hidden here.\n", encoding="utf-8")
    return memory


def on_disk(root: Path) -> bytes:
    return (root / "wiki" / "notes.md").read_bytes()


async def edit(pilot: Any, name: str) -> ItemEditor:
    await open_item(pilot, "notes", name)
    await pilot.press("e")
    assert await wait_for(pilot, lambda: pilot.app.editing)
    return pilot.app.query_one(ItemEditor)


async def type_at_end(pilot: Any, area: SafeTextArea, text: str) -> None:
    """Type ``text`` key by key at the end of the draft, as a user would."""
    area.focus()
    area.move_cursor(area.document.end)
    await wait_for(pilot)  # the focus is there
    await typed(pilot, text)


async def typed(pilot: Any, text: str) -> None:
    """One key event per character, each handled before the next: a typist, not a burst.

    Each event carries its character (Pilot's press cannot name ``⟦``).
    """
    for char in text:
        pilot.app.post_message(events.Key(KEY_NAMES.get(char, char), char))
        await wait_for(pilot)


async def save(pilot: Any) -> None:
    await pilot.press("ctrl+s")
    assert await wait_for(pilot, lambda: not pilot.app.editing)


async def test_hidden_characters_round_trip_byte_for_byte_through_open_and_save(root: Path) -> None:
    before = on_disk(root)
    async with started(make_app(make_backend(root)), (120, 40)) as pilot:
        editor = await edit(pilot, "hidden")
        assert "⟦\\x1b⟧[31m" in editor.area.text and "⟦\\u202e⟧" in editor.area.text
        await type_at_end(pilot, editor.area, " ok")
        await save(pilot)
    after = on_disk(root)
    assert f"{HIDDEN} ok".encode() in after  # every hidden byte as it was, the typed text after it
    assert after.count(b"\x1b") == before.count(b"\x1b") and after.count("\u202e".encode()) == 1


@pytest.mark.parametrize("typed", ["\\x1b", "\\u202e", "\\x07\\U000e0041", "⟦\\x1b⟧"])
async def test_an_escape_typed_by_the_user_is_saved_as_the_characters_typed(root: Path, typed: str) -> None:
    async with started(make_app(make_backend(root)), (120, 40)) as pilot:
        editor = await edit(pilot, "plain")
        await type_at_end(pilot, editor.area, f" {typed}")
        assert await wait_for(pilot, lambda: editor.text.endswith(typed))
        await save(pilot)
    after = on_disk(root)
    assert f"Nothing hidden here. {typed}\n".encode() in after
    assert not has_hidden(after.decode().partition("## plain")[2])


async def test_an_edit_inside_a_marked_escape_cannot_turn_it_into_another_character(root: Path) -> None:
    """Selecting the ``1b`` of ``⟦\\x1b⟧`` and typing ``07`` must not save a BEL: the escape goes as a whole."""
    async with started(make_app(make_backend(root)), (120, 40)) as pilot:
        editor = await edit(pilot, "hidden")
        area = editor.area
        line = area.document.get_line(0)
        start = line.index("⟦\\x1b⟧") + len("⟦\\x")
        area.selection = Selection((0, start), (0, start + 2))
        await pilot.press("0", "7")
        await wait_for(pilot)
        assert "\x07" not in editor.text.replace("bell\x07", "")  # only the BEL the item had
        assert "\x1b" not in editor.text  # the ESC went with its whole escape
        await pilot.press("backspace")  # deleting the closing bracket of an escape deletes the escape
        await save(pilot)
    after = on_disk(root).decode()
    assert after.count("\x07") == 1 and "\x1b" not in after


async def test_a_typed_escape_in_a_one_line_field_stays_text(root: Path) -> None:
    async with started(make_app(make_backend(root)), (120, 40)) as pilot:
        editor = await edit(pilot, "plain")
        owner = editor.query_one("#editor-owner", SafeInput)
        owner.focus()
        owner.cursor_position = len(owner.value)
        await wait_for(pilot)  # the focus is there
        await typed(pilot, " \\x1b")
        assert await wait_for(pilot, lambda: editor.owner.endswith("\\x1b"))
        await save(pilot)
    item = MemoryStore(root).get("notes", "plain")
    assert item is not None and item.owner == "\\x1b"  # the four characters typed


def test_the_editor_form_is_reversible_and_holds_nothing_hidden() -> None:
    alphabet = ["\\", "x", "u", "U", "1", "b", "0", "2", "e", "a", "\x1b", "\x07", "\x00", "\x9b", "\u202e",
                "\u200d", "\u200b", "é", "😀", "\n", "\t", " ", "[", "⟦", "⟧"]
    rng = random.Random(20260722)
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        shown = to_editor(text)
        assert from_editor(shown) == text, (text, shown)
        assert not has_hidden(shown)


def test_only_marked_escapes_decode() -> None:
    assert to_editor("a\x1bb\u202e") == "a⟦\\x1b⟧b⟦\\u202e⟧"
    assert to_editor("\\x1b") == "\\x1b"  # literal text is shown as it is: no doubling to read
    assert from_editor("\\x1b \\u202e") == "\\x1b \\u202e"  # typed escapes are text
    assert from_editor("⟦\\x41⟧") == "⟦\\x41⟧"  # a marked ordinary character was never the editor's
