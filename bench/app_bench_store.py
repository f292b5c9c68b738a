"""The app benchmark's store: the synthetic store plus one big RecallFile and a journal, made once per size.

Kept apart from the figures (``bench_app``) and the probes (``app_probes``):
what the app is measured on must not change when the measuring does. The
store is ``synth.ensure_store``'s, copied under ``--data`` with
``BIG_FILE`` (sorted first in the tree) and one journal line per item, and
marked complete only once whole (a run killed half-way is made again).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from synth import Generator, _block, _write, ensure_store

from wikimem import MemoryStore

__all__ = ["BIG_FILE", "app_store", "sample_queries", "write_big_file", "write_journal"]

BIG_FILE = "aaa_big"


def write_big_file(root: Path, items: int, seed: int = 2) -> None:
    """One RecallFile of ``items`` items, in the store's block format (as synth writes them)."""
    gen = Generator(seed)
    blocks = [_block(f"big-{i}", gen.text(gen.rng.random() < 0.6), None) for i in range(items)]
    _write(root / "wiki" / f"{BIG_FILE}.md", BIG_FILE, blocks)


def write_journal(root: Path, store: MemoryStore) -> int:
    """One ``add`` line per item, the way an agent's store would have grown."""
    lines = []
    for n, item in enumerate(store.items()):
        ts = f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}+00:00"
        row = {"ts": ts, "action": "add", "file": item.file, "item": item.name, "owner": "agent"}
        lines.append(json.dumps(row, ensure_ascii=False))
    (root / "journal.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def sample_queries(store: MemoryStore) -> list[str]:
    """A few queries made of words that are really in the store."""
    items = store.items(store.files()[0])[:40]
    latin = [w for item in items for w in item.content.split() if w.isascii() and w.isalpha()]
    cjk = [item.content[:2] for item in items if not item.content[:1].isascii()]
    return [q for q in (latin[:1] + latin[5:6] + cjk[:1] + cjk[3:4] + [" ".join(latin[1:3])]) if q]


def app_store(data: Path, items: int, big_file: int) -> tuple[Path, int]:
    """The synthetic store plus the big file and the journal, made once under ``data``; its journal's lines."""
    root = data / f"app-store-{items}-1-big{big_file}"
    marker = root / ".complete"
    if not marker.exists():
        if root.exists():
            shutil.rmtree(root)  # a run killed half-way
        shutil.copytree(ensure_store(data, items, seed=1), root)
        if big_file:
            write_big_file(root, big_file)
        marker.write_text(str(write_journal(root, MemoryStore(root))))
    return root, int(marker.read_text())
