"""Whole-diary recall at scale: ``retrieve(search_diary=True)`` over a 100k-entry diary.

What it shows: the diary-wide path (the diary's own corpus, built on first
use) against the reference engine over the very same entries, in the same
process, rounds interleaved -- the reference is ``reference_bm25.Reference``
(a dict-of-Counters build that scores every document), given the entries as
its documents, exactly as ``bench_goals.py`` measures the 100k wiki. The
queries are ``bench_scale``'s ten fixed strings over the synthetic
vocabularies (the commonest words to rare ones); the diary is written by
``synth.Generator`` straight in the day-file format (``--per-day`` entries a
day), beside a small wiki. The index runs as a user gets it: jieba when the
``zh`` extra is installed (the tokenizer is printed).

Printed: the cold cost of the first diary-wide query (the diary corpus
loaded from the day files, then the query), each query's first use of its
terms, the warm p50 (three passes) of ours and of the reference, and the
ratio ours / reference. Also the warm p50 of the same queries without
``search_diary`` (the wiki only), so the diary's share is visible.

    python bench/bench_diary.py                 # 100k entries
    python bench/bench_diary.py --entries 20000
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import fixed_queries  # noqa: E402
from reference_bm25 import Reference  # noqa: E402
from synth import DIARY_LAST_DAY, Generator, _block, _write, generate  # noqa: E402

from wikimem import MemoryIndex, MemoryStore, as_recall_item  # noqa: E402

DATA = ROOT / "bench" / ".cache" / "diary"


def ensure_diary_store(entries: int, per_day: int, seed: int = 1) -> Path:
    """A store with a 1k-item wiki and a diary of ``entries`` entries, generated the first time only."""
    root = DATA / f"store-{entries}-{per_day}-{seed}"
    marker = root / ".complete"
    if marker.exists():
        return root
    generate(root, 1000, seed, diary_days=0)
    gen = Generator(seed)  # the wiki's vocabularies (the fixed queries are drawn from them) ...
    rng = gen.rng
    rng.seed(seed + 1)  # ... and other sentences than the wiki's
    diary = root / "diary"
    diary.mkdir(parents=True, exist_ok=True)
    days = -(-entries // per_day)
    written = 0
    for d in range(days):
        day = DIARY_LAST_DAY - dt.timedelta(days=days - 1 - d)
        count = min(per_day, entries - written)
        minutes = sorted(rng.randrange(24 * 60) for _ in range(count))
        blocks = []
        for m in minutes:
            when = dt.datetime(day.year, day.month, day.day, m // 60, m % 60, tzinfo=dt.timezone.utc)
            blocks.append(_block(f"{m // 60:02d}:{m % 60:02d}", gen.text(rng.random() < 0.6, 1, 2), gen.comment(when)))
        _write(diary / f"{day.isoformat()}.md", day.isoformat(), blocks)
        written += count
    marker.write_text("ok")
    return root


class _Entries:
    """The diary's entries as the reference engine's documents (it reads ``items()``)."""

    def __init__(self, store: MemoryStore) -> None:
        diary = store.diary
        self._items = [as_recall_item(e) for day in diary.dates() for e in diary.day(day)]

    def items(self) -> list[Any]:
        return self._items


def _ms(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def _index(store: MemoryStore) -> MemoryIndex:
    """The index as a user gets it (jieba when installed); no postings cache in a checkout that still has one."""
    import inspect  # noqa: PLC0415

    kwargs: dict[str, Any] = {}
    if "postings_cache" in inspect.signature(MemoryIndex).parameters:
        kwargs["postings_cache"] = "off"
    return MemoryIndex(store, **kwargs)


def measure(entries: int, per_day: int) -> dict[str, Any]:
    """The diary-wide figures (ms): cold first query, first uses, warm p50 of ours, the reference's, the wiki's."""
    root = ensure_diary_store(entries, per_day)
    queries = fixed_queries()
    store = MemoryStore(root)
    index = _index(store)
    build = _ms(index.build)
    cold = _ms(lambda: index.retrieve(queries[0], search_diary=True))
    first = [_ms(lambda q=q: index.retrieve(q, search_diary=True)) for q in queries[1:]]
    t0 = time.perf_counter()
    reference = Reference(_Entries(store))  # type: ignore[arg-type]
    ref_build = time.perf_counter() - t0
    ours: list[float] = []
    theirs: list[float] = []
    wiki_only: list[float] = []
    for _ in range(3):
        for q in queries:
            ours.append(_ms(lambda q=q: index.retrieve(q, search_diary=True)))
            theirs.append(_ms(lambda q=q: reference.search(q, 10)))
            wiki_only.append(_ms(lambda q=q: index.retrieve(q)))
    hits = index.retrieve(queries[4], search_diary=True).items
    return {"entries": len(reference.items), "days": len(store.diary.dates()), "wiki_items": len(index),
            "build_ms": build, "cold_ms": cold, "first_ms": first, "p50_ms": statistics.median(ours),
            "ref_p50_ms": statistics.median(theirs), "ref_build_s": ref_build,
            "wiki_p50_ms": statistics.median(wiki_only), "load_avg": os.getloadavg()[0],
            "tokenizer": "jieba" if getattr(index, "use_jieba", False) else "bigrams",
            "diary_rows": sum(1 for h in hits if h.entry_id is not None), "rows": len(hits)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--per-day", type=int, default=50)
    args = parser.parse_args()
    m = measure(args.entries, args.per_day)
    print(f"diary: {m['entries']} entries in {m['days']} day files; wiki: {m['wiki_items']} items; "
          f"tokenizer {m['tokenizer']}")
    print(f"wiki index build: {m['build_ms']:.0f} ms (load average {m['load_avg']:.1f})")
    print(f"first diary-wide query, cold (diary corpus loaded, then the query): {m['cold_ms']:.0f} ms")
    print(f"first use of the other 9 queries' terms: p50 {statistics.median(m['first_ms']):.1f} ms, "
          f"max {max(m['first_ms']):.1f} ms")
    print(f"warm p50, search_diary=True: {m['p50_ms']:.2f} ms")
    print(f"warm p50, reference over the same entries: {m['ref_p50_ms']:.2f} ms (its build {m['ref_build_s']:.1f} s)")
    print(f"ratio ours / reference: {m['p50_ms'] / m['ref_p50_ms']:.3f}")
    print(f"warm p50, wiki only (search_diary=False): {m['wiki_p50_ms']:.2f} ms")
    print(f"(query 5 returned {m['diary_rows']} diary rows of {m['rows']})")

if __name__ == "__main__":
    main()
