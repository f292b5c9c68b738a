"""Capture in the app (issue 16): the capture action, the agent in the queue, the audit down to the session log.

Agent logs shaped like Claude Code's and Codex's real ones are planted under
a temporary HOME; the tests drive the app with keys and the palette's
action and assert on the screen and on the files on disk.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import make_app, make_backend, open_item, record_toasts, screen_text, started, wait_for

from pane_harness import PaneApp
from capture_logs import CC_ONE, fake_home, write_tree  # noqa: F401
from wikimem import Diary, MemoryStore, draft_promotion, reconcile_queue
from wikimem_tui.item.audit import AuditScreen
from wikimem_tui.item.card_view import CardScreen
from wikimem_tui.queue.reconcile import ReconcilePane


@pytest.fixture
def agents_home(tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:  # noqa: F811
    """The fixture logs where Claude Code and Codex keep them, under the temporary HOME; the zone is UTC."""
    files = write_tree(tmp_path / "staged")
    shutil.copytree(tmp_path / "staged" / "claude-code", fake_home / ".claude" / "projects")
    shutil.copytree(tmp_path / "staged" / "codex", fake_home / ".codex" / "sessions")
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    rel = {name: path.relative_to(tmp_path / "staged") for name, path in files.items()}
    return {"cc_one": fake_home / ".claude" / "projects" / rel["cc_one"].relative_to("claude-code")}


def _captured(memory: Path, home: Path) -> None:
    """Capture and promote the first Claude Code session, as a curator would."""
    from wikimem import capture_sessions

    capture_sessions(memory, "claude-code", tz="UTC")
    store = MemoryStore(memory)
    entry = next(q.entry for q in reconcile_queue(store) if q.entry.source_conv == f"claude-code:{CC_ONE}")
    draft = draft_promotion([entry])
    store.add("shop", "checkout prices", draft.content, owner="tui:test", source_conv=draft.source_conv)


async def _audit(pilot: Any) -> AuditScreen:
    await pilot.press("A")
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, AuditScreen) and pilot.app.screen.loaded,
                          "the audit on screen")
    await wait_for(pilot)
    return pilot.app.screen


async def test_C_captures_the_agents_sessions_into_the_diary(memory_dir: Path, agents_home: dict[str, Path]) -> None:
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        said = record_toasts(pilot.app)
        await pilot.press("C")
        assert await wait_for(pilot, lambda: pilot.app.last_capture is not None, "the capture to finish")
        await wait_for(pilot)
    assert said[0] == "captured · Claude Code: 2 new sessions (0 unchanged) · Codex: 1 new session (0 unchanged)"
    day = Diary(memory_dir).day("2026-07-13")
    assert [(e.time, e.owner) for e in day] == [("09:14", "agent:claude-code"), ("10:01", "agent:codex"),
                                                ("15:02", "agent:claude-code")]
    assert (memory_dir / "captures" / "2026-07-13.capture.json").exists()


async def test_capturing_again_from_the_palette_says_nothing_is_new(memory_dir: Path,
                                                                    agents_home: dict[str, Path]) -> None:
    _captured(memory_dir, agents_home["cc_one"])
    async with started(make_app(make_backend(memory_dir)), (120, 40)) as pilot:
        said = record_toasts(pilot.app)
        await pilot.app.run_action("capture('claude-code')")
        assert await wait_for(pilot, lambda: pilot.app.last_capture is not None, "the capture to finish")
    assert said == ["captured · Claude Code: nothing new (2 unchanged)"]


async def test_capture_is_refused_read_only_and_writes_nothing(memory_dir: Path, agents_home: dict[str, Path]) -> None:
    async with started(make_app(make_backend(memory_dir, read_only=True)), (120, 40)) as pilot:
        said = record_toasts(pilot.app)
        await pilot.press("C")
        await wait_for(pilot)
    assert any("read-only" in s for s in said) and not (memory_dir / "captures").exists()


async def test_the_queue_shows_each_entrys_agent_and_filters_by_it(memory_dir: Path,
                                                                  agents_home: dict[str, Path]) -> None:
    from wikimem import capture_sessions

    capture_sessions(memory_dir, "claude-code", tz="UTC")
    capture_sessions(memory_dir, "codex", tz="UTC")
    async with PaneApp(make_backend(memory_dir), ReconcilePane).run_test(size=(120, 40)) as pilot:
        pane = pilot.app.query_one(ReconcilePane)
        assert await wait_for(pilot, lambda: len(pane.shown) == 6, "the queue")
        text = screen_text(pilot.app)
        assert "⚙ Claude " in text and "⚙ Codex " in text and "agent:" not in text
        pane.filters.owner = "agent:codex"
        pane.post_message(pane.filters.OwnerChanged("agent:codex"))
        assert await wait_for(pilot, lambda: [q.entry.owner for q in pane.shown] == ["agent:codex"], "the filter")


async def test_A_follows_a_promoted_item_down_to_its_evidence_card_and_session_log(
        memory_dir: Path, agents_home: dict[str, Path]) -> None:
    _captured(memory_dir, agents_home["cc_one"])
    async with started(make_app(make_backend(memory_dir)), (140, 45)) as pilot:
        await open_item(pilot, "shop", "checkout prices")
        screen = await _audit(pilot)
        text = screen_text(pilot.app)
        assert "diary 2026-07-13 09:14" in text and f"evidence card claude-code-{CC_ONE}" in text
        assert "⤷ session log ~/.claude/projects/" in text and f"{CC_ONE}.jsonl  ✓" in text
        card_row = next(i for i, row in enumerate(screen.rows) if row.place and row.place[0] == "card")
        screen.query_one("OptionList").highlighted = card_row
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, CardScreen) and pilot.app.screen.loaded,
                              "the card on screen")
        await wait_for(pilot)
        text = screen_text(pilot.app)
        card = pilot.app.screen
    assert card.link is not None and card.link.session_path == str(agents_home["cc_one"])  # whole, wrapped on screen
    assert "Claude Code session " + CC_ONE in text and "The checkout test fails since yesterday." in text
    assert "[REDACTED:github-token]" in text and "Remaining: the flaky retry in CI is not addressed" in text
    assert "✓ exists" in text


async def test_the_audit_says_when_the_session_log_no_longer_exists(memory_dir: Path,
                                                                    agents_home: dict[str, Path]) -> None:
    _captured(memory_dir, agents_home["cc_one"])
    agents_home["cc_one"].unlink()  # Claude Code deleted its old session
    async with started(make_app(make_backend(memory_dir)), (140, 45)) as pilot:
        await open_item(pilot, "shop", "checkout prices")
        await _audit(pilot)
        text = screen_text(pilot.app)
    assert "✗ no longer exists: the card is the only record" in text
