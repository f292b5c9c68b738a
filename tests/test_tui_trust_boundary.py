"""The app says at start-up that a folder of the memory leads out of it (its files are not shown)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import make_app, make_backend, started
from wikimem import MemoryStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks")


async def test_a_wiki_folder_leading_out_is_told_at_start_up(tmp_path: Path) -> None:
    memory, outside = tmp_path / "memory", tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.md").write_text("## key\nsomeone else's file\n")
    MemoryStore(memory).diary.append("a day", date="2026-01-01", time="09:00")
    (memory / "wiki").symlink_to(outside, target_is_directory=True)
    async with started(make_app(make_backend(memory)), (120, 40), notifications=True) as pilot:
        said = [n.message for n in pilot.app.notices.pending]
        assert any("wiki/ is a symlink to" in m and "outside this memory" in m for m in said), said
        assert pilot.app.backend.store.files() == []
