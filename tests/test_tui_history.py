"""History (issue 8 item 7): an item's past versions from a real git, a diff, and restore through the checked writer.

Each test makes a real repository in a temporary memory directory (user
name and e-mail set in that repository's config, never globally; dates
pinned through the environment so commit ids are stable) and drives the
app with keys, asserting on the screen, on the files and on the journal.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from conftest import TS, make_app, make_backend, open_item, record_toasts, screen_text, started, wait_for
from wikimem import MemoryStore
from wikimem_tui.core.git_history import GitUnavailable, item_history
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.item.history import HistoryScreen
from wikimem_tui.item.item_view import ItemView

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git (.ci/run installs it)")

V1 = "Oat milk flat white, no sugar. Ask [[people:Alice]] for the place."


def git(root: Path, *args: str, date: str = "2026-07-20T09:00:00+00:00") -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True)
    return done.stdout


def repo(root: Path) -> None:
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test Curator")
    git(root, "config", "user.email", "curator@example.invalid")
    git(root, "config", "commit.gpgsign", "false")


def commit(root: Path, message: str, date: str) -> None:
    git(root, "add", "wiki")  # the journal holds wall-clock times: left out so commit ids are stable
    git(root, "commit", "-q", "-m", message, date=date)


def edit(root: Path, file: str, name: str, content: str) -> None:
    MemoryStore(root).add(file, name, content, owner="agent", ts=TS)


def history_repo(root: Path) -> None:
    """coffee: V1 (committed), unchanged through a commit of another item, then V2 committed, V3 on disk only."""
    repo(root)
    commit(root, "first memory", "2026-07-20T09:00:00+00:00")
    edit(root, "preferences", "tea", "Green tea.")
    commit(root, "tea changed", "2026-07-20T10:00:00+00:00")
    edit(root, "preferences", "coffee", "Black coffee now.")
    commit(root, "coffee changed [bold]loud[/bold] \x1b[31mred", "2026-07-20T11:00:00+00:00")
    edit(root, "preferences", "coffee", "Espresso, uncommitted.")


async def history_screen(pilot: Any) -> HistoryScreen:
    await pilot.press("H")
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, HistoryScreen) and pilot.app.screen.loaded)
    await wait_for(pilot)
    return pilot.app.screen


def journal(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / "journal.jsonl").read_text(encoding="utf-8").splitlines()]


# -- the library-free part: git and the block parser ---------------------------------------------------


def test_versions_come_newest_first_with_identical_ones_collapsed(memory_dir: Path) -> None:
    history_repo(memory_dir)
    history = item_history(memory_dir, "preferences", "coffee")
    assert [v.item.content for v in history.versions] == ["Black coffee now.", V1]
    assert [v.subject for v in history.versions] == ["coffee changed [bold]loud[/bold] \x1b[31mred", "first memory"]
    assert [v.commits for v in history.versions] == [1, 2]  # V1 survived the tea commit unchanged
    assert history.versions[1].item.owner == "agent" and history.versions[1].author == "Test Curator"
    assert history.commits_read == 3 and not history.truncated


def test_a_renamed_recallfile_is_followed(memory_dir: Path) -> None:
    repo(memory_dir)
    commit(memory_dir, "first", "2026-07-20T09:00:00+00:00")
    git(memory_dir, "mv", "wiki/preferences.md", "wiki/likes.md")
    commit(memory_dir, "renamed the file", "2026-07-20T10:00:00+00:00")
    edit(memory_dir, "likes", "coffee", "Cortado.")
    commit(memory_dir, "cortado", "2026-07-20T11:00:00+00:00")
    history = item_history(memory_dir, "likes", "coffee")
    assert [v.item.content for v in history.versions] == ["Cortado.", V1]
    assert history.versions[1].path == "wiki/preferences.md" and history.versions[1].item.file == "likes"


def test_a_memory_directory_inside_a_bigger_repository_uses_paths_relative_to_its_top(tmp_path: Path) -> None:
    from conftest import fill_memory

    top = tmp_path / "project"
    root = top / "agent" / "memory"
    root.mkdir(parents=True)
    fill_memory(root)
    repo(top)
    git(top, "add", "agent/memory/wiki")
    git(top, "commit", "-q", "-m", "memory")
    history = item_history(root, "preferences", "coffee")
    assert history.path == "agent/memory/wiki/preferences.md" and [v.item.content for v in history.versions] == [V1]


def test_without_a_repository_the_error_says_how_to_enable_history(memory_dir: Path) -> None:
    with pytest.raises(GitUnavailable) as info:
        item_history(memory_dir, "preferences", "coffee")
    assert "not inside a git work tree" in str(info.value)
    assert "git init" in info.value.hint and str(memory_dir) in info.value.hint


# -- in the app -------------------------------------------------------------------------------------------


async def test_H_lists_versions_shows_the_diff_and_restores_one_checked_and_undoable(memory_dir: Path) -> None:
    history_repo(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        said = record_toasts(pilot.app)
        await open_item(pilot, "preferences", "coffee")
        screen = await history_screen(pilot)
        text = screen_text(pilot.app)
        status = str(screen.query_one("#history-status", Static).render())
        assert "2 versions in 3 commits" in status and "the current text is not committed yet" in status
        assert "(unchanged through 1 later commit)" in text
        assert "[bold]loud[/bold] ␛[31mred" in text  # a commit subject is untrusted text: shown literally
        diff = str(screen.query_one("#history-diff", Static).render())
        assert "-Black coffee now." in diff and "+Espresso, uncommitted." in diff
        await pilot.press("down")  # the oldest version
        assert await wait_for(pilot, lambda: f"-{V1}" in str(screen.query_one("#history-diff", Static).render()))
        await pilot.press("r")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot)
        view = pilot.app.query_one(ItemView)
        assert await wait_for(pilot, lambda: not isinstance(pilot.app.screen, (HistoryScreen, ConfirmScreen)))
        await wait_for(pilot)
        assert MemoryStore(memory_dir).get("preferences", "coffee").content == V1
        assert await wait_for(pilot, lambda: view.current == ("preferences", "coffee") and V1 in screen_text(pilot.app))
        last = journal(memory_dir)[-1]
        assert last["by"] == "tui:test" and last["detail"].startswith(f"restored version {screen.versions[1].short}")
        assert any(s.startswith("restored preferences:coffee") for s in said)
        view.focus()
        await pilot.press("ctrl+z")
        assert await wait_for(
            pilot, lambda: MemoryStore(memory_dir).get("preferences", "coffee").content == "Espresso, uncommitted.")


async def test_restore_refuses_when_the_item_changed_after_the_history_was_shown(memory_dir: Path) -> None:
    history_repo(memory_dir)
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        screen = await history_screen(pilot)
        edit(memory_dir, "preferences", "coffee", "Ristretto, by the agent.")  # meanwhile
        await pilot.press("r")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot)
        error = screen.query_one("#history-error", Static)
        assert await wait_for(pilot, lambda: "changed on disk since it was shown" in str(error.render()))
        assert MemoryStore(memory_dir).get("preferences", "coffee").content == "Ristretto, by the agent."
        assert await wait_for(pilot, lambda: screen.loaded and screen.current is not None
                              and screen.current.content == "Ristretto, by the agent.")


async def test_a_deleted_item_is_brought_back_from_its_history(memory_dir: Path) -> None:
    repo(memory_dir)
    commit(memory_dir, "first", "2026-07-20T09:00:00+00:00")
    MemoryStore(memory_dir).remove("preferences", "tea")
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "preferences", "tea")
        assert "does not exist" in screen_text(pilot.app)
        screen = await history_screen(pilot)
        assert "The item does not exist now" in str(screen.query_one("#history-diff", Static).render())
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: MemoryStore(memory_dir).get("preferences", "tea") is not None)
    item = MemoryStore(memory_dir).get("preferences", "tea")
    assert (item.content, item.owner) == ("Jasmine tea in the afternoon.", "agent")


async def test_without_git_history_says_how_to_enable_it(memory_dir: Path) -> None:
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        screen = await history_screen(pilot)
        status = str(screen.query_one("#history-status", Static).render())
        hint = str(screen.query_one("#history-diff", Static).render())
    assert "is not inside a git work tree" in status and "git init" in hint


async def test_restoring_is_refused_read_only(memory_dir: Path) -> None:
    history_repo(memory_dir)
    async with started(make_app(make_backend(memory_dir, read_only=True)), (120, 40)) as pilot:
        await open_item(pilot, "preferences", "coffee")
        screen = await history_screen(pilot)  # reading the history is fine read-only
        await pilot.press("r")
        await wait_for(pilot)
        error = screen.query_one("#history-error", Static)
        assert await wait_for(pilot, lambda: "read-only" in str(error.render()))
    assert MemoryStore(memory_dir).get("preferences", "coffee").content == "Espresso, uncommitted."


def test_the_diff_highlights_the_words_that_changed_in_a_line() -> None:
    from wikimem import RecallItem
    from wikimem_tui.core.git_history import Version
    from wikimem_tui.item.history import diff_text

    version = Version("a" * 40, "x", "2026-07-20T09:00:00+00:00", "s", RecallItem("f", "n", "Tea with milk, no sugar."),
                      "wiki/f.md")
    text = diff_text(version, RecallItem("f", "n", "Tea with lemon, no sugar."))
    marked = {text.plain[span.start:span.end] for span in text.spans if "reverse" in str(span.style)}
    assert marked == {"milk", "lemon"}
