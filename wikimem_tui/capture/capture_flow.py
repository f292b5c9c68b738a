"""The capture action on screen: ``C`` (or the palette) captures the agents' sessions in a worker, with progress.

The work is ``wikimem_tui.core.capture_run`` (no Textual); this module runs
it in a thread worker (one capture at a time: a second ``C`` while one
runs says so), shows the progress on the status line as the logs are
read, and when it is done tells the panes what changed (the calendar, the
queue, health) and says in one notification what arrived. Errors -- a
damaged snapshot, a day file that cannot be written without loss -- are
a warning naming the file, never a crash; the files are left as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.worker import get_current_worker

from wikimem_tui.common.messages import StoreChanged
from wikimem_tui.core.capture_run import AGENT_NAMES, CaptureOutcome, capture_agents

__all__ = ["AGENTS_OF", "start_capture"]

#: What the action's argument means.
AGENTS_OF = {"all": ("claude-code", "codex"), "claude-code": ("claude-code",), "codex": ("codex",)}
GROUP = "capture"


def start_capture(app: App[Any], root: Path, agent: str, *, status: Callable[[str | None], None],
                  record: Callable[[CaptureOutcome], None]) -> None:
    """Capture ``agent``'s sessions (``all``: Claude Code, then Codex) into ``root`` in a thread worker.

    ``status`` shows a line on the status bar (None: back to the usual);
    ``record`` keeps the outcome when it is done (the App's ``last_capture``).
    """
    agents = AGENTS_OF.get(agent)
    if agents is None:
        app.notify(f"unknown agent {agent!r}", severity="warning", markup=False)
        return
    if any(w.group == GROUP and w.is_running for w in app.workers):
        app.notify("a capture is running already", markup=False)
        return

    def progress(name: str, done: int, total: int) -> None:
        if not get_current_worker().is_cancelled:
            app.call_from_thread(status, f"capture: {AGENT_NAMES.get(name, name)} {done}/{total} logs")

    def work() -> None:
        outcome = capture_agents(root, agents, progress=progress)  # the diary's days: the system's zone
        if not get_current_worker().is_cancelled:
            app.call_from_thread(_done, app, outcome, status, record)

    status("capture: finding session logs…")
    app.run_worker(work, thread=True, group=GROUP, exclusive=True, exit_on_error=False)


def _done(app: App[Any], outcome: CaptureOutcome, status: Callable[[str | None], None],
          record: Callable[[CaptureOutcome], None]) -> None:
    status(None)
    record(outcome)
    if outcome.change.diary_dates:
        app.post_message(StoreChanged(outcome.change))
    app.notify(outcome.summary, markup=False)
    for error in outcome.errors[:3]:
        app.notify(error, severity="warning", markup=False)
