"""App benchmark: the four figures BENCH.md holds the terminal app to.

Runs the real ``WikimemApp`` headless (``App.run_test``) over a synthetic
store from ``bench/synth.py`` plus a journal with one line per item, and
prints, per store size:

* launch → first paint (``run_test`` returns once the first screen is up),
  the first frame rendered (before that: the hidden panes mount after it),
  and launch → index ready (the index builds in a worker meanwhile);
* with ``--second-start``: the first start waits for its warm-up, and a
  second start on the same store prints its first paint, index ready and
  keystroke figures beside (what a user sees from the second launch on:
  with jieba, its segmentation of the store cached by the first);
* query keystroke → results on screen, minus the 150 ms debounce;
* external write (another process's ``MemoryStore``) → visible in the
  journal tail, the tree's catalogue and the query results (watcher
  debounce included);
* tree: expanding a 200-item RecallFile, and a RecallFile of ``--big-file``
  items (5,000 by default, added to the store as ``aaa_big``, which sorts
  first), and moving the cursor;
* a query typed right after the first paint, while the index still builds:
  what the query pane says, whether the status line shows build progress,
  and when the answer comes;
* journal tail: first load of the whole journal (it starts reading when
  first shown) and paging through it.

The two goal figures (keystroke -> results, expanding the big file) are
timed from the key event to the first frame the compositor renders with the
answer in it (``Frames`` wraps ``App._display``, which a headless run still
calls once per frame): not through ``Pilot.press``, which after each key
waits for the *process* to go idle (``wait_for_idle`` compares CPU time with
wall time, up to 1 s, twice per key), so any busy background thread -- the
index warm-up, the journal reader -- added up to 2 s to a figure the user
never saw. For the keystroke the worker's own time, the moment its answer
reached the event loop and the draw (from the panel starting on the rows to
the frame showing them) are printed beside it, so a starved loop shows as
the gap between them and the table's own cost as the draw. The per-key scrolling figures still go through
``Pilot.press`` (a no-op key is timed as a baseline and each is printed net
of it as well).

Stores: the synthetic store is ``synth.ensure_store``'s (reused from
``--data``, default ``/tmp/wikimem-bench``, generated there once), the big
file and the journal are added once to a copy under ``--data``
(``app-store-N-1-bigB``), and every run works on a fresh copy of that (the
run writes to it: the external write), so a run never
sees another's leftovers.

Absolute times drift on shared machines; this prints figures and asserts
nothing, and prints each BENCH.md goal with its ratio and MISS where it
misses. ``python bench/bench_app.py --items 10000 100000 1000000``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from app_bench_store import BIG_FILE, app_store, sample_queries, write_journal  # noqa: E402, F401 (write_journal: bench_curation_panes)
from app_probes import (  # noqa: E402
    WAIT_FOR_ANSWER, Frames, GcPauses, QueryTimes, expand, load_avg, ms, peak_rss_mb, per_key, query_while_building,
    send_key, until, warm_running,
)
from goals import goal  # noqa: E402

from wikimem import MemoryIndex, MemoryStore  # noqa: E402
from wikimem_tui.app import WikimemApp  # noqa: E402
from wikimem_tui.core.backend import Backend  # noqa: E402
from wikimem_tui.journal.journal_tail import JournalView  # noqa: E402
from wikimem_tui.query.query_panel import DEBOUNCE_SECONDS, QueryPanel  # noqa: E402

SIZE = (120, 40)
GOAL_FIRST_PAINT = 1.0
GOAL_BIG_EXPAND = 0.200
GOAL_QUERY = 0.100


class Figures(dict):  # type: ignore[type-arg]
    """Figures printed as they are measured, so a later stall or timeout loses none."""

    def __setitem__(self, name: str, value: Any) -> None:
        super().__setitem__(name, value)
        print(f"  {name:32s} {ms(value) if isinstance(value, float) else value}", flush=True)


async def run(root: Path, n_journal: int, use_jieba: bool | None, big_file: int = 0, *,
              finish_warm_up: bool = False) -> dict[str, Any]:
    """One app start over ``root``; ``finish_warm_up``: before quitting, let the warm-up finish."""
    figures: dict[str, Any] = Figures()
    started = time.perf_counter()
    store = MemoryStore(root)
    index = MemoryIndex(store, use_jieba=use_jieba)  # as wikimem-tui's __main__ builds it (bigrams unless --jieba)
    backend = Backend(root=root, store=store, index=index, owner="bench", use_jieba=use_jieba)
    app = WikimemApp(backend, cursor_blink=False)
    frames = Frames(app)  # before the run: the first frame is timed too
    pauses = GcPauses()
    try:
        return await _run(app, frames, pauses, figures, started, root, store, backend, n_journal, big_file,
                          finish_warm_up)
    finally:
        pauses.close()


async def _run(app: Any, frames: Frames, pauses: GcPauses, figures: dict[str, Any], started: float, root: Path,
               store: MemoryStore, backend: Backend, n_journal: int, big_file: int, finish_warm_up: bool) -> dict[str, Any]:
    """The figures of one start (``run``'s), the collector's pauses watched throughout."""
    async with app.run_test(size=SIZE) as pilot:
        figures["first paint"] = time.perf_counter() - started
        if frames.first_at is not None:
            figures["  first frame rendered"] = frames.first_at - started
        for name, value in (await query_while_building(app, pilot, store, started)).items():
            figures[name] = value
        await until(pilot, lambda: app.index_ready, timeout=WAIT_FOR_ANSWER)
        if "index ready" not in figures:
            figures["index ready"] = time.perf_counter() - started
        try:
            await until(pilot, lambda: app.catalogue is not None, timeout=WAIT_FOR_ANSWER)
        except TimeoutError:
            figures["catalogue (tree names) ready"] = f"not within {WAIT_FOR_ANSWER:.0f} s: tree, query and journal figures skipped"
            figures["app peak RSS (MB, whole process)"] = round(peak_rss_mb())
            return figures
        figures["catalogue (tree names) ready"] = time.perf_counter() - started

        # -- journal tail: first load of the whole file (it starts when first shown) --
        view = app.query_one(JournalView)
        app.set_focus(None)
        t0 = time.perf_counter()
        app.action_pane("journal")  # not pilot.press: that also waits for the whole screen to settle
        await until(pilot, lambda: len(view.rows) >= n_journal, timeout=WAIT_FOR_ANSWER)
        figures["journal first load"] = time.perf_counter() - t0

        # -- query keystroke -> results on screen ------------------------------
        app.set_focus(None)
        await pilot.press("slash")
        panel = app.query_one(QueryPanel)
        field = app.query_one("#query-input")
        times = QueryTimes(panel)
        warming = warm_running(app)
        latencies, retrieve_ms, loop_waits, draws, collector = [], [], [], [], []
        for query in sample_queries(store):
            field.value = query[:-1]
            await pilot.pause(DEBOUNCE_SECONDS + 0.2)
            # the prefix's own answer is on screen (or it had none to give) before the key is sent
            await until(pilot, lambda: panel._debounce is None and times.shown_seq == panel.runner.seq)
            seq = panel.runner.seq
            t0 = time.perf_counter()
            send_key(app, query[-1])
            shown = await frames.shown(lambda: times.shown_seq > seq)
            latencies.append(shown - t0 - DEBOUNCE_SECONDS)
            collector.append(pauses.within(t0, shown))
            if times.shown_seq in times.posted:
                loop_waits.append(shown - times.posted[times.shown_seq])
            if times.shown_seq in times.showing:
                draws.append(shown - times.showing[times.shown_seq])
            status = str(panel.query_one("#query-status").render())
            retrieve_ms.append(float(status.rsplit("·", 1)[1].split()[0]))
        figures["query after debounce p50"] = statistics.median(latencies)
        figures["query after debounce max"] = max(latencies)
        figures["  retrieve p50 (in worker)"] = statistics.median(retrieve_ms) / 1000
        figures["  retrieve max (in worker)"] = max(retrieve_ms) / 1000
        if loop_waits:
            figures["  worker done -> on screen, max"] = max(loop_waits)
        if draws:  # the part of it the app spends drawing: rows, summary, then the frame showing them
            figures["  results drawn (rows -> frame) p50"] = statistics.median(draws)
            figures["  results drawn (rows -> frame) max"] = max(draws)
        figures["  collector pauses in a keystroke, max"] = max(collector)
        figures["  load while typing"] = load_avg()
        figures["  index warm-up meanwhile"] = (f"running ({backend.activity.pauses} pauses for the keys)" if warming
                                                else "done before the first key")

        # -- external write -> visible -------------------------------------------
        token = "zzqxbench"
        field.value = token
        await pilot.pause(DEBOUNCE_SECONDS + 0.2)
        file = store.files()[0]
        t0 = time.perf_counter()
        MemoryStore(root).add(file, "bench-external", f"written by another process {token}", owner="other")
        seen: dict[str, float] = {}

        def check() -> bool:
            now = time.perf_counter() - t0
            if "journal" not in seen and view.rows and view.rows[-1].field("item") == "bench-external":
                seen["journal"] = now
            if "tree" not in seen and app.catalogue is not None and app.catalogue.has(file, "bench-external"):
                seen["tree"] = now
            result = panel.last_result
            if "query" not in seen and result is not None and any(
                e.item.name == "bench-external" for e in result.items
            ):
                seen["query"] = now
            return len(seen) == 3

        try:
            await until(pilot, check, timeout=30)
        except TimeoutError:
            print(f"  external write: only {sorted(seen)} saw it within 30 s")
        for where, seconds in seen.items():
            figures[f"external write -> {where}"] = seconds

        # -- tree ----------------------------------------------------------------
        app.set_focus(None)
        await pilot.press("t")
        tree = app.query_one("#tree-view") if app.query("#tree-view") else app.query_one("Tree")
        tree.focus()
        await pilot.press("home")
        if big_file:
            # The first file is the big one: expand it, time it, fold it again.
            figures[f"tree expand {big_file:,}-item file"] = await expand(app, tree, frames)
            figures["  its children shown at once"] = len(tree.cursor_node.children) if tree.cursor_node else 0
            await pilot.press("space", "down")
        figures["tree expand 200-item file"] = await expand(app, tree, frames)
        figures["  load while expanding"] = load_avg()
        figures["tree cursor move (per key)"] = await per_key(pilot, "down", 100)
        figures["tree page down (per key)"] = await per_key(pilot, "pagedown", 20)

        # -- journal tail ------------------------------------------------------------
        app.set_focus(None)
        await pilot.press("j")
        view.focus()
        figures["journal page up (per key)"] = await per_key(pilot, "pageup", 20)
        figures["journal cursor up (per key)"] = await per_key(pilot, "up", 50)
        app.set_focus(None)
        figures["pilot no-op key (baseline)"] = await per_key(pilot, "f19", 50)
        if finish_warm_up:  # the next start is to meet what this one left (jieba's segmentation cache)
            t0 = time.perf_counter()
            await until(pilot, lambda: not warm_running(app), timeout=WAIT_FOR_ANSWER)
            figures["warm-up done after"] = time.perf_counter() - t0
    figures["app peak RSS (MB, whole process)"] = round(peak_rss_mb())
    figures["collector: longest pause"] = pauses.longest()
    figures["collector: all pauses"] = sum(took for _, took, _ in pauses.pauses)
    return figures


def bench_size(items: int, data: Path, tmp: Path, use_jieba: bool | None, big_file: int,
               second_start: bool = False) -> dict[str, float]:
    t0 = time.perf_counter()
    pristine, n_journal = app_store(data, items, big_file)
    root = tmp / f"store-{items}"
    shutil.copytree(pristine, root)  # the run writes (the external write): a fresh copy each time
    files = sum(1 for _ in (root / "wiki").glob("*.md"))
    print(f"\n## {items:,} items ({files:,} files, {n_journal:,} journal lines"
          f"{f', including {BIG_FILE} of {big_file:,} items' if big_file else ''})"
          f" — ready in {time.perf_counter() - t0:.1f} s (from {pristine}); {load_avg()} at start")
    mode = {None: "auto (jieba when importable)", False: "off (bigrams)"}[use_jieba]
    print(f"  jieba: {mode}")
    figures = asyncio.run(run(root, n_journal, use_jieba, big_file, finish_warm_up=second_start))
    if second_start:
        # A second start is a new process for a user: the first app's heap is let go of here, untimed.
        collected = time.perf_counter()
        gc.collect()
        print(f"\n  (the first start's heap collected before the second: {time.perf_counter() - collected:.1f} s, untimed)")
        print(f"\n  -- second start of the app on the same store (what the first one left cached); {load_avg()}")
        again = asyncio.run(run(root, n_journal, use_jieba, big_file))
        for name in ("first paint", "  first frame rendered", "index ready", "  answered after index ready",
                     "query after debounce p50", "query after debounce max", "  retrieve max (in worker)",
                     "  results drawn (rows -> frame) max", "collector: longest pause"):
            if name in again:
                figures[f"second start: {name.strip()}"] = again[name]
    baseline = figures.get("pilot no-op key (baseline)", 0.0)
    for name, value in figures.items():
        if "per key" in name:
            print(f"  {name:32s} net of the no-op key: {ms(max(value - baseline, 0.0)).strip()}")
    print(f"  BENCH.md goals (ratio = figure / goal; {load_avg()} now):")
    goal(f"first paint <= {GOAL_FIRST_PAINT:g} s", figures["first paint"] / GOAL_FIRST_PAINT)
    if "query after debounce max" not in figures:
        print("  query, external-write and tree goals: not measured (the app never got that far): MISS")
        return figures
    goal("query keystroke -> results <= 100 ms after the debounce (max)", figures["query after debounce max"] / GOAL_QUERY)
    if "second start: query after debounce max" in figures:
        goal("  the same, second start", figures["second start: query after debounce max"] / GOAL_QUERY)
        goal(f"  first paint, second start <= {GOAL_FIRST_PAINT:g} s", figures["second start: first paint"] / GOAL_FIRST_PAINT)
    key = f"tree expand {big_file:,}-item file"
    if key in figures:
        goal(f"{key} <= {GOAL_BIG_EXPAND * 1000:.0f} ms", figures[key] / GOAL_BIG_EXPAND)
    for where in ("journal", "query", "tree"):
        if f"external write -> {where}" in figures:
            goal(f"external write -> visible in {where} <= 1 s", figures[f"external write -> {where}"] / 1.0)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[10_000])
    parser.add_argument("--jieba", choices=["auto", "off"], default="off",
                        help="the index's tokenization (off = bigrams, what wikimem-tui does "
                             "without flags; auto = jieba when importable, like --jieba)")
    parser.add_argument("--big-file", type=int, default=5_000,
                        help="items of one extra RecallFile expanded in the tree (0: none)")
    parser.add_argument("--data", type=Path, default=Path("/tmp/wikimem-bench"),
                        help="where the synthetic stores are kept between runs (shared with bench_core)")
    parser.add_argument("--second-start", action="store_true",
                        help="after the first start, let its warm-up finish, then start "
                             "the app again on the same store and print that start's figures beside")
    parser.add_argument("--json", type=Path,
                        help="write the largest size's goal rows for bench_goals.py --app (ms; first paint in s)")
    args = parser.parse_args(argv)
    use_jieba = None if args.jieba == "auto" else False
    figures: dict[str, float] = {}
    args.data.mkdir(parents=True, exist_ok=True)
    for items in args.items:
        with tempfile.TemporaryDirectory(prefix="wikimem-bench-app-") as tmp:
            figures = bench_size(items, args.data, Path(tmp), use_jieba, args.big_file, args.second_start)
    if args.json is not None:
        key = f"tree expand {args.big_file:,}-item file"
        rows = {"app_keystroke_1m": figures.get("query after debounce max"), "app_expand_1m": figures.get(key)}
        out: dict[str, Any] = {k: round(v * 1000, 1) for k, v in rows.items() if isinstance(v, float)}
        if isinstance(figures.get("first paint"), float):
            out["app_first_paint_1m"] = round(figures["first paint"], 3)  # seconds, as the goal row
        out["items"], out["load_avg"] = args.items[-1], round(os.getloadavg()[0], 2)  # bench_goals reads the goal rows only
        args.json.write_text(json.dumps(out) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
