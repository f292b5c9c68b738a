"""Stores for the lint tests: a clean one, and ways to plant exactly one problem.

A hand edit is itself drift (a file written behind the library's back), so
``plant`` accepts the planted file into the baseline right away: each test
then sees the one problem it planted and nothing else.
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

from wikimem import MemoryStore
from wikimem.disk.baseline import accept
from wikimem.lint import Finding, lint

TS = "2026-07-20T09:00:00+00:00"


def clean_store(root: Path) -> MemoryStore:
    """Two items linking to each other and one diary entry: lint finds nothing."""
    store = MemoryStore(root)
    store.add("people", "Alice", "Colleague. Works on [[work:apollo]].", owner="agent", ts=TS)
    store.add("work", "apollo", "Project Apollo ships in Q4. Lead is [[people:Alice]].", owner="agent", ts=TS)
    store.diary.append("Met Alice for coffee.", date="2026-07-20", time="08:30", owner="agent", ts=TS)
    return store


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def plant(root: Path, rel: str, data: str | bytes) -> Path:
    """Write ``rel`` by hand, then accept it as drift so only the planted problem shows."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    if rel.startswith(("wiki/", "diary/")):
        accept(root, {rel: sha(path)}, by="test")
    return path


def found(root: Path, **kwargs: object) -> list[tuple[str, str, int | None, str | None]]:
    """``(code, path, line, item)`` of every finding."""
    return [_row(f) for f in lint(root, **kwargs).findings]  # type: ignore[arg-type]


def _row(f: Finding) -> tuple[str, str, int | None, str | None]:
    return (f.code, f.location.path, f.location.line, f.location.item)


def write_npy(path: Path, rows: int, cols: int) -> None:
    """A float32 ``.npy`` file of zeros, written without numpy (format version 1.0)."""
    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, {cols}), }}"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin-1")
                     + b"\x00" * (4 * rows * cols))


def write_keys(folder: Path, header: dict[str, object], keys: list[dict[str, str]]) -> None:
    lines = [json.dumps(header)] + [json.dumps(k, ensure_ascii=False) for k in keys]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vectors.keys.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def vector_hash(name: str, content: str) -> str:
    return hashlib.sha256(f"{name}\n{content}".encode()).hexdigest()
