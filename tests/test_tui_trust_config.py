"""Rebinding a key to what Textual's own binding on that key already does is no clash.

``quit = "ctrl+q"`` was refused as shadowing Textual's ctrl+q -- which quits.
Two bindings on one key that run the same action cannot surprise anyone.
"""

from __future__ import annotations

from pathlib import Path

from conftest import make_app, started, wait_for
from wikimem_tui.common.config import check_keymap, load_keymap


def test_quit_on_ctrl_q_is_accepted() -> None:
    good, problems = check_keymap({"quit": "ctrl+q"})
    assert good == {"quit": "ctrl+q"} and problems == []


def test_a_key_that_runs_another_action_is_still_refused() -> None:
    good, problems = check_keymap({"quit": "e"})
    assert good == {} and "would also be 'Edit'" in problems[0]


async def test_the_app_takes_quit_on_ctrl_q_without_a_warning(backend, tmp_path: Path) -> None:
    config = tmp_path / "keymap.toml"
    config.write_text('[keymap]\nquit = "ctrl+q"\n', encoding="utf-8")
    assert load_keymap(config).error is None
    async with started(make_app(backend, config=config)) as pilot:
        assert pilot.app.keymap_config.keymap == {"quit": "ctrl+q"}
        await pilot.press("q")  # q is no longer quit…
        await wait_for(pilot)
        assert pilot.app.is_running
        await pilot.press("ctrl+q")  # …ctrl+q is
        assert await wait_for(pilot, lambda: not pilot.app.is_running)
