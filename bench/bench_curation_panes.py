"""The curation panes on a big store: how long until they show, and that the UI never waits for them.

Health (``wikimem.lint`` in the pane's worker), the reconcile queue (a warm
``Snapshot``) and the tree's derived-badge scan all read files. The claim is
twofold: a re-run after one change costs the change, not the store; and the
event loop keeps running while they work. Figures, each against a reference
measured in the same run on the same store:

* library level: a full run of each computation vs the same after one
  changed file (the ratio is what "incremental" buys);
* app level, driven by Pilot: key → the pane showing its result, and the
  longest the event loop went without running (a 5 ms ticker on the app's
  loop records the largest gap) while the pane worked — against the time
  the same computation takes, which is what the UI would freeze for were
  it run on the UI thread, and against switching to a tab that reads
  nothing new (the calendar): Textual's own cost of a tab switch.

The machine is shared by several engineers: absolute times drift, ratios
within one run are what to compare. Nothing is asserted.

    python bench/bench_curation_panes.py                 # 100k items (store built once)
    python bench/bench_curation_panes.py --items 10000
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_app import write_journal  # noqa: E402
from synth import generate  # noqa: E402

from wikimem import Linter, MemoryIndex, MemoryStore, reconcile_queue  # noqa: E402
from wikimem.lint import Snapshot  # noqa: E402
from wikimem_tui.app import WikimemApp  # noqa: E402
from wikimem_tui.core.backend import Backend  # noqa: E402
from wikimem_tui.core.changes import StoreChange  # noqa: E402
from wikimem_tui.common.badges import DerivedMarks  # noqa: E402
from wikimem_tui.health.health import HealthPane  # noqa: E402
from wikimem_tui.queue.reconcile import ReconcilePane  # noqa: E402

SIZE = (120, 40)


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def touch_one(store: MemoryStore, n: int) -> tuple[str, str]:
    """One wiki edit and one diary append, as an agent would make; returns the changed paths."""
    file = store.files()[0]
    item = store.items(file)[0]
    store.add(file, item.name, item.content + f" (edit {n})", owner="agent")
    store.diary.append(f"bench entry {n}", date="2026-06-01", time=f"{10 + n % 10:02d}:{n % 60:02d}", owner="agent")
    return f"wiki/{file}.md", "diary/2026-06-01.md"


def library(root: Path) -> dict[str, float]:
    store = MemoryStore(root)
    out: dict[str, float] = {}
    linter = Linter(root)
    out["lint full"] = timed(linter.run)
    changed = touch_one(store, 1)
    out["lint after 1 change"] = timed(lambda: linter.run(changed))
    snapshot = Snapshot(root)
    out["queue full (read + queue)"] = timed(lambda: (snapshot.refresh(), reconcile_queue(snapshot)))
    changed = touch_one(store, 2)
    out["queue after 1 change"] = timed(lambda: (snapshot.refresh(changed), reconcile_queue(snapshot)))
    marks = DerivedMarks()
    out["derived scan full"] = timed(lambda: marks.refresh(store))
    touch_one(store, 3)
    out["derived scan after 1 change"] = timed(lambda: marks.refresh(store))
    return out


class Ticker:
    """Records the longest gap between wake-ups of a 5 ms sleep loop on the app's event loop."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            self.worst = max(self.worst, now - last)
            last = now

    def start(self) -> None:
        self.worst = 0.0
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> float:
        assert self._task is not None
        self._task.cancel()
        return self.worst


async def until(cond: Callable[[], bool], timeout: float = 600.0) -> float:
    start = time.perf_counter()
    while not cond():
        if time.perf_counter() - start > timeout:
            raise TimeoutError("condition not reached")
        await asyncio.sleep(0.002)
    return time.perf_counter() - start


async def app_level(root: Path) -> dict[str, float]:
    store = MemoryStore(root)
    backend = Backend(root=root, store=store, index=MemoryIndex(store, use_jieba=False), owner="tui:bench",
                      today=lambda: dt.date(2026, 7, 22))
    app = WikimemApp(backend, config=Path("/nonexistent"), watch=False, cursor_blink=False)
    out: dict[str, float] = {}
    ticker = Ticker()
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.catalogue is not None and app.index_ready)
        await pilot.pause()
        ticker.start()
        await asyncio.sleep(3.0)  # reference: the app alone (its index warm-up runs in the background)
        out["reference: 3 s idle, stall"] = ticker.stop()
        ticker.start()
        await pilot.press("c")  # reference: switching to a pane that reads nothing new
        await pilot.pause(0.3)
        out["reference: c (calendar tab), stall"] = ticker.stop()
        health = app.query_one(HealthPane)
        ticker.start()
        started = time.perf_counter()
        await pilot.press("h")
        await until(lambda: health.runs >= 1 and not health._running)
        out["h → findings shown (full lint)"] = time.perf_counter() - started
        out["  longest event-loop stall meanwhile"] = ticker.stop()
        changed = touch_one(store, 4)
        ticker.start()
        started = time.perf_counter()
        health.refresh_from_store(StoreChange(frozenset({changed[0][5:-3]}), frozenset({"2026-06-01"})))
        await until(lambda: health.runs >= 2 and not health._running)
        out["store change → findings re-linted"] = time.perf_counter() - started
        out["  longest event-loop stall meanwhile "] = ticker.stop()
        queue = app.query_one(ReconcilePane)
        ticker.start()
        started = time.perf_counter()
        await pilot.press("R")
        await until(lambda: queue.loads >= 1 and not queue._loading)
        out["R → queue shown"] = time.perf_counter() - started
        out["  longest event-loop stall meanwhile  "] = ticker.stop()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--out", type=Path, help="store directory (reused when it exists)")
    args = parser.parse_args(argv)
    root = args.out or Path(tempfile.gettempdir()) / f"wikimem-bench-panes-{args.items}"
    if not (root / "wiki").is_dir():
        print(f"building {args.items} items in {root} ...", file=sys.stderr)
        generate(root, args.items, seed=1)
        write_journal(root, MemoryStore(root))
    lib = library(root)
    print(f"store: {args.items} items, {len(MemoryStore(root).diary.dates())} diary days")
    print("library (the panes' workers run exactly these):")
    for name in ("lint", "queue", "derived scan"):
        full, one = lib[f"{name} full" if name != "queue" else "queue full (read + queue)"], lib[f"{name} after 1 change"]
        print(f"  {name:13s} full {full * 1000:8.0f} ms   after 1 change {one * 1000:7.0f} ms   ratio {one / full:.3f}")
    app = asyncio.run(app_level(root))
    print("app (Pilot, 120x40):")
    for key, value in app.items():
        print(f"  {key.rstrip():40s} {value * 1000:8.0f} ms")
    stall = max(v for k, v in app.items() if "stall" in k and "reference" not in k)
    print(f"worst stall / full lint time: {stall / lib['lint full']:.3f} (1.0 = the UI frozen for the whole lint)")
    print(f"worst stall / calendar tab switch stall: {stall / app['reference: c (calendar tab), stall']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
