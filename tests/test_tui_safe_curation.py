"""The curation screens draw no hidden character of memory text either (issue 7 on issue 8's screens).

The queue, the promotion dialog (its draft editor), the audit chain, the
retraction list, the why-not box and the git history all show text an LLM
wrote: diary entries, owners, source conversation ids, item names, commit
subjects. Each is drawn with ``App.export_screenshot()`` and checked the
way ``test_tui_safe`` checks the panes: nothing hidden is drawn, and the
hostile text *is* on screen in its visible form (so a screen that failed to
show it cannot pass).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import make_app, make_backend, open_item, started, wait_for
from test_tui_safe import HOSTILE, NAME, hostile_memory, shows
from wikimem import MemoryStore, draft_promotion
from wikimem_tui.common.messages import OpenDiaryDay
from wikimem_tui.item.audit import AuditScreen
from wikimem_tui.item.history import HistoryScreen
from wikimem_tui.queue.promote import PromoteScreen
from wikimem_tui.item.retract import RetractScreen
from wikimem_tui.query.why import WhyNotBox

#: What ``clean()`` draws for the OSC title sequence (visible control pictures).
DRAWN_OSC = "␛]0;pwned␇"


@pytest.fixture
def curated_hostile(tmp_path: Path) -> Path:
    """The hostile memory, plus: an item promoted from the hostile 09:00 entry, and an uncited hostile entry."""
    root = tmp_path / "memory"
    root.mkdir()
    hostile_memory(root)
    store = MemoryStore(root)
    store.diary.append(f"queued {HOSTILE}", date="2026-07-22", time="10:00", owner=f"agent {HOSTILE}",
                       source_conv=f"conv {HOSTILE}")
    draft = draft_promotion(store.diary.day("2026-07-21"))
    store.add("evil", "cites", draft.content, owner="agent", detail=draft.detail)
    return root


async def on_screen(pilot: Any, kind: type) -> Any:
    """Until a screen of ``kind`` is on top (and, when it loads in a worker, has loaded)."""
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, kind)
                          and getattr(pilot.app.screen, "loaded", True))
    await wait_for(pilot)
    return pilot.app.screen


async def test_queue_and_promotion_draft_draw_nothing_hidden(curated_hostile: Path) -> None:
    app = make_app(make_backend(curated_hostile))
    async with started(app, (140, 40)) as pilot:
        await pilot.press("R")
        assert await wait_for(pilot, lambda: shows(app, f"queued t {DRAWN_OSC}"))
        await pilot.press("p")
        await on_screen(pilot, PromoteScreen)
        # what will be written: the draft with its evidence line, owner and source included
        assert await wait_for(pilot, lambda: shows(app, f"(evidence: diary 2026-07-22 10:00, owner agent t {DRAWN_OSC}"))


async def test_audit_chain_draws_nothing_hidden(curated_hostile: Path) -> None:
    app = make_app(make_backend(curated_hostile))
    async with started(app, (140, 40)) as pilot:
        await open_item(pilot, "evil", "cites")
        await pilot.press("A")
        await on_screen(pilot, AuditScreen)
        assert await wait_for(pilot, lambda: shows(app, "2026-07-21", DRAWN_OSC))


async def test_retraction_list_draws_nothing_hidden(curated_hostile: Path) -> None:
    app = make_app(make_backend(curated_hostile))
    async with started(app, (140, 40)) as pilot:
        app.post_message(OpenDiaryDay("2026-07-21", "09:00"))
        await wait_for(pilot)
        await pilot.press("X")
        await on_screen(pilot, RetractScreen)
        assert await wait_for(pilot, lambda: shows(app, "evil:cites", DRAWN_OSC))


async def test_why_not_box_draws_nothing_hidden(curated_hostile: Path) -> None:
    app = make_app(make_backend(curated_hostile))
    async with started(app, (140, 40)) as pilot:
        await open_item(pilot, "evil", NAME)
        app.item_area.focus()
        await pilot.press("w")
        assert await wait_for(pilot, lambda: app.query_one(WhyNotBox).display)
        app.query_one("#query-input").value = "pwned"
        assert await wait_for(pilot, lambda: shows(app, "verdict", f"evil:evil {DRAWN_OSC}"))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git (.ci/run installs it)")
async def test_history_draws_nothing_hidden(curated_hostile: Path) -> None:
    hostile = HOSTILE.replace("\x00", "")  # a process argument cannot hold NUL
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-07-20T09:00:00+00:00",
           "GIT_COMMITTER_DATE": "2026-07-20T09:00:00+00:00"}

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(curated_hostile), "-c", f"user.name=agent {hostile}",
                        "-c", "user.email=a@example.invalid", "-c", "commit.gpgsign=false", *args],
                       check=True, capture_output=True, env=env)

    git("init", "-q", "-b", "main")
    git("add", "wiki")
    git("commit", "-q", "-m", f"subject {hostile}")
    MemoryStore(curated_hostile).add("evil", "cites", f"changed {HOSTILE}", owner="agent")
    app = make_app(make_backend(curated_hostile))
    async with started(app, (140, 40)) as pilot:
        await open_item(pilot, "evil", "cites")
        await pilot.press("H")
        await on_screen(pilot, HistoryScreen)
        assert await wait_for(pilot, lambda: shows(app, f"subject t {DRAWN_OSC}"))
