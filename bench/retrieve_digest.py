"""Every byte ``retrieve()`` returns for a fixed set of calls, as one digest: speed work must not change it.

Why this exists: the query path is tuned for speed (rows built positionally,
knobs shared, write edits applied in place) and every such change must keep
the answer byte for byte. This prints the SHA-256 of the JSON of many
``retrieve()`` results (and ``why_not`` for a few), over a store copy, for
this checkout or another one's ``wikimem`` (``WIKIMEM_BENCH_TREE=DIR``):
two runs with equal digests returned the same bytes. The calls: the bench's
ten fixed queries, words and pairs drawn from the store's own items, time
words, every knob (limit, budget, links, explain, ``time_range``), and the
same again after writes of each kind (add, update, remove: the index's write
path), in a copy of the store made for the run. ``--dump FILE`` writes the JSON lines to
compare where two digests differ.

    python bench/retrieve_digest.py /tmp/wikimem-bench/store-10000-1
    WIKIMEM_BENCH_TREE=/tmp/old python bench/retrieve_digest.py /tmp/wikimem-bench/store-10000-1
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
if os.environ.get("WIKIMEM_BENCH_TREE"):  # another checkout's wikimem first
    sys.path.insert(0, os.environ["WIKIMEM_BENCH_TREE"])
else:
    sys.path.insert(0, str(ROOT))


def _plain(value: Any) -> Any:
    """A result as JSON-able data (floats by repr: any change of a bit shows)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, float):
        return repr(value)
    return value if value is None or isinstance(value, (str, int, bool)) else repr(value)


def calls(store: Any, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """The (query, knobs) pairs: fixed queries, the store's own words, time words, every knob."""
    from bench_scale import fixed_queries  # noqa: PLC0415

    rng = random.Random(seed)
    files = store.files()
    words: list[str] = []
    for file in rng.sample(files, min(20, len(files))):
        for item in store.file_items(file)[:5]:
            words += item.content.split()[:6]
    words = [w for w in words if w.strip("[]:")] or ["memory"]
    queries = fixed_queries(1)
    queries += [rng.choice(words) for _ in range(60)]
    queries += [f"{rng.choice(words)} {rng.choice(words)}" for _ in range(60)]
    queries += ["昨天 " + rng.choice(words), "last week " + rng.choice(words), "today", "", "   "]
    out: list[tuple[str, dict[str, Any]]] = []
    knob_sets: list[dict[str, Any]] = [
        {}, {"limit": 3}, {"limit": 25, "explain": True}, {"budget_tokens": 40}, {"expand_links": False},
        {"time_range": ("2020-01-01", "2030-12-31")}, {"limit": 0},
    ]
    for i, query in enumerate(queries):
        out.append((query, {}))
        out.append((query, knob_sets[1 + i % (len(knob_sets) - 1)]))
    return out


def run(root: Path, seed: int, dump: Path | None) -> str:
    import shutil  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    from wikimem import MemoryIndex, MemoryStore  # noqa: PLC0415

    copy = Path(tempfile.mkdtemp(prefix="retrieve-digest-")) / "store"
    shutil.copytree(root, copy)
    try:
        return _run(MemoryStore(copy), MemoryIndex, seed, dump)
    finally:
        shutil.rmtree(copy.parent)


def _run(store: Any, memory_index: Any, seed: int, dump: Path | None) -> str:
    import datetime as dt  # noqa: PLC0415

    ts = "2026-12-02T00:00:00Z"
    index = memory_index(store, use_jieba=False, today=lambda: dt.date(2026, 12, 2))
    todo = calls(store, seed)
    digest = hashlib.sha256()
    lines: list[str] = []
    count = 0

    def record(label: str, value: Any) -> None:
        nonlocal count
        line = json.dumps([label, _plain(value)], sort_keys=True, ensure_ascii=False)
        digest.update(line.encode())
        lines.append(line)
        count += 1

    def sweep(stage: str) -> None:
        for query, knobs in todo:
            record(f"{stage} {query!r} {knobs}", index.retrieve(query, **knobs))
        first = index.retrieve(todo[0][0])
        for row in first.items[:2]:
            record(f"{stage} why_not", index.why_not(todo[0][0], row.item.file, row.item.name))

    sweep("initial")
    file = store.files()[len(store.files()) // 2]
    names = [f"digest-{i}" for i in range(3)]
    for i, name in enumerate(names):
        store.add(file, name, f"{todo[2 * i][0]} 新增 digest {i}", ts=ts)
    sweep("after add")
    store.add(file, names[0], f"{todo[8][0]} changed digest", ts=ts)
    existing = store.file_items(file)[0]
    store.add(file, existing.name, existing.content + " extra words for the digest", ts=ts)
    sweep("after update")
    store.remove(file, names[1])
    store.remove(file, existing.name)
    sweep("after remove")
    if dump is not None:
        dump.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f"{digest.hexdigest()} over {count} results"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path, help="a store (copied for the run: never written)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dump", type=Path, help="also write each result's JSON line here")
    args = parser.parse_args(argv)
    import wikimem  # noqa: PLC0415

    print(f"wikimem from {Path(wikimem.__file__).parent}")
    print(run(args.store, args.seed, args.dump))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
