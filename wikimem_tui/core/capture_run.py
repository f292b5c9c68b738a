"""Capturing agent sessions from the app, without Textual: run the library's capture, say what it did.

The app's capture action (``C``, the palette) runs this in a thread worker:
``wikimem.capture_sessions`` for each agent asked for, from the agent's own
folder, with progress as the logs are read. It writes through the
library's own lock and multi-file write (not the app's undoable writer: a
capture is the agents' evidence arriving, like a write by another process,
and the diary is append-only), and its answer names what changed so the
panes refresh at once, before the watcher sees it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from wikimem import CaptureReport, capture_sessions
from wikimem_tui.core.changes import StoreChange

__all__ = ["AGENT_NAMES", "CaptureOutcome", "capture_agents"]

#: Agents by the name the app shows.
AGENT_NAMES = {"claude-code": "Claude Code", "codex": "Codex"}
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class CaptureOutcome:
    """The reports, what changed on disk, one sentence for a notification, and the errors (sentences)."""

    reports: tuple[CaptureReport, ...]
    change: StoreChange
    summary: str
    errors: tuple[str, ...]


def _sentence(report: CaptureReport) -> str:
    name = AGENT_NAMES.get(report.agent, report.agent)
    follow = sum(1 for e in report.entries if e.follow_up)
    new = len(report.entries) - follow
    if not report.entries:
        return f"{name}: nothing new ({report.unchanged} unchanged)"
    parts = [f"{new} new session{'s' if new != 1 else ''}" if new else "", f"{follow} follow-up{'s' if follow != 1 else ''}"
             if follow else ""]
    return f"{name}: " + ", ".join(p for p in parts if p) + f" ({report.unchanged} unchanged)"


def _for(agent: str, progress: Progress | None) -> Callable[[int, int], None] | None:
    """The library's ``progress(done, total)`` for one agent, naming it to the app's callback."""
    if progress is None:
        return None
    report = progress

    def step(done: int, total: int) -> None:
        report(agent, done, total)

    return step


def capture_agents(root: Path, agents: Sequence[str], *, tz: dt.tzinfo | None = None,
                   progress: Progress | None = None) -> CaptureOutcome:
    """Capture ``agents``' sessions into the memory at ``root``; never raises for a damaged file or a full disk (an error line)."""
    reports: list[CaptureReport] = []
    errors: list[str] = []
    for agent in agents:
        try:
            report = capture_sessions(root, agent, tz=tz, progress=_for(agent, progress))
        except OSError as exc:  # the store cannot be written (a full disk, permissions): nothing landed
            errors.append(f"store error: {exc}")
            break
        reports.append(report)
        errors += [f"{path}: not captured: {why}" for path, why in report.refused]
        errors += [f"{path}: {why}" for path, why in report.missing]
    dates = frozenset(e.date for r in reports for e in r.entries)
    change = StoreChange(diary_dates=dates, journal=bool(dates), external=False, curation=bool(dates))
    return CaptureOutcome(tuple(reports), change, "captured · " + " · ".join(_sentence(r) for r in reports),
                          tuple(errors))
