"""Are wiki and diary scores comparable? One memory, half its texts in the wiki and half in the diary.

``retrieve(search_diary=True)`` ranks wiki hits (BM25 with the wiki's
statistics) and diary hits (BM25 with the diary's own) in one list. If the
two scales differed much, one side would crowd the other out of the top
rows: reviewed wiki knowledge drowned by the diary, or the diary never
reached. This measures it on the quality sets (``quality_sets``): every
other text goes to the diary (one entry a minute, fifty a day), the rest
stays in the wiki, and each question's target is then a wiki item or a
diary entry. Printed per set, hit@1/5/10:

* **all in the wiki** -- the same texts as wiki items only, ``retrieve()``:
  the ranking the split should match;
* **split, search_diary** -- the split memory, ``retrieve(search_diary=True)``;
* the same two for the questions whose target is in the wiki half
  (``wiki targets``) and in the diary half (``diary targets``), and the
  share of the top 5 rows that are diary rows, against the diary's share
  of the texts (one half).

    python bench/diary_mix.py [--sets chitchat-en,cmrc2018]
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import wikimem  # noqa: E402
from quality_sets import CACHE, CMRC, ITEMS_PER_FILE, LOADERS, item_name, materialise  # noqa: E402

KS = (1, 5, 10)
PER_DAY = 50


def _split_store(name: str, items: list[str]) -> tuple[Path, dict[tuple[str, str], int]]:
    """The split memory (written once): odd rows as diary entries; returns it and entry (day, HH:MM) -> row."""
    root = CACHE / f"{name}-split-{len(items)}"
    entries: dict[tuple[str, str], int] = {}
    start = dt.date(2024, 1, 1)
    for n, row in enumerate(range(1, len(items), 2)):
        day = (start + dt.timedelta(days=n // PER_DAY)).isoformat()
        entries[(day, f"{(n % PER_DAY) // 60:02d}:{(n % PER_DAY) % 60:02d}")] = row
    if (root / "complete").exists():
        return root, entries
    store = wikimem.MemoryStore(root / "memory")
    t0 = time.perf_counter()
    for row in range(0, len(items), 2):
        store.add(f"f{row // ITEMS_PER_FILE:03d}", item_name(row), items[row])
    for (day, minute), row in entries.items():
        store.diary.append(items[row], date=day, time=minute)
    (root / "complete").write_text("ok\n")
    print(f"  wrote the split memory in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    return root, entries


def _rows(result: Any, entries: dict[tuple[str, str], int]) -> list[int]:
    out = []
    for row in result.items:
        if row.entry_id is not None:
            found = entries.get((row.entry_id.date, row.entry_id.time))
            if found is not None:
                out.append(found)
        elif row.item.name.startswith("x"):
            out.append(int(row.item.name[1:]))
    return out


def _score(ranked: list[list[int]], targets: list[set[int]], picked: list[int]) -> str:
    found = [sum(bool(set(ranked[q][:k]) & targets[q]) for q in picked) / max(len(picked), 1) for k in KS]
    return " / ".join(f"{f:.3f}" for f in found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="chitchat-en,cmrc2018")
    args = parser.parse_args()
    for name in args.sets.split(","):
        if name == "cmrc2018" and not CMRC.exists():
            continue
        items, queries, targets = LOADERS[name]()
        whole = wikimem.MemoryIndex(wikimem.MemoryStore(materialise(name, items, wikimem) / "memory"), use_jieba=False)
        root, entries = _split_store(name, items)
        split = wikimem.MemoryIndex(wikimem.MemoryStore(root / "memory"), use_jieba=False)
        ranked_whole = [_rows(whole.retrieve(q, limit=10, expand_links=False), entries) for q in queries]
        results = [split.retrieve(q, limit=10, expand_links=False, search_diary=True) for q in queries]
        ranked_split = [_rows(r, entries) for r in results]
        diary_share = sum(sum(1 for row in r.items[:5] if row.entry_id is not None) for r in results) / \
            max(sum(len(r.items[:5]) for r in results), 1)
        all_q = list(range(len(queries)))
        wiki_q = [q for q in all_q if all(t % 2 == 0 for t in targets[q])]
        diary_q = [q for q in all_q if all(t % 2 == 1 for t in targets[q])]
        print(f"\n### {name}: {len(items)} texts, {len(queries)} questions "
              f"({len(wiki_q)} with a wiki target, {len(diary_q)} with a diary target)\n")
        print("| ranking | all questions | wiki targets | diary targets |")
        print("|---|---|---|---|")
        for label, ranked in (("all in the wiki, retrieve()", ranked_whole),
                              ("split, retrieve(search_diary=True)", ranked_split)):
            print(f"| {label} | {_score(ranked, targets, all_q)} | {_score(ranked, targets, wiki_q)} | "
                  f"{_score(ranked, targets, diary_q)} |")
        print(f"\ndiary rows in the split's top 5: {diary_share:.2f} of the rows (the diary holds 0.50 of the texts)")


if __name__ == "__main__":
    main()
