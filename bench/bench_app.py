"""App benchmark: the four figures BENCH.md holds the terminal app to.

Runs the real ``WikimemApp`` headless (``App.run_test``) over a synthetic
store from ``bench/synth.py`` plus a journal with one line per item, and
prints, per store size:

* launch → first paint (``run_test`` returns once the first screen is up),
  the first frame rendered (before that: the hidden panes mount after it),
  and launch → index ready (the index builds in a worker meanwhile);
* with ``--second-start``: the first start waits for its warm-up to write
  the derived caches, and a second start on the same store prints its
  first paint, index ready and keystroke figures beside (what a user sees
  from the second launch on; the first start's figures are the worst case);
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

Stores: the synthetic store is ``bench_core.ensure_store``'s (reused from
``--data``, default ``/tmp/wikimem-bench``, generated there once), the big
file and the journal are added once to a copy under ``--data``
(``app-store-N-1-bigB``), and every run works on a fresh copy of that (the
run writes to it: the external write, the postings cache), so a run never
sees another's leftovers.

Absolute times drift on shared machines; this prints figures and asserts
nothing, and prints each BENCH.md goal with its ratio and MISS where it
misses. ``python bench/bench_app.py --items 10000 100000 1000000``.
"""

from __future__ import annotations

import argparse
import asyncio
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

from goals import goal  # noqa: E402
from synth import Generator, _block, _write  # noqa: E402
from textual import events  # noqa: E402
from textual.keys import _character_to_key  # noqa: E402

from wikimem import MemoryIndex, MemoryStore  # noqa: E402
from wikimem_tui.app import WikimemApp  # noqa: E402
from wikimem_tui.core.backend import Backend  # noqa: E402
from wikimem_tui.journal.journal_tail import JournalView  # noqa: E402
from wikimem_tui.query.query_panel import DEBOUNCE_SECONDS, QueryPanel  # noqa: E402

SIZE = (120, 40)
BIG_FILE = "aaa_big"
GOAL_FIRST_PAINT = 1.0
GOAL_BIG_EXPAND = 0.200
GOAL_QUERY = 0.100
#: How long a query typed during the build may wait before the figure says "not answered".
WAIT_FOR_ANSWER = 300.0


def write_big_file(root: Path, items: int, seed: int = 2) -> None:
    """One RecallFile of ``items`` items, in the store's block format (as synth writes them)."""
    gen = Generator(seed)
    blocks = [_block(f"big-{i}", gen.text(gen.rng.random() < 0.6), None) for i in range(items)]
    _write(root / "wiki" / f"{BIG_FILE}.md", BIG_FILE, blocks)


def write_journal(root: Path, store: MemoryStore) -> int:
    """One ``add`` line per item, the way an agent's store would have grown."""
    lines = []
    for n, item in enumerate(store.items()):
        ts = f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}+00:00"
        row = {"ts": ts, "action": "add", "file": item.file, "item": item.name, "owner": "agent"}
        lines.append(json.dumps(row, ensure_ascii=False))
    (root / "journal.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def sample_queries(store: MemoryStore) -> list[str]:
    """A few queries made of words that are really in the store."""
    items = store.items(store.files()[0])[:40]
    latin = [w for item in items for w in item.content.split() if w.isascii() and w.isalpha()]
    cjk = [item.content[:2] for item in items if not item.content[:1].isascii()]
    return [q for q in (latin[:1] + latin[5:6] + cjk[:1] + cjk[3:4] + [" ".join(latin[1:3])]) if q]


async def until(pilot: Any, cond: Callable[[], bool], timeout: float = 120.0) -> float:
    """Seconds until ``cond()`` holds, polling every millisecond."""
    start = time.perf_counter()
    while not cond():
        if time.perf_counter() - start > timeout:
            raise TimeoutError("condition not reached")
        await asyncio.sleep(0.001)  # not pilot.pause: that also waits for a repaint
    return time.perf_counter() - start


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def load_avg() -> str:
    """The 1-minute load average, printed beside the figures it may have inflated."""
    return f"load avg {os.getloadavg()[0]:.1f}"


class Frames:
    """The frames the compositor renders (``App._display``), and the first one showing a condition.

    A headless run renders every frame as a real one does and hands it to
    ``_display`` (which then writes nothing), so the time of the first call
    after which ``cond()`` holds is when the user would see the change.
    """

    def __init__(self, app: Any) -> None:
        self._cond: Callable[[], bool] | None = None
        self.seen_at: float | None = None
        self.first_at: float | None = None
        """When the very first frame was rendered (what a user launching the app sees first)."""
        display = app._display

        def recorded(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if renderable is not None and self.first_at is None:
                self.first_at = time.perf_counter()
            if renderable is not None and self._cond is not None and self.seen_at is None and self._cond():
                self.seen_at = time.perf_counter()

        app._display = recorded

    async def shown(self, cond: Callable[[], bool], timeout: float = 120.0) -> float:
        """The ``perf_counter`` time of the first frame rendered while ``cond()`` holds."""
        self._cond, self.seen_at = cond, None
        try:
            await until(None, lambda: self.seen_at is not None, timeout)
        finally:
            self._cond = None
        assert self.seen_at is not None
        return self.seen_at


def warm_running(app: Any) -> bool:
    """Whether the index warm-up worker (StoreSync's group ``warm``) is still running."""
    from textual.worker import WorkerState  # noqa: PLC0415

    return any(w.group == "warm" and w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers)


def send_key(app: Any, key: str, character: str | None = None) -> None:
    """One key event into the app, as the terminal driver sends it; no waiting (``Pilot.press`` waits for idle)."""
    if character is None and len(key) == 1:
        character, key = key, _character_to_key(key)
    event = events.Key(key, character)
    event.set_sender(app)
    app._driver.send_message(event)


class QueryTimes:
    """When each query's answer left the worker and when the panel took it (by sequence number)."""

    def __init__(self, panel: QueryPanel) -> None:
        self.posted: dict[int, float] = {}
        self.showing: dict[int, float] = {}
        """When the panel started putting each answer on screen (the table's rows, the summary)."""
        self.shown_seq = -1
        post, show = panel.post_message, panel._show

        def posted(message: Any) -> bool:
            if isinstance(message, QueryPanel.Results):
                self.posted[message.seq] = time.perf_counter()
            return post(message)

        def shown(result: Any) -> None:
            self.showing[panel.runner.seq] = time.perf_counter()
            show(result)
            self.shown_seq = panel.runner.seq

        panel.post_message = posted  # type: ignore[method-assign]
        panel._show = shown  # type: ignore[method-assign]


async def per_key(pilot: Any, key: str, times: int) -> float:
    """Seconds per key press, the press waiting for the screen to repaint (as Pilot does)."""
    t0 = time.perf_counter()
    await pilot.press(*[key] * times)
    return (time.perf_counter() - t0) / times


async def query_while_building(app: Any, pilot: Any, store: MemoryStore, started: float) -> dict[str, Any]:
    """Type a query right after the first paint: what does the app say until the index is ready?"""
    out: dict[str, Any] = {}
    if app.index_ready:
        out["query during build"] = "index was ready at first paint"
        return out
    status_line = app.query_one("#status")
    progress_seen: list[str] = []

    def progress_shown() -> bool:
        text = str(status_line.render())
        if "%" in text and text not in progress_seen:
            progress_seen.append(text)
        return False

    app.set_focus(None)
    await pilot.press("slash")
    panel = app.query_one(QueryPanel)
    field = app.query_one("#query-input")
    query = sample_queries(store)[0]
    t0 = time.perf_counter()
    field.value = query
    said: list[str] = []
    ready_at: list[float] = []

    def answered() -> bool:
        progress_shown()
        if app.index_ready and not ready_at:
            ready_at.append(time.perf_counter() - started)
        text = str(panel.query_one("#query-status").render())
        if text and (not said or said[-1] != text):
            said.append(text)
        return panel.last_result is not None

    try:
        await until(pilot, answered, timeout=WAIT_FOR_ANSWER)
        answered_at = time.perf_counter() - started
        out["query typed during build: answered after"] = time.perf_counter() - t0
    except TimeoutError:
        answered_at = None
        out["query typed during build: answered after"] = f"not within {WAIT_FOR_ANSWER:.0f} s"
    if ready_at:
        out["index ready"] = ready_at[0]
        if answered_at is not None:  # what the query waited for beyond the build itself
            out["  answered after index ready"] = answered_at - ready_at[0]
    out["  query pane said meanwhile"] = " | ".join(said[:3]) or "-"
    out["  status line showed progress"] = f"{len(progress_seen)} distinct % updates" if progress_seen else "no"
    field.value = ""
    await pilot.pause(DEBOUNCE_SECONDS + 0.1)
    app.set_focus(None)
    return out


class Figures(dict):  # type: ignore[type-arg]
    """Figures printed as they are measured, so a later stall or timeout loses none."""

    def __setitem__(self, name: str, value: Any) -> None:
        super().__setitem__(name, value)
        print(f"  {name:32s} {ms(value) if isinstance(value, float) else value}", flush=True)


async def run(root: Path, n_journal: int, use_jieba: bool | None, big_file: int = 0, *,
              finish_warm_up: bool = False) -> dict[str, Any]:
    """One app start over ``root``; ``finish_warm_up``: before quitting, let the warm-up write its caches."""
    figures: dict[str, Any] = Figures()
    started = time.perf_counter()
    store = MemoryStore(root)
    index = MemoryIndex(store, use_jieba=use_jieba)  # as wikimem-tui's __main__ builds it (bigrams unless --jieba)
    backend = Backend(root=root, store=store, index=index, owner="bench", use_jieba=use_jieba)
    app = WikimemApp(backend, cursor_blink=False)
    frames = Frames(app)  # before the run: the first frame is timed too
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
            figures["app peak RSS (MB, whole process)"] = round(_peak_rss_mb())
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
        latencies, retrieve_ms, loop_waits, draws = [], [], [], []
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
        if finish_warm_up:  # the next start is to find the caches this one's warm-up writes
            t0 = time.perf_counter()
            await until(pilot, lambda: not warm_running(app), timeout=WAIT_FOR_ANSWER)
            figures["warm-up done (caches written) after"] = time.perf_counter() - t0
    figures["app peak RSS (MB, whole process)"] = round(_peak_rss_mb())
    return figures


async def expand(app: Any, tree: Any, frames: Frames) -> float:
    """Seconds from a space on the cursor's (folded) file to the first frame showing its children."""
    await until(None, lambda: tree.cursor_node is not None)
    node = tree.cursor_node
    t0 = time.perf_counter()
    send_key(app, "space", " ")
    return await frames.shown(lambda: node.is_expanded and len(node.children) > 0) - t0


def _peak_rss_mb() -> float:
    """Peak RSS of this process (the app runs in it) from getrusage, in MB."""
    import resource  # noqa: PLC0415

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def app_store(data: Path, items: int, big_file: int) -> tuple[Path, int]:
    """The synthetic store plus the big file and the journal, made once under ``data``; its journal's lines."""
    from bench_core import ensure_store  # noqa: PLC0415 (bench_core imports the reference engines)

    root = data / f"app-store-{items}-1-big{big_file}"
    marker = root / ".complete"
    if not marker.exists():
        if root.exists():
            shutil.rmtree(root)  # a run killed half-way
        shutil.copytree(ensure_store(data, items, seed=1), root)
        if big_file:
            write_big_file(root, big_file)
        marker.write_text(str(write_journal(root, MemoryStore(root))))
    return root, int(marker.read_text())


def bench_size(items: int, data: Path, tmp: Path, use_jieba: bool | None, big_file: int,
               second_start: bool = False) -> dict[str, float]:
    t0 = time.perf_counter()
    pristine, n_journal = app_store(data, items, big_file)
    root = tmp / f"store-{items}"
    shutil.copytree(pristine, root)  # the run writes (the external write, the postings cache): a fresh copy each time
    files = sum(1 for _ in (root / "wiki").glob("*.md"))
    print(f"\n## {items:,} items ({files:,} files, {n_journal:,} journal lines"
          f"{f', including {BIG_FILE} of {big_file:,} items' if big_file else ''})"
          f" — ready in {time.perf_counter() - t0:.1f} s (from {pristine}); {load_avg()} at start")
    mode = {None: "auto (jieba when importable)", False: "off (bigrams)"}[use_jieba]
    print(f"  jieba: {mode}")
    figures = asyncio.run(run(root, n_journal, use_jieba, big_file, finish_warm_up=second_start))
    if second_start:
        print(f"\n  -- second start of the app on the same store (the first one's caches present); {load_avg()}")
        again = asyncio.run(run(root, n_journal, use_jieba, big_file))
        for name in ("first paint", "  first frame rendered", "index ready", "query after debounce p50",
                     "query after debounce max", "  retrieve max (in worker)"):
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
        goal("  the same, second start (caches present)", figures["second start: query after debounce max"] / GOAL_QUERY)
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
                        help="after the first start, let its warm-up finish writing the caches, then start "
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
