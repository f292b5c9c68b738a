"""SVG snapshots of the curation screens: the audit chain, a retraction and an item's git history (120x40).

Same rules as ``test_tui_snapshots.py``: an App instance over the pinned test
memory, each shot taken only once the screen's worker has answered. The
history repository pins author and committer dates, so commit ids are
stable too.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from conftest import make_app, make_backend, open_item, ready, wait_for
from test_tui_curation import curated
from test_tui_history import history_repo
from wikimem_tui.common.messages import OpenDiaryDay


async def _loaded(pilot: Any) -> None:
    assert await wait_for(pilot, lambda: getattr(pilot.app.screen, "loaded", False))
    await wait_for(pilot)


def test_audit_of_an_item_120x40(memory_dir, snap_compare) -> None:  # type: ignore[no-untyped-def]
    curated(memory_dir)

    async def run_before(pilot: Any) -> None:
        await ready(pilot)
        await open_item(pilot, "notes", "trip")
        await pilot.press("A")
        await _loaded(pilot)

    assert snap_compare(make_app(make_backend(memory_dir)), terminal_size=(120, 40), run_before=run_before)


def test_audit_of_a_diary_day_120x40(memory_dir, snap_compare) -> None:  # type: ignore[no-untyped-def]
    curated(memory_dir)

    async def run_before(pilot: Any) -> None:
        await ready(pilot)
        pilot.app.post_message(OpenDiaryDay("2026-07-21"))
        await wait_for(pilot)
        await pilot.press("A")
        await _loaded(pilot)

    assert snap_compare(make_app(make_backend(memory_dir)), terminal_size=(120, 40), run_before=run_before)


def test_retraction_of_an_item_120x40(memory_dir, snap_compare) -> None:  # type: ignore[no-untyped-def]
    curated(memory_dir)

    async def run_before(pilot: Any) -> None:
        await ready(pilot)
        await open_item(pilot, "people", "Alice-city")
        await pilot.press("X")
        await _loaded(pilot)
        await pilot.press("down", "d")  # one dependent set to delete

    assert snap_compare(make_app(make_backend(memory_dir)), terminal_size=(120, 40), run_before=run_before)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git (.ci/run installs it)")
def test_history_of_an_item_120x40(memory_dir, snap_compare) -> None:  # type: ignore[no-untyped-def]
    history_repo(memory_dir)

    async def run_before(pilot: Any) -> None:
        await ready(pilot)
        await open_item(pilot, "preferences", "coffee")
        await pilot.press("H")
        await _loaded(pilot)

    assert snap_compare(make_app(make_backend(memory_dir)), terminal_size=(120, 40), run_before=run_before)
