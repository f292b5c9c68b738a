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
gets the same top-k step (:func:`top_k`), and every build runs with the
cyclic GC paused (``MemoryIndex.build()`` pauses it itself, so the
references are built inside :func:`~wikimem.disk.loader.gc_paused` too). Every
BENCH.md goal is printed with its ratio and ``MISS`` where it misses.

    python bench/bench_core.py            # 1k and 10k
    python bench/bench_core.py --full     # adds 100k (minutes)
"""

from __future__ import annotations

import argparse
import gc
import heapq
import math
import random
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import synth  # noqa: E402
from goals import goal  # noqa: E402

from wikimem.index.bm25 import B, K1, idf  # noqa: E402
from wikimem.disk.loader import gc_paused  # noqa: E402
from wikimem.retrieval import MemoryIndex  # noqa: E402
from wikimem.store import MemoryStore  # noqa: E402
from wikimem.tokenize import jieba_available, tokenize  # noqa: E402


def toks(text: str) -> list[str]:
    return tokenize(text, use_jieba=False)


class Reference:
    """The straightforward build: a dict-of-Counters index that scores every doc."""

    def __init__(self, store: MemoryStore) -> None:
        self.items = store.items()
        self.tfs = [Counter(toks(f"{it.name}\n{it.content}")) for it in self.items]
        self.lens = [sum(c.values()) for c in self.tfs]
        self.df: Counter[str] = Counter()
        for c in self.tfs:
            self.df.update(c.keys())
        self.avgdl = sum(self.lens) / max(len(self.lens), 1)

    def scores(self, query: str) -> list[float]:
        q = Counter(toks(query))
        n = len(self.tfs)
        weights = {t: qtf * idf(n, self.df[t]) for t, qtf in q.items() if t in self.df}
        out = []
        for c, dl in zip(self.tfs, self.lens):
            s = 0.0
            for t, w in weights.items():
                tf = c.get(t)
                if tf:
                    s += w * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / self.avgdl))
            out.append(s)
        return out

    def search(self, query: str, k: int = 10) -> list[tuple[int, float]]:
        scores = self.scores(query)
        return [(d, scores[d]) for d in top_k(scores, k)]


def top_k(scores: Any, k: int = 10) -> list[int]:
    """The same top-k step for every engine that scores every document.

    Best first, ties by ascending doc id, documents scoring 0 left out (as
    the index does). A numpy array goes through ``argpartition`` (C-level
    over the array); a list through ``heapq.nlargest`` (C-level heap over
    the positive scores only) -- each engine gets the fast path for the
    type it returns, never a Python ``sorted(key=lambda)`` over all N.
    """
    if hasattr(scores, "argpartition"):
        import numpy as np  # noqa: PLC0415 - only with an engine that returns numpy

        n = min(k, len(scores))
        top = np.argpartition(-scores, n - 1)[:n] if n else np.array([], dtype=int)
        order = sorted(top.tolist(), key=lambda d: (-scores[d], d))
        return [d for d in order if scores[d] > 0]
    positive = [d for d, s in enumerate(scores) if s > 0]
    return heapq.nlargest(k, positive, key=lambda d: (scores[d], -d))


def _optional_engines(ref: Reference) -> dict[str, Callable[[str], Any]]:
    """rank_bm25 and bm25s over the same tokens, when importable."""
    corpus = [list(c.elements()) for c in ref.tfs]
    engines: dict[str, Callable[[str], Any]] = {}
    try:
        from rank_bm25 import BM25Okapi

        with gc_paused():
            okapi = BM25Okapi(corpus, k1=K1, b=B)
        engines["rank_bm25"] = lambda q: top_k(okapi.get_scores(toks(q)))
    except ImportError:
        pass
    try:
        import bm25s

        retriever = bm25s.BM25(k1=K1, b=B, method="lucene")
        with gc_paused():
            retriever.index(corpus, show_progress=False)
        vocab = retriever.vocab_dict

        def bm25s_top(q: str) -> Any:
            terms = [t for t in toks(q) if t in vocab]
            return top_k(retriever.get_scores(terms)) if terms else []

        engines["bm25s"] = bm25s_top
    except Exception as exc:  # noqa: BLE001 - optional reference only
        print(f"(bm25s unavailable: {exc!r})", file=sys.stderr)
    return engines


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


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def p50(fn: Callable[[str], Any], queries: list[str]) -> float:
    return statistics.median(timed(lambda q=q: fn(q))[0] for q in queries)


def peak_mb(fn: Callable[[], Any]) -> float:
    gc.collect()
    tracemalloc.start()
    keep = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del keep
    gc.collect()
    return peak / 1e6


def ensure_store(data: Path, items: int, seed: int) -> Path:
    root = data / f"store-{items}-{seed}"
    marker = root / ".complete"
    if not marker.exists():
        synth.generate(root, items, seed)
        marker.write_text("ok")
    return root


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
    search = index._corpus.index.search  # the core, without the pipeline around it

    def core(q: str) -> Any:
        return search(Counter(toks(q)), 10)

    out["first_pass_ours"] = p50(core, queries)  # cold: each term's postings materialize on first use
    out["query_ours"] = p50(core, queries)  # repeated: the same queries again
    out.update(bench_warm(store, queries))
    out["retrieve_ours"] = p50(lambda q: index.retrieve(q), queries)
    out["query_ref"] = p50(ref.search, queries)
    agree = sum([d for d, _ in core(q)] == [d for d, _ in ref.search(q)] for q in queries[:10])
    out["agree_top10_of_10"] = agree
    for name, engine in _optional_engines(ref).items():
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
    search = index._corpus.index.search
    first = p50(lambda q: search(Counter(toks(q)), 10), queries)
    return {"warm_seconds": seconds, "first_pass_after_warm": first}


def held_mb(fn: Callable[[], Any]) -> float:
    """Traced memory still held by what ``fn`` returns (after a collection)."""
    gc.collect()
    tracemalloc.start()
    keep = fn()
    gc.collect()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del keep
    gc.collect()
    return held / 1e6


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


def _fmt(seconds: float) -> str:
    return f"{seconds * 1000:9.2f} ms" if seconds < 10 else f"{seconds:9.2f} s "


def report(results: dict[int, dict[str, float]]) -> None:
    sizes = sorted(results)
    rows = [
        ("cold load: ours", "cold_ours"),
        ("cold load: straightforward build", "cold_ref"),
        ("cold load: ours, jieba (1st: +import)", "cold_jieba_first"),
        ("cold load: ours, jieba (warm)", "cold_jieba"),
        ("query p50 top10: ours, cold (1st use)", "first_pass_ours"),
        ("query p50 top10: ours, repeated", "query_ours"),
        ("warm(): duration", "warm_seconds"),
        ("query p50 top10: first pass after warm()", "first_pass_after_warm"),
        ("query p50: ours full retrieve()", "retrieve_ours"),
        ("query p50 top10: score-everything", "query_ref"),
        ("query p50 top10: rank_bm25", "query_rank_bm25"),
        ("query p50 top10: bm25s (numpy)", "query_bm25s"),
        ("add() + query: ours", "add_query_ours"),
        ("  store.add() alone (write + fsync)", "store_add_alone"),
        ("  => index update + first query", "index_part_of_add_query"),
        ("  a query once the index is updated", "query_after_add_ours"),
        ("external edit + refresh + query", "edit_refresh_query_ours"),
    ]
    head = f"{'figure':40s}" + "".join(f"{n:>14,d}" for n in sizes)
    print(head)
    print("-" * len(head))
    for label, key in rows:
        if any(key in results[n] for n in sizes):
            print(f"{label:40s}" + "".join(f"{_fmt(results[n][key]):>14s}" if key in results[n] else f"{'-':>14s}" for n in sizes))
    if any("mem_ours" in results[n] for n in sizes):
        for label, key in (
            ("peak MB: ours (build)", "mem_ours"),
            ("peak MB: ours (build + warm())", "mem_warm_peak"),
            ("held MB: ours after warm()", "mem_warm_held"),
            ("peak MB: dict-of-Counters", "mem_ref"),
        ):
            print(f"{label:40s}" + "".join(f"{results[n].get(key, math.nan):14.1f}" for n in sizes))
    print()
    print("ratios (ours / reference; < 1 is better):")
    for n in sizes:
        r = results[n]
        parts = [f"cold {r['cold_ours'] / r['cold_ref']:.2f}"]
        for other in ("ref", "rank_bm25", "bm25s"):
            if f"query_{other}" in r:
                name = "score-everything" if other == "ref" else other
                parts.append(
                    f"query vs {name} {r['first_pass_ours'] / r[f'query_{other}']:.3f} cold"
                    f" / {r['query_ours'] / r[f'query_{other}']:.3f} repeated"
                )
        if "mem_ours" in r:
            parts.append(f"memory {r['mem_ours'] / r['mem_ref']:.2f}")
        parts.append(f"top-10 identical to reference {int(r['agree_top10_of_10'])}/10")
        print(f"  {n:>7,d}: " + ", ".join(parts))
    for lo, hi in zip(sizes, sizes[1:]):
        for key, label in (("first_pass_ours", "ours, cold"), ("query_ours", "ours, repeated"), ("query_ref", "score-everything")):
            growth = results[hi][key] / results[lo][key]
            print(f"  query p50 growth {lo:,d} -> {hi:,d} ({hi / lo:g}x items): {label} x{growth:.1f}")
    print_goals(results)


def print_goals(results: dict[int, dict[str, float]]) -> None:
    """Every BENCH.md retrieval-core goal at the largest size run: ratio, then ok or MISS."""
    sizes = sorted(results)
    n = sizes[-1]
    r = results[n]
    print(f"\nBENCH.md goals at {n:,d} items (ratio = figure / goal; <= 1 meets it):")
    for kind, key in (("cold", "first_pass_ours"), ("repeated", "query_ours")):
        if "query_bm25s" in r:
            goal(f"query p50 ({kind}) <= bm25s", r[key] / r["query_bm25s"])
        if "query_rank_bm25" in r:
            goal(f"query p50 ({kind}) <= 1/10 of rank_bm25", r[key] / (r["query_rank_bm25"] / 10))
    if len(sizes) > 1:
        lo = sizes[-2]
        for kind, key in (("cold", "first_pass_ours"), ("repeated", "query_ours")):
            growth = r[key] / results[lo][key]
            goal(f"query p50 ({kind}) growth {lo:,d} -> {n:,d} sub-linear (x{growth:.1f} for x{n / lo:g} items)", growth / (n / lo))
    goal("cold load <= 1/3 of a straightforward build", (r["cold_ours"] / r["cold_ref"]) * 3)
    goal(f"one add() then a query <= 20 ms ({r['add_query_ours'] * 1000:.1f} ms)", r["add_query_ours"] / 0.020)
    goal(f"  of which index update + query <= 20 ms ({r['index_part_of_add_query'] * 1000:.1f} ms)", r["index_part_of_add_query"] / 0.020)
    print(f"  external edit + refresh + query: {r['edit_refresh_query_ours'] * 1000:.1f} ms, "
          f"{r['edit_refresh_query_ours'] / r['cold_ref']:.4f} of a rebuild; "
          f"files re-read per edit (max) {r['files_reread_per_edit']:g} "
          f"({'ok' if r['files_reread_per_edit'] == 1 else 'MISS'}: only the changed one)")
    if "mem_ours" in r:
        goal("peak memory <= 1/2 of a dict-of-Counters index", (r["mem_ours"] / r["mem_ref"]) * 2)
    else:
        print("  peak memory: not measured (--no-memory)")



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
