"""Shared fixture data for the CLI tests: a small bilingual store on disk.

Imported by the other ``tests/test_cli*.py`` modules as
``tests.test_cli_fixtures`` (deliberately not a ``conftest.py``, so it never
affects other test files); it holds no tests itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wikimem import MemoryStore
from wikimem.cli import main

TS = "2026-07-10T03:00:00+00:00"


def build_store(root: Path) -> MemoryStore:
    """Two RecallFiles (Chinese + English), a resolved and a dangling link, two diary days."""
    store = MemoryStore(root)
    store.add(
        "preferences",
        "likes-the-sea",
        "喜欢海边，提到过想去海边玩。[[daily_life:beach-trip-plan]]",
        owner="user:xnne",
        source_conv="conv_20260710",
        ts=TS,
    )
    store.add(
        "preferences",
        "coffee",
        "Only drinks pour-over coffee, never with sugar.\nAsked for a \"flat white\" once. [[work:old-job]]",
        ts=TS,
    )
    store.add("daily_life", "beach-trip-plan", "计划夏天去海边旅行，看日出。\nSunrise at the beach.", ts=TS)
    for date, time, ts, content in (
        ("2026-07-22", "06:10", "2026-07-21T22:10:00+00:00", "今天去海边散步，看到了日出。"),
        ("2026-07-22", "21:00", "2026-07-22T13:00:00+00:00", "Talked about the new robot job."),
        ("2026-07-25", "10:00", "2026-07-25T02:00:00+00:00", "下雨了，在家喝咖啡。"),
    ):
        store.diary.append(content, date=date, time=time, ts=ts)
    return store


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    build_store(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``main(argv)`` with its exit code, stdout and stderr."""
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err
