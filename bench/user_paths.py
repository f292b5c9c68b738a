"""The paths users run (BENCH.md "The paths users run"): a hook's cold recall, an MCP server's first answer, the diary.

Why apart from the index figures: a user installs ``wikimem[all]``, so
jieba is picked up automatically, a prompt hook starts a fresh
``wikimem recall`` process per prompt, an agent talks to a ``wikimem mcp``
process it has just spawned, and agents write the diary. Each function here
measures one of those paths from outside, as a user's tooling meets it, and
takes ``tree`` (a directory holding another checkout's ``wikimem`` package)
so the previous code runs on the same data in the same run.

The bigram path is what a user without the ``zh`` extra gets: the child
runs with ``WIKIMEM_JIEBA=0`` (the library's documented switch) and starts
with ``jieba`` marked absent (``sys.modules["jieba"] = None``, so
``find_spec`` says no and ``import jieba`` fails), which also holds for an
older checkout that predates the switch. ``WIKIMEM_BENCH_BIGRAM=1`` in the
environment asks :func:`cold_recall` for that path when the caller passes
no ``bigram``. Jieba's segmentation cache is kept per user
(``XDG_CACHE_HOME``): :func:`cold_recall` takes the cache directory, so a
caller times a first-ever run and a repeat (what a hook meets from its
second prompt on) on a cache of its own.

    python bench/user_paths.py --store DIR                 # cold recall, both paths
    python bench/user_paths.py --store DIR --mcp --diary 100000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from measure import child_json  # noqa: E402

#: Runs ``python -m wikimem`` with jieba marked absent: the argv after ``-c CODE`` is the CLI's.
_WITHOUT_JIEBA = ("import runpy, sys; sys.modules['jieba'] = None; "
                  "runpy.run_module('wikimem', run_name='__main__', alter_sys=True)")
#: A prompt as a hook passes it: Chinese and English words from the synthetic vocabularies.
HOOK_QUERY_INDEX = 9


def _env(tree: Path | None, cache: Path | None = None) -> dict[str, str]:
    """The child's environment: ``tree``'s wikimem (or this checkout's) first on the path, ``cache`` as XDG_CACHE_HOME."""
    env = {k: v for k, v in os.environ.items() if k not in ("WIKIMEM_BENCH_TREE", "WIKIMEM_BENCH_BIGRAM")}
    env["PYTHONPATH"] = str(tree or ROOT)
    if cache is not None:
        env["XDG_CACHE_HOME"] = str(cache)
    return env


def jieba_installed() -> bool:
    """Whether this interpreter has the ``zh`` extra (jieba importable): the path a user with it gets."""
    from wikimem.tokenize import resolve_jieba  # noqa: PLC0415

    return resolve_jieba(None)


def wikimem_argv(args: list[str], *, bigram: bool) -> list[str]:
    """``python -m wikimem ARGS`` as a fresh interpreter; ``bigram`` hides jieba from it."""
    head = [sys.executable, "-c", _WITHOUT_JIEBA] if bigram else [sys.executable, "-m", "wikimem"]
    return head + args


def recall_argv(root: Path, query: str, *, bigram: bool) -> list[str]:
    """The command a prompt hook runs."""
    return wikimem_argv(["-s", str(root), "recall", query], bigram=bigram)


def cold_recall(root: Path, query: str, *, bigram: bool | None = None, tree: Path | None = None,
                cache: Path | None = None) -> dict[str, Any]:
    """One cold ``wikimem recall`` in a fresh process: its CPU seconds (user + system), wall time, tokenizer.

    CPU, not wall time, is the figure: on a shared machine wall time is
    mostly other people's load, while the process's own CPU is what a
    hook's timeout and a laptop's battery pay.
    """
    if bigram is None:
        bigram = os.environ.get("WIKIMEM_BENCH_BIGRAM", "") not in ("", "0")
    env = _env(tree, cache)
    if bigram:
        env["WIKIMEM_JIEBA"] = "0"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # cwd: ``-m``/``-c`` put the working directory first on sys.path, before PYTHONPATH
    done = subprocess.run(recall_argv(root, query, bigram=bigram), capture_output=True, text=True, env=env,
                          cwd=tree or ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"wikimem recall failed ({done.returncode}):\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    tokenizer = "bigrams" if bigram or not jieba_installed() else "jieba"
    return {"cpu_s": cpu, "wall_s": wall, "tokenizer": tokenizer, "chars": len(done.stdout)}


def mcp_first_recall(root: Path, query: str, tree: Path | None = None, cache: Path | None = None, *,
                     processes: int | None = None) -> dict[str, Any]:
    """A real ``wikimem mcp`` stdio process spawned by the SDK client: spawn -> first ``recall`` answered.

    ``cache``: the XDG cache directory the server finds (jieba's segmentation
    of the store, kept per user, as an earlier hook or session left it).
    ``processes``: ``WIKIMEM_MCP_PROCESSES`` for the server (1: the index in
    the MCP process itself; None: the server's default). ``session_cpu_s``:
    the CPU of the whole session, every process of the server, start to exit
    (what a second process adds; the first answer's wall time is the goal);
    ``first_cpu_s``: each server process's CPU up to the first answer
    (:func:`_server_cpu`), the figure a loaded machine's wall time hides.
    """
    import anyio  # noqa: PLC0415
    from bench_mcp import over_stdio  # noqa: PLC0415

    env = _env(tree, cache)
    env.pop("WIKIMEM_MCP_PROCESSES", None)
    if processes is not None:
        env["WIKIMEM_MCP_PROCESSES"] = str(processes)
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    at_first: list[float] = []
    first, _ = anyio.run(over_stdio, root, [query], env, lambda: at_first.extend(_server_cpu()))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"first_s": first, "session_cpu_s": cpu, "first_cpu_s": at_first, "load_avg": load,
            "tokenizer": "jieba" if jieba_installed() else "bigrams", "processes": processes}


def _server_cpu() -> list[float]:
    """CPU seconds so far of each process of the server (this process's children, then theirs); Linux only.

    Taken at the first answer, every process idle: the MCP process's and
    the memory process's share of it. With a core each, the first answer
    waits for the larger; on one core, for their sum. Where ``/proc`` is
    missing, nothing.
    """
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    server = [pid for pid, (ppid, _) in stats.items() if ppid == os.getpid()]
    family = server + [pid for pid, (ppid, _) in stats.items() if ppid in server]
    return [stats[pid][1] for pid in family]


def diary_recall(entries: int, tree: Path | None = None, per_day: int = 50) -> dict[str, Any]:
    """Diary-wide recall over ``entries`` diary entries (``bench_diary.measure``), in a fresh process."""
    env = _env(tree)
    if tree is not None:
        env["WIKIMEM_BENCH_TREE"] = str(tree)
    argv = [sys.executable, __file__, "--diary-child", str(entries), "--per-day", str(per_day)]
    result: dict[str, Any] = child_json(argv, env, "diary child")
    return result


def _diary_child(entries: int, per_day: int) -> dict[str, Any]:
    if os.environ.get("WIKIMEM_BENCH_TREE"):  # that checkout's wikimem before any bench module imports it
        sys.path.insert(0, os.environ["WIKIMEM_BENCH_TREE"])
    import wikimem  # noqa: PLC0415, F401

    sys.path.insert(0, str(ROOT / "bench"))
    from bench_diary import measure  # noqa: PLC0415

    return measure(entries, per_day)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="a store directory (e.g. bench/synth.py's output)")
    parser.add_argument("--mcp", action="store_true", help="also spawn wikimem mcp and time the first recall")
    parser.add_argument("--diary", type=int, metavar="ENTRIES", help="also the diary-wide recall at ENTRIES entries")
    parser.add_argument("--per-day", type=int, default=50)
    parser.add_argument("--diary-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.diary_child is not None:
        print(json.dumps(_diary_child(args.diary_child, args.per_day)))
        return 0
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_scale import fixed_queries  # noqa: PLC0415

    query = fixed_queries()[HOOK_QUERY_INDEX]
    if args.store is not None:
        for bigram in (False, True):
            print(json.dumps(cold_recall(args.store, query, bigram=bigram)))
        if args.mcp:
            print(json.dumps(mcp_first_recall(args.store, query)))
    if args.diary:
        print(json.dumps(diary_recall(args.diary, per_day=args.per_day)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
