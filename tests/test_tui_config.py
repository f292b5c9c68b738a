"""The keymap file: problems are reported (start-up notification, --check-config), never silently applied."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import make_app, ready, wait_for
from wikimem_tui.common.config import check_keymap, known_bindings, load_keymap


def keymap_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "keymap.toml"
    path.write_text("[keymap]\n" + text, encoding="utf-8")
    return path


def test_every_binding_the_app_declares_is_known_by_id() -> None:
    ids = {b.binding_id for b in known_bindings()}
    assert {"goto", "help", "tree.filter", "calendar.today", "query.copy", "journal.end", "conflict.keep"} <= ids


def test_a_clean_keymap_is_applied_whole(tmp_path: Path) -> None:
    loaded = load_keymap(keymap_file(tmp_path, 'goto = "ctrl+o"\nfocus-query = "slash,ctrl+f"\n'))
    assert loaded.keymap == {"goto": "ctrl+o", "focus-query": "slash,ctrl+f"} and loaded.problems == []


def test_an_unknown_id_is_reported_with_a_suggestion_and_left_out(tmp_path: Path) -> None:
    loaded = load_keymap(keymap_file(tmp_path, 'gotoo = "ctrl+o"\nhelp = "f2"\n'))
    assert loaded.keymap == {"help": "f2"}
    assert loaded.problems == ["unknown binding id 'gotoo' (did you mean 'goto'?)"]


def test_a_key_taken_by_another_global_binding_is_not_applied(tmp_path: Path) -> None:
    loaded = load_keymap(keymap_file(tmp_path, 'goto = "d"\n'))
    assert loaded.keymap == {}
    [problem] = loaded.problems
    assert problem.startswith("goto = 'd' not applied") and "'Delete' (delete)" in problem


def test_a_pane_key_that_would_shadow_a_global_one_is_not_applied(tmp_path: Path) -> None:
    loaded = load_keymap(keymap_file(tmp_path, 'calendar.today = "g"\n'))
    assert loaded.keymap == {} and "'Go to' (goto)" in loaded.problems[0]


def test_moving_a_binding_away_frees_its_key_for_another(tmp_path: Path) -> None:
    good, problems = check_keymap({"goto": "d", "delete": "ctrl+d"})
    assert problems == [] and good == {"goto": "d", "delete": "ctrl+d"}


def test_a_key_name_textual_cannot_produce_is_reported(tmp_path: Path) -> None:
    loaded = load_keymap(keymap_file(tmp_path, 'goto = "ctrl+oo"\nhelp = "?"\n'))
    assert loaded.keymap == {"help": "?"}
    assert loaded.problems == ["goto = 'ctrl+oo': not a key name: ctrl+oo"]


async def test_problems_are_a_notification_at_start_up_and_the_defaults_stay(backend, tmp_path: Path) -> None:
    config = keymap_file(tmp_path, 'gotoo = "ctrl+o"\ngoto = "d"\n')
    app = make_app(backend, config=config)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await ready(pilot)
        assert await wait_for(pilot, lambda: len(app.screen.query("Toast")) > 0)
        [toast] = [str(t.render()) for t in app.screen.query("Toast")]
        assert "unknown binding id 'gotoo'" in toast and "goto = 'd' not applied" in toast
        assert app.screen.active_bindings["d"].binding.id == "delete"
        assert app.screen.active_bindings["g"].binding.id == "goto"


@pytest.mark.parametrize(
    "text,code,expected",
    [
        ('goto = "ctrl+o"\n', 0, "ok (1 binding remapped)"),
        ('gotoo = "ctrl+o"\n', 1, "unknown binding id 'gotoo'"),
        ('edit = "d"\n', 1, "edit = 'd' not applied"),
        ("goto = [unclosed\n", 1, "1 problem"),
    ],
)
def test_check_config_prints_the_problems_and_exits_non_zero(tmp_path, capsys, text, code, expected) -> None:
    from wikimem_tui.__main__ import main

    assert main(["--check-config", "--config", str(keymap_file(tmp_path, text))]) == code
    assert expected in capsys.readouterr().out


def test_check_config_without_a_file_is_clean_unless_one_was_named(tmp_path, capsys) -> None:
    from wikimem_tui.__main__ import main

    assert main(["--check-config"]) == 0
    assert "no file (the default keys are in use)" in capsys.readouterr().out
    assert main(["--check-config", "--config", str(tmp_path / "nope.toml")]) == 1
    assert "no such file" in capsys.readouterr().out


def test_a_refused_move_puts_its_key_back_and_a_binding_taking_that_key_is_refused_too() -> None:
    # edit -> x is refused (x is the queue's and the why box's), so edit stays on e, which quit now wants.
    good, problems = check_keymap({"edit": "x", "quit": "e"})
    assert good == {}
    assert any(p.startswith("edit = 'x' not applied") for p in problems)
    assert any(p.startswith("quit = 'e' not applied") and "'Edit' (edit)" in p for p in problems)
