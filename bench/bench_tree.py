"""Tree benchmark: expanding a RecallFile of 5,000 items (issue 10: <= 200 ms).

Runs the real ``WikimemApp`` headless over a store holding one RecallFile of
``--big`` items beside a synthetic store of ``--items`` items (so the catalogue
and the index build are the size a user would have), and prints:

* expand the big file: from the key press to the first chunk painted, with the
  index build running meanwhile (the loaded case) and once it is done (idle);
* the same expansion with the filter on (every item matches the filter text);
* a no-op key as the baseline (``Pilot.press`` waits for the screen to settle,
  so every figure is also printed net of it);
* "more…": loading the next chunk.

Figures only, no assertions (shared machine: absolute times drift; compare
the ratio to the baseline measured in the same run).
``python bench/bench_tree.py --items 100000 --big 5000``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import generate  # noqa: E402

from wikimem import MemoryIndex, MemoryStore  # noqa: E402
from wikimem_tui.app import WikimemApp  # noqa: E402
from wikimem_tui.core.backend import Backend  # noqa: E402
from wikimem_tui.tree.topic_tree import TopicTree  # noqa: E402

SIZE = (120, 40)
BIG = "aaa_big"  # sorts first: the tree's first node


def write_big_file(root: Path, n: int) -> None:
    """One RecallFile of ``n`` items, written as one file (the store's add is per item)."""
    wiki = root / "wiki"
    wiki.mkdir(parents=True, exist_ok=True)
    blocks = [f"## item {i:05d}\n\nbench content {i} about the sea and coffee\n" for i in range(n)]
    (wiki / f"{BIG}.md").write_text(f"# {BIG}\n\n" + "\n".join(blocks), encoding="utf-8")


async def until(cond: Callable[[], bool], timeout: float = 120.0) -> float:
    start = time.perf_counter()
    while not cond():
        if time.perf_counter() - start > timeout:
            raise TimeoutError("condition not reached")
        await asyncio.sleep(0.001)
    return time.perf_counter() - start


async def press_ms(pilot: Any, key: str) -> float:
    t0 = time.perf_counter()
    await pilot.press(key)
    return (time.perf_counter() - t0) * 1000


async def measure(root: Path) -> dict[str, float]:
    store = MemoryStore(root)
    backend = Backend(root=root, store=store, index=MemoryIndex(store, use_jieba=False), owner="bench")
    app = WikimemApp(backend, config=Path("/nonexistent"), watch=False, cursor_blink=False)
    figures: dict[str, float] = {}
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.catalogue is not None)
        tree = app.query_one(TopicTree)
        inner = tree.node_tree
        inner.focus()
        big = next(n for n in inner.root.children if n.data and n.data.file == BIG)

        async def expand_once(label: str) -> None:
            inner.move_cursor(big)
            if big.is_expanded:
                await pilot.press("enter")  # collapse first
            figures[label] = await press_ms(pilot, "enter")
            assert big.is_expanded and len(big.children) > 0

        figures["baseline no-op key (ms)"] = statistics.median([await press_ms(pilot, "f24") for _ in range(5)])
        loaded = not app.index_ready
        await expand_once("expand 5k file, index building (ms)" if loaded else "expand 5k file (ms)")
        await until(lambda: app.index_ready, 600)
        await pilot.pause(0.5)
        runs = []
        for _ in range(5):
            await expand_once("expand 5k file, idle (ms)")
            runs.append(figures["expand 5k file, idle (ms)"])
        figures["expand 5k file, idle (ms)"] = statistics.median(runs)
        more = big.children[-1]
        inner.move_cursor(more)
        figures["next chunk via more… (ms)"] = await press_ms(pilot, "enter")
        tree.query_one("#tree-filter").focus()
        t0 = time.perf_counter()
        for ch in "item":
            await pilot.press(ch)
        await until(lambda: tree.filter_text == "item")
        await pilot.pause()
        figures["filter 'item' matching every big-file item (ms, incl. typing)"] = (time.perf_counter() - t0) * 1000
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=20000, help="synthetic items beside the big file")
    parser.add_argument("--big", type=int, default=5000, help="items in the big RecallFile")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        if args.items:
            generate(root, args.items)
        write_big_file(root, args.big)
        figures = asyncio.run(measure(root))
    base = figures["baseline no-op key (ms)"]
    print(f"tree bench: {args.items} synthetic items + one RecallFile of {args.big} items, {SIZE[0]}x{SIZE[1]}")
    for name, ms in figures.items():
        extra = "" if name.startswith("baseline") else f"   net of baseline {ms - base:8.1f} ms"
        goal = "   goal <= 200 ms: " + ("ok" if ms - base <= 200 else "MISS") if name.startswith("expand") else ""
        print(f"  {name:<62} {ms:8.1f}{extra}{goal}")


if __name__ == "__main__":
    main()
