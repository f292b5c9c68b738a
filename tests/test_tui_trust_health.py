"""The Health pane is never stale and never stuck: every change lint reads re-lints, every run ends.

Two ways it failed: ``wikimem lint --fix`` (or a review mark) in another
terminal writes ``lint-baseline.json`` / ``reviewed.json``, which the
watcher ignored, so the pane kept showing the accepted drift for as long as
nothing else changed; and a run that failed outside ``Linter.run`` (while
grouping its findings) ended its worker with an error and no message, so
the status said "linting…" forever.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from conftest import make_app, make_backend, started, wait_for
from pane_harness import PaneApp
from wikimem import accept_current_state
from wikimem_tui.health import health
from wikimem_tui.health.health import HealthPane


def status(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.query_one("#health-status", Static).render())


def codes(app) -> set[str]:  # type: ignore[no-untyped-def]
    report = app.query_one(HealthPane).report
    return {f.code for f in report.findings} if report is not None else set()


async def test_drift_accepted_by_another_process_leaves_the_health_pane(memory_dir: Path) -> None:
    async with started(make_app(make_backend(memory_dir), watch=True), (120, 40)) as pilot:
        app = pilot.app
        assert await wait_for(pilot, lambda: app.watcher_ready)
        await pilot.press("h")
        assert await wait_for(pilot, lambda: app.query_one(HealthPane).runs >= 1)
        people = memory_dir / "wiki" / "people.md"
        people.write_text(people.read_text(encoding="utf-8") + "\nA line written by hand.\n", encoding="utf-8")
        assert await wait_for(pilot, lambda: "drift" in codes(app))  # the hand edit is drift
        accept_current_state(memory_dir, by="lint --fix in another terminal")
        assert await wait_for(pilot, lambda: "drift" not in codes(app))


async def test_a_lint_run_that_fails_while_grouping_says_so_instead_of_linting_forever(
        memory_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("grouping failed")

    monkeypatch.setattr(health, "grouped", broken)
    async with PaneApp(make_backend(memory_dir), HealthPane).run_test(size=(120, 40)) as pilot:
        app = pilot.app
        assert await wait_for(pilot, lambda: "grouping failed" in status(app))
        assert "linting…" not in status(app)
