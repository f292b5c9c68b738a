"""Deterministic synthetic memory stores for the benchmarks (see BENCH.md).

The store has to look like real agent memory where it matters for retrieval
cost: term frequencies follow a Zipf law (a few terms are in most items, most
terms are rare), ~60% of items are Chinese (character bigrams) and ~40%
English, ~30% carry a ``[[file:item]]`` link (some dangling), most carry a
provenance comment, and a diary spans a few hundred days. The files are
written directly in the on-disk block format instead of through
``MemoryStore.add`` so that a 100k-item store takes seconds, not an hour of
journaled atomic writes. Same seed, same bytes.

    python bench/synth.py OUT_DIR --items 100000 --seed 1
"""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import itertools
import random
import sys
from pathlib import Path

ITEMS_PER_FILE = 200
ZH_SHARE = 0.6
LINK_SHARE = 0.3
DANGLING_SHARE = 0.1
PROVENANCE_SHARE = 0.85
DIARY_DAYS = 300
DIARY_LAST_DAY = dt.date(2026, 7, 31)


class _Vocab:
    """A Zipf-distributed word list: rank r is drawn with weight 1 / r**s."""

    def __init__(self, words: list[str], rng: random.Random, s: float = 1.07) -> None:
        self.words = words
        self._rng = rng
        self._cum = list(itertools.accumulate(1.0 / (r**s) for r in range(1, len(words) + 1)))

    def draw(self, k: int) -> list[str]:
        return self._rng.choices(self.words, cum_weights=self._cum, k=k)


def _zh_vocab(rng: random.Random, size: int) -> _Vocab:
    pool = [chr(c) for c in rng.sample(range(0x4E00, 0x9FA6), 2500)]
    lengths = rng.choices([1, 2, 3, 4], weights=[25, 55, 15, 5], k=size)
    words = list(dict.fromkeys("".join(rng.choices(pool, k=n)) for n in lengths))
    return _Vocab(words, rng)


def _en_vocab(rng: random.Random, size: int) -> _Vocab:
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    weights = [12, 9, 8, 7.5, 7, 6.7, 6.3, 6, 6, 4.3, 4, 2.8, 2.8, 2.4, 2.4, 2.2, 2, 2, 1.9, 1.5, 1, 0.8, 0.2, 0.2, 0.1, 0.1]
    lengths = rng.choices(range(2, 11), weights=[6, 10, 12, 12, 11, 9, 7, 5, 3], k=size)
    words = list(dict.fromkeys("".join(rng.choices(letters, weights=weights, k=n)) for n in lengths))
    return _Vocab(words, rng)


class Generator:
    """Draws sentences, names and diary entries from the two vocabularies."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.zh = _zh_vocab(self.rng, 12_000)
        self.en = _en_vocab(self.rng, 12_000)

    def sentence(self, zh: bool) -> str:
        rng = self.rng
        if zh:
            words = self.zh.draw(rng.randint(6, 14))
            cut = rng.randint(2, len(words) - 2)
            return "".join(words[:cut]) + "，" + "".join(words[cut:]) + "。"
        words = self.en.draw(rng.randint(6, 14))
        return " ".join(words).capitalize() + "."

    def text(self, zh: bool, low: int = 1, high: int = 3) -> str:
        sep = "" if zh else " "
        return sep.join(self.sentence(zh) for _ in range(self.rng.randint(low, high)))

    def name(self, zh: bool, serial: int) -> str:
        if zh:
            return "".join(self.zh.draw(2)) + f"-{serial}"
        return "-".join(self.en.draw(2)) + f"-{serial}"

    def comment(self, when: dt.datetime) -> str:
        conv = self.rng.randint(1, 5000)
        return f"<!-- wikimem: owner=agent:bench | source=conv_{conv:05d} | ts={when.isoformat()} -->"


def _block(name: str, content: str, comment: str | None) -> str:
    tail = f"\n\n{comment}" if comment else ""
    return f"## {name}\n\n{content}{tail}\n"


def _write(path: Path, title: str, blocks: list[str]) -> None:
    path.write_text(f"# {title}\n\n" + "\n".join(blocks), encoding="utf-8")


def generate(out: Path, items: int, seed: int = 1, diary_days: int = DIARY_DAYS) -> dict[str, int]:
    """Write a store with ``items`` wiki items under ``out``; returns counts."""
    gen = Generator(seed)
    rng = gen.rng
    n_files = max(1, items // ITEMS_PER_FILE)
    files = [f"topic_{i:05d}" for i in range(n_files)]
    # Names first, so that links can point at items in files not yet written.
    langs = [rng.random() < ZH_SHARE for _ in range(items)]
    names = [gen.name(zh, i) for i, zh in enumerate(langs)]
    owner_of = [files[i % n_files] for i in range(items)]
    bounds = [i * items // n_files for i in range(n_files + 1)]
    wiki = out / "wiki"
    wiki.mkdir(parents=True, exist_ok=True)
    base = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
    links = dangling = 0
    for f, file in enumerate(files):
        blocks = []
        for i in range(bounds[f], bounds[f + 1]):
            content = gen.text(langs[i])
            if rng.random() < LINK_SHARE:
                links += 1
                j = rng.randrange(items)
                if rng.random() < DANGLING_SHARE:
                    dangling += 1
                    target = f"[[{owner_of[j]}:missing-{j}]]"
                else:
                    target = f"[[{_file_of(j, bounds, files)}:{names[j]}]]"
                content = f"{content} {target}"
            when = base + dt.timedelta(seconds=rng.randrange(50_000_000))
            comment = gen.comment(when) if rng.random() < PROVENANCE_SHARE else None
            blocks.append(_block(names[i], content, comment))
        _write(wiki / f"{file}.md", file, blocks)
    entries = _write_diary(out / "diary", gen, diary_days)
    return {"items": items, "files": n_files, "links": links, "dangling": dangling, "diary_entries": entries}


def _file_of(index: int, bounds: list[int], files: list[str]) -> str:
    return files[bisect.bisect_right(bounds, index) - 1]


def _write_diary(diary: Path, gen: Generator, days: int) -> int:
    diary.mkdir(parents=True, exist_ok=True)
    rng = gen.rng
    total = 0
    for d in range(days):
        day = DIARY_LAST_DAY - dt.timedelta(days=days - 1 - d)
        if rng.random() < 0.2:
            continue  # not every day has an entry
        minutes = sorted(rng.randrange(24 * 60) for _ in range(rng.randint(1, 6)))
        blocks = []
        for m in minutes:
            when = dt.datetime(day.year, day.month, day.day, m // 60, m % 60, tzinfo=dt.timezone.utc)
            zh = rng.random() < ZH_SHARE
            comment = gen.comment(when) if rng.random() < PROVENANCE_SHARE else None
            blocks.append(_block(f"{m // 60:02d}:{m % 60:02d}", gen.text(zh, 1, 2), comment))
            total += 1
        _write(diary / f"{day.isoformat()}.md", day.isoformat(), blocks)
    return total


def ensure_store(data: Path, items: int, seed: int) -> Path:
    """The store of ``items`` items for ``seed`` under ``data``, generated the first time only.

    A ``.complete`` marker is written last, so a run killed half-way
    generates again instead of measuring a partial store.
    """
    root = data / f"store-{items}-{seed}"
    marker = root / ".complete"
    if not marker.exists():
        generate(root, items, seed)
        marker.write_text("ok")
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="directory to create the store in")
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--diary-days", type=int, default=DIARY_DAYS)
    args = parser.parse_args(argv)
    counts = generate(args.out, args.items, args.seed, args.diary_days)
    print(" ".join(f"{k}={v}" for k, v in counts.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
