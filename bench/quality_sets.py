"""The sets ``bench/quality.py`` measures recall on, and the memory directory each becomes.

Why apart: ``bench_encoders.py`` and the quality run load the same sets the
same way (identical sentences of a cmrc2018 context all count as the
answer's row), and a set's store is written once and reused while its
items are unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache" / "quality"
CMRC = Path(os.environ.get("WIKIMEM_CMRC", "/work/shared/data/cmrc2018_trial.json"))
CHITCHAT = HERE / "data" / "chitchat_qa.json"
ITEMS_PER_FILE = 200

Dataset = tuple[list[str], list[str], list[set[int]]]  # items, queries, target rows


# ----------------------------------------------------------------- data sets
def load_cmrc(path: Path = CMRC) -> Dataset:
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    items: list[str] = []
    queries: list[str] = []
    targets: list[set[int]] = []
    by_text: dict[str, set[int]] = defaultdict(set)
    for article in data:
        for para in article["paragraphs"]:
            context = para["context"]
            spans = []
            for m in re.finditer(r"[^。！？!?\n]+[。！？!?]*", context):
                if m.group().strip():
                    spans.append((m.start(), m.end(), len(items)))
                    by_text[m.group().strip()].add(len(items))
                    items.append(m.group().strip())
            for qa in para["qas"]:
                answer = qa["answers"][0]
                start = answer["answer_start"]
                row = next((r for s, e, r in spans if s <= start < e), None)
                if row is None or answer["text"][:2] not in context[start:start + 2]:
                    continue
                queries.append(qa["question"])
                targets.append(by_text[items[row]])  # identical sentences all count
    return items, queries, targets


def load_chitchat(path: Path = CHITCHAT) -> Dataset:
    data = json.loads(path.read_text(encoding="utf-8"))
    items: list[str] = data["items"]
    return items, [q["query"] for q in data["queries"]], [{q["target"]} for q in data["queries"]]


LOADERS = {"cmrc2018": load_cmrc, "chitchat-en": load_chitchat}


# -------------------------------------------------------------- the store
def item_name(row: int) -> str:
    """An opaque item name: one token that no query contains."""
    return f"x{row:05d}"


def materialise(name: str, items: list[str], wikimem: Any) -> Path:
    """Write ``items`` as a memory directory once (reused while the items are unchanged)."""
    digest = hashlib.sha256("\x00".join(items).encode()).hexdigest()[:12]
    root = CACHE / f"{name}-{digest}"
    done = root / "complete"
    if done.exists():
        return root
    store = wikimem.MemoryStore(root / "memory")
    t0 = time.perf_counter()
    for row, text in enumerate(items):
        store.add(f"f{row // ITEMS_PER_FILE:03d}", item_name(row), text)
    done.write_text("ok\n")
    print(f"  wrote {len(items)} items to {root} in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return root
