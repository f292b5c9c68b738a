"""MCP recall round trip: ``wikimem mcp`` over stdio vs the in-process ``retrieve()``, same store, same run.

What an agent pays per ``recall`` is the index query plus the protocol: the
SDK client encodes the call, the server process decodes it, runs it in a
worker thread, renders the agent text and the rows, and both sides
(de)serialize JSON. This bench measures that round trip with the SDK's own
client against a real server process, the server warm (its index built by
a first call and every query term used once), beside the in-process figure
for the very same calls (``MemoryIndex.retrieve`` + ``agent_text`` +
``agent_rows``, warm too) on the same synthetic store (``bench/synth.py``),
so the ratio is the protocol's cost whatever the machine's load. Absolute
times drift on a shared machine; the ratio is the figure to compare.

Printed per size: the server's cold start (process spawn to first answer,
index build included), the round-trip p50/p90 over the query sample, the
in-process p50/p90, and their ratio.

    python bench/bench_mcp.py                  # 10k items
    python bench/bench_mcp.py --sizes 10000,100000
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import synth  # noqa: E402

from wikimem import MemoryIndex, MemoryStore, agent_rows, agent_text  # noqa: E402

QUERIES = 40
ROUNDS = 3


def sample_queries(root: Path, n: int, seed: int = 7) -> list[str]:
    """The start of ``n`` items picked at random -- two English words, or four Chinese characters
    (Chinese has no spaces: a "word" would be a whole sentence) -- queries that hit, like an agent's."""
    store = MemoryStore(root)
    rng = random.Random(seed)
    files = store.files()
    out: list[str] = []
    while len(out) < n:
        content = rng.choice(store.items(rng.choice(files))).content
        out.append(content[:4] if ord(content[0]) >= 0x2E80 else " ".join(content.split()[:2]))
    return out


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


def in_process(root: Path, queries: list[str]) -> list[float]:
    index = MemoryIndex(MemoryStore(root))
    for query in queries:  # warm: built, every term's postings materialized
        index.retrieve(query, budget_tokens=800)
    times = []
    for _ in range(ROUNDS):
        for query in queries:
            start = time.perf_counter()
            result = index.retrieve(query, budget_tokens=800)
            agent_text(result), agent_rows(result)
            times.append(time.perf_counter() - start)
    return times


async def over_stdio(root: Path, queries: list[str], env: dict[str, str] | None = None,
                     at_first: Callable[[], None] | None = None) -> tuple[float, list[float]]:
    """Spawn -> first answer, then the warm round trips; ``env``: the server's (its PYTHONPATH: whose ``wikimem``).

    ``at_first`` runs once the first answer is in, the server still up.
    """
    from mcp import Client, StdioServerParameters

    env = env or {**os.environ, "PYTHONPATH": str(HERE.parent)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "wikimem", "-s", str(root), "mcp"],
                                   env=env, cwd=env["PYTHONPATH"])  # -m puts the cwd before PYTHONPATH
    start = time.perf_counter()
    async with Client(params, read_timeout_seconds=600) as client:
        await client.call_tool("recall", {"query": queries[0]})
        cold = time.perf_counter() - start
        if at_first is not None:
            at_first()
        for query in queries:
            await client.call_tool("recall", {"query": query})
        times = []
        for _ in range(ROUNDS):
            for query in queries:
                start = time.perf_counter()
                result = await client.call_tool("recall", {"query": query})
                times.append(time.perf_counter() - start)
                assert not result.is_error, getattr(result.content[0], "text", "")
    return cold, times


def run_size(items: int) -> dict[str, Any]:
    import anyio

    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp:
        root = Path(tmp) / "memory"
        synth.generate(root, items)
        queries = sample_queries(root, QUERIES)
        local = in_process(root, queries)
        cold, remote = anyio.run(over_stdio, root, queries)
    return {"items": items, "cold": cold, "local": local, "remote": remote}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000", help="comma-separated item counts (default 10000)")
    args = parser.parse_args(argv)
    print(f"recall round trip over stdio vs in-process retrieve(), {QUERIES} queries x {ROUNDS}, budget 800")
    print(f"{'items':>8}  {'cold start':>10}  {'stdio p50':>9}  {'p90':>7}  {'in-proc p50':>11}  {'p90':>7}  "
          f"{'ratio p50':>9}")
    for size in (int(s) for s in args.sizes.split(",")):
        row = run_size(size)
        remote, local = row["remote"], row["local"]
        r50, l50 = statistics.median(remote), statistics.median(local)
        print(f"{size:>8}  {row['cold']:>9.2f}s  {r50 * 1e3:>7.2f}ms  {percentile(remote, 0.9) * 1e3:>5.2f}ms  "
              f"{l50 * 1e3:>9.2f}ms  {percentile(local, 0.9) * 1e3:>5.2f}ms  {r50 / l50:>8.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
