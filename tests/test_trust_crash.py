"""Multi-file writes survive kills and full disks (issue 13, finding 10; SPEC §5).

A move with link rewrites changes four files here. Killed (a real SIGKILL)
at every step of it, or at random moments of a loop of moves, the store is,
after the next write recovers it: the item at exactly one address, every
link resolving to it, whole journal lines only, and the move's journal
lines all there or none. Before recovery a reader sees the item at one
address or both, never at none, and no link dangles. A full disk (an
injected ``ENOSPC``, a short write first) makes a single add, a journal
append or a move raise with nothing landed, even when the disk stays full.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import json
import multiprocessing as mp
import os
import random
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import SAFETY_NET, wait_until
from wikimem import MemoryStore, parse_wiki_links
from wikimem.disk.atomic import set_step_hook
from wikimem.disk.intent import INTENT_DIR

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork and SIGKILL")

TS = "2026-07-10T03:00:00+00:00"
HOMES = ("notes", "archive")


def _context() -> Any:
    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


def seed(root: Path) -> MemoryStore:
    store = MemoryStore(root)
    store.add("notes", "keep", "stays in notes", ts=TS)
    store.add("notes", "target", "the item that moves; it links to itself: [[notes:target]]", ts=TS)
    store.add("people", "linker", "see [[notes:target]]", owner="agent", ts=TS)
    store.add("work", "other", "also [[ notes : target ]]", ts=TS)
    store.add("archive", "old", "archived before", ts=TS)
    return store


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def homes(store: MemoryStore) -> list[str]:
    return [f for f in HOMES if store.get(f, "target") is not None]


def assert_links_resolve(store: MemoryStore) -> None:
    for item in store.items():
        for link in parse_wiki_links(item.content):
            assert store.get(link.file, link.name) is not None, f"{item.file}:{item.name} -> {link.render()} dangles"


def journal_lines(root: Path) -> list[dict[str, Any]]:
    data = (root / "journal.jsonl").read_bytes()
    assert data.endswith(b"\n")
    return [json.loads(line) for line in data.decode("utf-8").split("\n") if line]  # whole lines, or this raises


def assert_recovered(root: Path, seeded_lines: int) -> str:
    """The invariants after the next write recovered the store; returns where the item is."""
    store = MemoryStore(root)
    store.add("scratch", "after", "a later write recovers the store", ts=TS)
    (home,) = homes(store)  # exactly one address
    assert_links_resolve(store)
    assert not (root / INTENT_DIR).exists()
    lines = journal_lines(root)
    moves = [e for e in lines[seeded_lines:] if "moved from" in (e.get("detail") or "")]
    assert lines[-1]["item"] == "after"
    assert len(moves) in (0, 5)  # add, 3 link rewrites (one in the moved item itself), remove: all or none
    return home


def _move(root: str) -> None:
    store = MemoryStore(root)
    src = homes(store)[0]
    store.move(src, "target", new_file=HOMES[1 - HOMES.index(src)], by="agent")


# -- SIGKILL at every step of a move ------------------------------------------------------------


def _die_at(root: str, k: int) -> None:
    counter = itertools.count(1)
    set_step_hook(lambda name: os.kill(os.getpid(), signal.SIGKILL) if next(counter) == k else None)
    _move(root)
    os._exit(0)


def _steps_of_a_move(tmp_path: Path) -> list[str]:
    seed(tmp_path / "probe")
    steps: list[str] = []
    set_step_hook(steps.append)
    try:
        _move(str(tmp_path / "probe"))
    finally:
        set_step_hook(None)
    return steps


def test_a_move_killed_at_any_step_is_rolled_back_or_done_and_a_reader_never_loses_the_item(tmp_path: Path) -> None:
    steps = _steps_of_a_move(tmp_path)
    assert "intent-written" in steps and "file-4-written" in steps and "intent-dropped" in steps
    outcomes = []
    for k in range(1, len(steps) + 1):
        root = tmp_path / f"kill-{k}"
        seeded = len(seed(root).journal.entries())
        proc = _context().Process(target=_die_at, args=(str(root), k))
        proc.start()
        proc.join(timeout=SAFETY_NET)
        assert proc.exitcode == -signal.SIGKILL, (k, steps[k - 1])
        reader = MemoryStore(root)  # constructing and reading touch nothing, recover nothing
        before = tree(root)
        assert homes(reader), f"killed at {steps[k - 1]}: the item is at no address"
        assert_links_resolve(reader)
        assert tree(root) == before
        outcomes.append(assert_recovered(root, seeded))
    assert outcomes[0] == "notes" and outcomes[-1] == "archive"  # rolled back before the end, done after it
    assert outcomes.count("archive") == len(steps) - steps.index("intent-dropped")  # killed once the record was gone


# -- SIGKILL at random moments of moves back and forth --------------------------------------------


def _move_forever(root: str, moves: Any) -> None:
    while True:
        _move(root)
        moves.value += 1


def test_moves_killed_at_random_moments_always_leave_a_recoverable_store(tmp_path: Path) -> None:
    rng = random.Random(10)
    ctx = _context()
    inside = total = 0
    while (inside < 8 or total < 20) and total < 80:  # until enough kills struck mid-move
        root = tmp_path / f"run-{total}"
        seeded = len(seed(root).journal.entries())
        moves = ctx.Value("i", 0)
        proc = ctx.Process(target=_move_forever, args=(str(root), moves))
        proc.start()
        wait_until(lambda: moves.value >= 1 or not proc.is_alive(), "the mover's first move")
        time.sleep(rng.uniform(0, 0.02))  # the kill's random moment
        assert proc.is_alive(), "the mover died before it was killed"
        os.kill(proc.pid, signal.SIGKILL)  # type: ignore[arg-type]
        proc.join(timeout=SAFETY_NET)
        total += 1
        inside += (root / INTENT_DIR / "record.json").exists()
        reader = MemoryStore(root)
        assert homes(reader)
        assert_links_resolve(reader)
        store = MemoryStore(root)
        store.add("scratch", "after", "recovered", ts=TS)
        assert len(homes(store)) == 1
        assert_links_resolve(store)
        lines = journal_lines(root)
        moved = [e for e in lines[seeded:] if "moved from" in (e.get("detail") or "")]
        assert len(moved) % 5 == 0
    assert inside >= 8, f"only {inside} of {total} kills struck inside a move"


# -- a full disk -----------------------------------------------------------------------------------


@contextlib.contextmanager
def disk_full_after(n: int, *, short: bool = True) -> Iterator[list[int]]:
    """``os.write`` call ``n`` writes half its bytes (``short``) and every later one fails with ENOSPC."""
    real = os.write
    calls = [0]

    def write(fd: int, data: Any) -> int:
        calls[0] += 1
        if calls[0] == n and short and len(data) > 1:
            return real(fd, bytes(data)[: len(data) // 2])
        if calls[0] >= n:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    os.write = write  # type: ignore[assignment]
    try:
        yield calls
    finally:
        os.write = real  # type: ignore[assignment]


OPERATIONS: dict[str, Callable[[MemoryStore], object]] = {
    "add": lambda s: s.add("notes", "new", "x" * 5000, ts=TS),
    "update": lambda s: s.add("notes", "keep", "changed", ts=TS),
    "journal append": lambda s: s.journal.append("update", file="notes", name="keep", detail="x" * 5000),
    "diary append": lambda s: s.diary.append("an event", date="2026-07-21", time="10:00", ts=TS),
    "move": lambda s: s.move("notes", "target", new_file="archive"),
}


@pytest.mark.parametrize("short", [True, False])
@pytest.mark.parametrize("op", list(OPERATIONS))
def test_a_write_that_raised_on_a_full_disk_did_not_land_even_while_the_disk_stays_full(
    tmp_path: Path, op: str, short: bool
) -> None:
    n = 1
    while True:
        root = tmp_path / f"{op}-{n}"
        store = seed(root)
        before = tree(root)
        with disk_full_after(n, short=short) as calls:
            try:
                OPERATIONS[op](store)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                raised = True
            else:
                raised = False
            assert not raised or tree(root) == before, f"{op} raised at write {n} but changed the store"
        if not raised:
            assert calls[0] < n  # it never reached the failing write: every point was tried
            break
        journal_lines(root)
        store.add("scratch", "after", "the disk has room again", ts=TS)
        assert len(homes(store)) == 1
        assert_links_resolve(store)
        n += 1
    assert n > (1 if op == "journal append" else 2)  # every write of it failed once: the file(s) and the journal


def test_a_file_edited_by_hand_after_the_kill_is_never_overwritten_by_the_recovery(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    steps = _steps_of_a_move(tmp_path)
    root = tmp_path / "edited"
    seed(root)
    proc = _context().Process(target=_die_at, args=(str(root), steps.index("file-2-written") + 1))
    proc.start()
    proc.join(timeout=SAFETY_NET)
    assert (root / INTENT_DIR / "record.json").exists()
    archive = root / "wiki" / "archive.md"
    archive.write_bytes(archive.read_bytes() + b"\n## by hand\n\nwritten after the kill\n")
    before = {k: v for k, v in tree(root).items() if not k.startswith(INTENT_DIR)}
    with caplog.at_level("WARNING", logger="wikimem"):
        MemoryStore(root).add("scratch", "after", "a later write", ts=TS)
    after = {k: v for k, v in tree(root).items() if not k.startswith(".wikimem-intent") and "scratch" not in k
             and k != "journal.jsonl"}
    assert after == {k: v for k, v in before.items() if k != "journal.jsonl"}  # nothing rolled back, nothing lost
    assert any("wiki/archive.md" in r.getMessage() and "left as it is" in r.getMessage() for r in caplog.records)
    assert not (root / INTENT_DIR).exists()
    assert [p.name for p in root.iterdir() if p.name.endswith(".unresolved")]  # the record is kept for a person
    assert len(homes(MemoryStore(root))) >= 1
