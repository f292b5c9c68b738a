"""Retrieval-core benchmark: wikimem's BM25 index against references, same data, same run.

Every figure is a ratio against a reference measured in the same process on
the same synthetic store (``bench/synth.py``) and the same bigram tokens,
because absolute times drift on shared machines (see BENCH.md):

* cold load: ``MemoryIndex.build()`` vs a straightforward build (read every
  item through the store, ``tokenize()`` each, one ``Counter`` per document,
  a df ``Counter``) implemented here; the jieba build at <= 10k items too;
* query p50, top 10: the index's search vs a pure-Python BM25 that scores
  every document (same formula), plus rank_bm25 / bm25s when installed;
  the full ``retrieve()`` (links, budget bookkeeping) is reported too.
  Ours is reported twice: the first use of the query terms (cold: postings
  are materialized then) and the same queries repeated; the references
  have no per-term state, so one figure each;
* growth of the query p50 from the smallest to the largest size;
* one ``store.add()`` then a query, and an out-of-band edit + ``refresh()``
  + query, vs the reference's full rebuild;
* ``warm()``: its duration, the first-use query p50 after it, and memory;
* peak traced memory (tracemalloc) of each build (peak RSS per size, in a
  fresh process, is ``bench/bench_scale.py``'s).

Fair by construction: every engine answers the same queries (the same
sample at every size), every engine whose answer is a score per document
gets the same top-k step (``reference_bm25.top_k``), and every build runs with the
cyclic GC paused (``MemoryIndex.build()`` pauses it itself, so the
references are built inside :func:`~wikimem.disk.loader.gc_paused` too). Every
BENCH.md goal is printed with its ratio and ``MISS`` where it misses.

The reference engines are ``reference_bm25.py``, the probes ``measure.py``,
the printout and the goals ``core_report.py``; the stores are
``synth.ensure_store``'s.

    python bench/bench_core.py            # 1k and 10k
    python bench/bench_core.py --full     # adds 100k (minutes)
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import synth  # noqa: E402
from core_report import report  # noqa: E402
from measure import held_mb, p50, peak_mb, timed  # noqa: E402
from reference_bm25 import Reference, optional_engines, toks  # noqa: E402
from synth import ensure_store  # noqa: E402

from wikimem.disk.loader import gc_paused  # noqa: E402
from wikimem.retrieval import MemoryIndex  # noqa: E402
from wikimem.store import MemoryStore  # noqa: E402
from wikimem.tokenize import jieba_available  # noqa: E402


def make_queries(store: MemoryStore, count: int, seed: int) -> list[str]:
    """Short phrases cut from random items: a few words, as a user would type."""
    rng = random.Random(seed)
    items = store.items()
    out = []
    for _ in range(count):
        text = items[rng.randrange(len(items))].content.split("[[")[0]
        if text.isascii():
            words = text.split()
            i = rng.randrange(max(1, len(words) - 3))
            out.append(" ".join(words[i : i + rng.randint(1, 3)]))
        else:
            i = rng.randrange(max(1, len(text) - 8))
            out.append(text[i : i + rng.randint(3, 8)])
    return out


def bench_size(root: Path, n_queries: int, memory: bool) -> dict[str, float]:
    store = MemoryStore(root)
    out: dict[str, float] = {}
    # Best of two, alternating, so neither side pays the warm-up alone; the
    # reference is built with the GC paused, as MemoryIndex.build() is.
    cold_ours, cold_ref = [], []
    for _ in range(2):
        index = MemoryIndex(store, use_jieba=False)
        cold_ours.append(timed(index.build)[0])
        ref = None
        gc.collect()
        with gc_paused():
            seconds, ref = timed(lambda: Reference(store))
        cold_ref.append(seconds)
    out["cold_ours"], out["cold_ref"] = min(cold_ours), min(cold_ref)
    # One query set for every engine (the score-everything ones are slow,
    # so the set is kept small enough for them at 100k).
    queries = make_queries(store, n_queries, seed=7)
    search = index.indexed().corpus.index.search  # the core, without the pipeline around it

    def core(q: str) -> Any:
        return search(Counter(toks(q)), 10)

    out["first_pass_ours"] = p50(core, queries)  # cold: each term's postings materialize on first use
    out["query_ours"] = p50(core, queries)  # repeated: the same queries again
    out.update(bench_warm(store, queries))
    out["retrieve_ours"] = p50(lambda q: index.retrieve(q), queries)
    out["query_ref"] = p50(ref.search, queries)
    agree = sum([d for d, _ in core(q)] == [d for d, _ in ref.search(q)] for q in queries[:10])
    out["agree_top10_of_10"] = agree
    for name, engine in optional_engines(ref).items():
        out[f"query_{name}"] = p50(engine, queries)
    out.update(bench_writes(store, index, queries))
    if len(store.files()) * synth.ITEMS_PER_FILE <= 10_000 and jieba_available():
        # jieba's cost made visible: first build pays its import + dictionary.
        out["cold_jieba_first"] = timed(MemoryIndex(store, use_jieba=True).build)[0]
        out["cold_jieba"] = timed(MemoryIndex(store, use_jieba=True).build)[0]
    if memory:
        del ref
        out["mem_ours"] = peak_mb(lambda: _built(store))
        out["mem_warm_peak"] = peak_mb(lambda: _built(store, warm=True))
        out["mem_warm_held"] = held_mb(lambda: _built(store, warm=True))
        out["mem_ref"] = peak_mb(_reference_paused(store))
    return out


def _reference_paused(store: MemoryStore) -> Callable[[], Reference]:
    def build() -> Reference:
        with gc_paused():
            return Reference(store)

    return build


def bench_warm(store: MemoryStore, queries: list[str]) -> dict[str, float]:
    """warm() on a fresh index, then the first pass of the same queries (terms never queried)."""
    index = _built(store)
    seconds, _ = timed(index.warm)
    search = index.indexed().corpus.index.search
    first = p50(lambda q: search(Counter(toks(q)), 10), queries)
    return {"warm_seconds": seconds, "first_pass_after_warm": first}


def _built(store: MemoryStore, warm: bool = False) -> MemoryIndex:
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    if warm:
        index.warm()
    return index


def bench_writes(store: MemoryStore, index: MemoryIndex, queries: list[str]) -> dict[str, float]:
    file = store.files()[len(store.files()) // 2]
    adds, tails, edits, writes, updates = [], [], [], [], []
    try:
        for i in range(10):
            q = queries[i % len(queries)]
            write, _ = timed(lambda: store.add(file, f"bench-new-{i}", f"{q} 新增的记忆 {i}"))
            update, _ = timed(lambda: index.retrieve(q))  # applies the write to the index, then answers
            tail, _ = timed(lambda: index.retrieve(q))
            adds.append(write + update)
            updates.append(update)
            tails.append(tail)
            writes.append(write)
            hits = index.retrieve(f"新增的记忆 {i}", limit=20).items
            assert any(e.item.name == f"bench-new-{i}" for e in hits)
    finally:
        for i in range(10):
            store.remove(file, f"bench-new-{i}")
    path = store.file_path(file)
    original = path.read_bytes()
    index.retrieve("flush")  # apply the cleanup writes above first
    reread: set[str] = set()
    per_edit: list[int] = []
    read_file = store.file_items
    store.file_items = lambda f: (reread.add(f), read_file(f))[1]  # type: ignore[method-assign]
    try:
        for i in range(5):
            reread.clear()
            with path.open("a", encoding="utf-8") as fh:
                fh.write(f"\n## external-{i}\n\nexternal edit 外部编辑 number{i}\n")
            total, _ = timed(lambda: (index.refresh(), index.retrieve(f"number{i}")))
            edits.append(total)
            per_edit.append(len(reread))
            assert index.retrieve(f"number{i}").items[0].item.name == f"external-{i}"
    finally:
        del store.file_items
        path.write_bytes(original)
        index.refresh()
    return {
        "files_reread_per_edit": max(per_edit),
        "add_query_ours": statistics.median(adds),
        "query_after_add_ours": statistics.median(tails),
        "store_add_alone": statistics.median(writes),
        "index_part_of_add_query": statistics.median(updates),
        "edit_refresh_query_ours": statistics.median(edits),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also run 100k items")
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated item counts")
    parser.add_argument("--data", type=Path, default=Path("/tmp/wikimem-bench"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--queries", type=int, default=30, help="queries per engine (the same set for all)")
    parser.add_argument("--no-memory", action="store_true", help="skip tracemalloc (slow)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.full and 100_000 not in sizes:
        sizes.append(100_000)
    results = {}
    for n in sizes:
        root = ensure_store(args.data, n, args.seed)
        print(f"... {n:,d} items", file=sys.stderr)
        results[n] = bench_size(root, args.queries, not args.no_memory)
    report(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
