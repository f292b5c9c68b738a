"""A capture killed at any step of its write: rolled back by the next writer, and the rerun completes it.

A capture changes at least two files (the day's snapshot and the day's
diary) and the journal. Killed (a real SIGKILL) between any two durable
steps, the memory must never keep a diary entry whose card was not written;
the next writer rolls the half-done write back, and capturing again ends
in exactly the state one uninterrupted capture leaves.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing as mp
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from capture_logs import UTC, fake_home, tree_hash, write_tree  # noqa: F401
from conftest import SAFETY_NET
from wikimem import MemoryStore
from wikimem.capture import capture, find_card_refs, read_snapshot
from wikimem.disk.atomic import set_step_hook
from wikimem.disk.intent import INTENT_DIR

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork and SIGKILL")


def _context() -> Any:
    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


def _capture(memory: str, logs: str) -> None:
    capture(memory, "claude-code", [logs], tz=UTC)


def _die_at(memory: str, logs: str, k: int) -> None:
    counter = itertools.count(1)
    set_step_hook(lambda name: os.kill(os.getpid(), signal.SIGKILL) if next(counter) == k else None)
    _capture(memory, logs)
    os._exit(0)


def _journal(memory: Path) -> list[dict[str, Any]]:
    data = (memory / "journal.jsonl").read_bytes() if (memory / "journal.jsonl").exists() else b""
    return [{k: v for k, v in json.loads(line).items() if k != "ts"} for line in data.decode().splitlines()]


def _state(memory: Path) -> tuple[dict[str, str], list[dict[str, Any]]]:
    # A kill between a temp file and its rename leaves the temp (a dotfile) beside a diary day, as for
    # every library write; capture sweeps its own snapshot temps.
    files = {k: v for k, v in tree_hash(memory).items()
             if k != "journal.jsonl" and not (k.startswith("diary/.") and k.endswith(".tmp"))}
    return files, _journal(memory)


def _entries_have_cards(memory: Path) -> None:
    diary = memory / "diary" / "2026-07-13.md"
    if not diary.exists():
        return
    text = diary.read_text("utf-8")
    for ref in find_card_refs(text):
        assert ref.card_id in read_snapshot(memory, ref.date).cards, f"{ref.card_id}: entry without its card"


def test_a_capture_killed_at_any_step_is_rolled_back_and_the_rerun_completes_it(tmp_path: Path) -> None:
    write_tree(tmp_path / "logs")
    logs = str(tmp_path / "logs" / "claude-code")
    clean = tmp_path / "clean"
    steps: list[str] = []
    set_step_hook(steps.append)
    try:
        _capture(str(clean), logs)
    finally:
        set_step_hook(None)
    assert "intent-written" in steps and "intent-dropped" in steps
    expected = _state(clean)
    landed: list[bool] = []
    for k in range(1, len(steps) + 1):
        memory = tmp_path / f"kill-{k}"
        proc = _context().Process(target=_die_at, args=(str(memory), logs, k))
        proc.start()
        proc.join(timeout=SAFETY_NET)
        assert proc.exitcode == -signal.SIGKILL, (k, steps[k - 1])
        MemoryStore(memory).add("scratch", "after", "a later write recovers the memory")
        assert not (memory / INTENT_DIR).exists()
        _entries_have_cards(memory)
        (memory / "wiki" / "scratch.md").unlink()
        journal = [e for e in _journal(memory) if e.get("file") != "scratch"]
        assert journal in ([], expected[1]), f"killed at {steps[k - 1]}: journal half written"
        landed.append(bool(journal))
        _capture(str(memory), logs)
        files, lines = _state(memory)
        assert files == {p: h for p, h in expected[0].items()} | {p: h for p, h in files.items() if p.startswith("wiki")}
        assert [e for e in lines if e.get("file") != "scratch"] == expected[1], steps[k - 1]
    # Rolled back while the intent record stood, kept once it was dropped: both happened.
    assert landed[0] is False and landed[-1] is True
    assert landed.count(True) == len(steps) - steps.index("intent-dropped")
