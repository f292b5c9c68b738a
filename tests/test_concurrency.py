"""Data safety under concurrency (SPEC §5).

Concurrent writers (the agent process and the app) must not lose each
other's updates to the same RecallFile, and a process killed mid-write
leaves either the old or the new file, never a torn one.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

import pytest

from conftest import SAFETY_NET, wait_until
from wikimem import MemoryStore

TS = "2026-07-10T03:00:00+00:00"
WORKERS = 4
PER_WORKER = 20

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses fork and SIGKILL")


def _context() -> Any:
    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


def _add_items(root: str, worker: int, start: Event) -> None:
    start.wait()
    store = MemoryStore(root)
    for n in range(PER_WORKER):
        store.add("shared", f"w{worker}-{n}", f"written by worker {worker}, item {n}", ts=TS)


def _append_entries(root: str, worker: int, start: Event) -> None:
    start.wait()
    store = MemoryStore(root)
    for n in range(PER_WORKER):
        store.diary.append(f"worker {worker} event {n}", date="2026-07-21", time="10:00", ts=TS)


def _run_together(target: Any, root: Path) -> None:
    ctx = _context()
    start = ctx.Event()
    procs = [ctx.Process(target=target, args=(str(root), w, start)) for w in range(WORKERS)]
    for proc in procs:
        proc.start()
    start.set()
    for proc in procs:
        proc.join(timeout=SAFETY_NET)  # a safety net: each worker ends by itself
        assert proc.exitcode == 0, f"worker exit code {proc.exitcode} (None: still running after {SAFETY_NET:g} s)"


def payload(generation: int) -> str:
    """A large, self-describing content: a torn write could not reproduce it."""
    lines = [f"generation {generation}"]
    lines += [f"line {i} of generation {generation} " + "x" * 60 for i in range(3000)]
    return "\n".join(lines)


def _write_forever(root: str, writes: Any) -> None:
    store = MemoryStore(root)
    generation = 0
    while True:
        store.add("big", "payload", payload(generation), ts=TS)
        store.add("big", f"small-{generation % 7}", f"small {generation}", ts=TS)
        store.diary.append(f"diary {generation}", date="2026-07-21", time="10:00", ts=TS)
        generation += 1
        writes.value = generation


def _kill_after(root: Path, writes_before_kill: int) -> None:
    ctx = _context()
    writes = ctx.Value("i", 0)
    proc = ctx.Process(target=_write_forever, args=(str(root), writes))
    proc.start()
    wait_until(lambda: writes.value >= writes_before_kill or not proc.is_alive(),
               f"the writer's write number {writes_before_kill}")
    assert proc.is_alive(), "the writer died before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)  # type: ignore[arg-type]
    proc.join(timeout=SAFETY_NET)


def _hang_before_rename(root: str, ready: Event) -> None:
    store = MemoryStore(root)
    store.add("big", "payload", payload(0), ts=TS)

    def hang(src: object, dst: object) -> None:
        ready.set()  # the new file is fully in its temp file, not yet in place
        time.sleep(600)

    os.replace = hang  # type: ignore[assignment]  # only in this child process
    store.add("big", "payload", payload(1), ts=TS)


def test_processes_adding_to_the_same_file_lose_no_update(tmp_path: Path) -> None:
    _run_together(_add_items, tmp_path)
    store = MemoryStore(tmp_path)
    expected = {f"w{w}-{n}" for w in range(WORKERS) for n in range(PER_WORKER)}
    assert {item.name for item in store.items("shared")} == expected
    assert len(store.journal.entries()) == WORKERS * PER_WORKER


def test_processes_appending_to_the_same_day_lose_no_entry(tmp_path: Path) -> None:
    _run_together(_append_entries, tmp_path)
    entries = MemoryStore(tmp_path).diary.day("2026-07-21")
    assert sorted(e.content for e in entries) == sorted(
        f"worker {w} event {n}" for w in range(WORKERS) for n in range(PER_WORKER)
    )


def test_each_writer_keeps_its_own_order_within_a_shared_minute(tmp_path: Path) -> None:
    _run_together(_append_entries, tmp_path)
    contents = [e.content for e in MemoryStore(tmp_path).diary.day("2026-07-21")]
    for w in range(WORKERS):
        mine = [c for c in contents if c.startswith(f"worker {w} ")]
        assert mine == [f"worker {w} event {n}" for n in range(PER_WORKER)]


def test_threads_sharing_one_store_lose_no_update(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)

    def work(worker: int) -> None:
        for n in range(PER_WORKER):
            store.add("shared", f"t{worker}-{n}", f"thread {worker} item {n}", ts=TS)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.items("shared")) == WORKERS * PER_WORKER


@pytest.mark.parametrize("writes_before_kill", [1, 4, 9])
def test_a_writer_killed_mid_write_leaves_a_whole_file(tmp_path: Path, writes_before_kill: int) -> None:
    _kill_after(tmp_path, writes_before_kill)
    store = MemoryStore(tmp_path)
    raw = (tmp_path / "wiki" / "big.md").read_text(encoding="utf-8")
    assert raw.startswith("# big\n\n## payload\n\n") and raw.endswith("\n")
    big = store.get("big", "payload")
    assert big is not None
    generation = int(big.content.split("\n", 1)[0].removeprefix("generation "))
    assert generation >= writes_before_kill - 1
    assert big.content == payload(generation)
    assert big.ts == TS


def test_a_killed_writer_leaves_a_readable_diary_and_journal(tmp_path: Path) -> None:
    _kill_after(tmp_path, 5)
    store = MemoryStore(tmp_path)
    entries = store.diary.day("2026-07-21")
    assert [e.content for e in entries] == [f"diary {n}" for n in range(len(entries))]
    assert len(entries) >= 4
    assert store.journal.entries()


def test_a_killed_writer_does_not_leave_the_store_locked_or_cluttered(tmp_path: Path) -> None:
    _kill_after(tmp_path, 3)
    store = MemoryStore(tmp_path)
    store.add("big", "after", "written after the kill", ts=TS)
    assert store.get("big", "after") is not None
    assert store.files() == ["big"]
    assert store.journal.entries()[-1]["item"] == "after"


def test_a_writer_killed_between_temp_file_and_rename_leaves_the_old_file(tmp_path: Path) -> None:
    ctx = _context()
    ready = ctx.Event()
    proc = ctx.Process(target=_hang_before_rename, args=(str(tmp_path), ready))
    proc.start()
    assert ready.wait(timeout=SAFETY_NET), "the writer never reached its rename"
    os.kill(proc.pid, signal.SIGKILL)  # type: ignore[arg-type]
    proc.join(timeout=SAFETY_NET)
    leftovers = [p.name for p in (tmp_path / "wiki").iterdir() if p.name != "big.md"]
    assert leftovers, "the kill should have struck mid-write, with the temp file on disk"
    store = MemoryStore(tmp_path)
    assert store.files() == ["big"]
    assert store.get("big", "payload").content == payload(0)  # type: ignore[union-attr]
    store.add("big", "payload", "the lock was released by the kill", ts=TS)
    assert store.get("big", "payload").content == "the lock was released by the kill"  # type: ignore[union-attr]
