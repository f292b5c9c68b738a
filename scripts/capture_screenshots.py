"""Regenerate the capture screenshots (issue 16): a session captured, promoted in the queue, audited to its log.

Run ``python scripts/capture_screenshots.py`` from the repository root. Like
``scripts/screenshots.py`` (whose app setup it reuses) the app runs
headless on a fresh copy of the bundled demo with a pinned "today"; the
agent logs are the test fixtures (``tests/fixtures/capture/``), planted
where Claude Code and Codex keep them under a fixed scratch HOME, and
captured in UTC, so the pictures change only when the app, the demo or
the fixtures do:

* ``capture-queue.svg`` — the reconcile queue after ``C``: each captured
  session's entry with its agent;
* ``capture-promote.svg`` — promoting the Claude Code session's entry;
* ``capture-audit.svg`` — ``A`` on the promoted item: the evidence line,
  the diary entry, its evidence card and the session log's path;
* ``capture-card.svg`` — ``enter`` on the card: the Evidence Card itself.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import screenshots as base  # noqa: E402

from wikimem import MemoryStore, capture_sessions, draft_promotion, reconcile_queue  # noqa: E402
from wikimem_tui.common.messages import OpenItem  # noqa: E402

#: A fixed scratch folder, so the session log's path in the pictures is stable.
SCRATCH = Path("/tmp/wikimem-capture-shots")
HOME = SCRATCH / "home"
FIXTURES = ROOT / "tests" / "fixtures" / "capture"
SESSION = "5b2c6a1e-3f4d-4e8a-9b1c-2d3e4f5a6b7c"


def _plant() -> None:
    """The fixture logs where the agents keep them, under the scratch HOME (the app's capture reads there)."""
    shutil.copytree(FIXTURES / "claude-code", HOME / ".claude" / "projects")
    shutil.copytree(FIXTURES / "codex", HOME / ".codex" / "sessions")


def _captured(root: Path) -> None:
    """Captured and the Claude Code session's entry promoted, as the queue would (for the audit shots)."""
    capture_sessions(root, "claude-code", tz="UTC")
    capture_sessions(root, "codex", tz="UTC")
    store = MemoryStore(root)
    entry = next(q.entry for q in reconcile_queue(store) if q.entry.source_conv == f"claude-code:{SESSION}")
    draft = draft_promotion([entry])
    store.add("work", "checkout-fixture-prices", draft.content, owner="tui:demo", source_conv=draft.source_conv,
              detail=draft.detail, ts="2026-11-28T11:00:00+00:00")


async def _capture(pilot: Any) -> None:
    await pilot.press("C")
    for _ in range(600):
        if pilot.app.last_capture is not None:
            break
        await pilot.pause(0.05)
    await pilot.press("R")
    await pilot.pause(1.0)


async def _promote(pilot: Any) -> None:
    await _capture(pilot)
    from wikimem_tui.queue.reconcile import ReconcilePane

    pane = pilot.app.query_one(ReconcilePane)
    index = next(i for i, q in enumerate(pane.shown) if q.entry.source_conv == f"claude-code:{SESSION}")
    for _ in range(index):
        await pilot.press("down")
    await pilot.press("space", "p")
    await pilot.pause(1.5)


async def _audit(pilot: Any) -> None:
    pilot.app.post_message(OpenItem("work", "checkout-fixture-prices"))
    await pilot.pause(0.3)
    await pilot.press("A")
    await base._loaded(pilot)


async def _card(pilot: Any) -> None:
    await _audit(pilot)
    screen = pilot.app.screen
    screen.query_one("OptionList").highlighted = next(i for i, row in enumerate(screen.rows)
                                                      if row.place and row.place[0] == "card")
    await pilot.press("enter")
    await base._loaded(pilot)


SHOTS = [("capture-queue", _capture, None), ("capture-promote", _promote, None),
         ("capture-audit", _audit, _captured), ("capture-card", _card, _captured)]


async def main() -> None:
    if SCRATCH.exists():
        shutil.rmtree(SCRATCH)
    HOME.mkdir(parents=True)
    _plant()
    os.environ["HOME"] = str(HOME)
    os.environ.pop("CODEX_HOME", None)
    os.environ.pop("CLAUDE_CONFIG_DIR", None)
    os.environ["TZ"] = "UTC"
    time.tzset()
    base.OUT.mkdir(exist_ok=True)
    for name, step, prepare in SHOTS:
        app = base.make_app(SCRATCH, prepare)
        async with app.run_test(size=(120, 40)) as pilot:
            await base._ready(pilot)
            await step(pilot)
            await base._footer_drawn(pilot)
            path = base.OUT / f"{name}.svg"
            path.write_text(app.export_screenshot(title=f"wikimem-tui — {name}"), encoding="utf-8")
        print(path)
    shutil.rmtree(SCRATCH)


if __name__ == "__main__":
    asyncio.run(main())
