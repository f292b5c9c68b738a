"""Import benchmark: ``wikimem import`` over large exports, against the cost of reading them.

Generates a ChatGPT export of ``--conversations`` conversations (``--turns``
messages each, on a straight thread) and a mem0 export of ``--memories``
memories, then times, each in a fresh memory directory:

* the first import (read, plan, validate, write in one commit);
* a second import of the same file (everything already there: nothing written);
* ``export json`` of the result and ``import json`` of it into an empty store.

The reference, in the same process: ``json.loads`` of the export file (the
least any importer pays). Each figure is printed with its ratio to it.
Prints figures, asserts nothing. ``python bench/bench_import.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wikimem import MemoryStore  # noqa: E402
from wikimem.interop import apply, read_source  # noqa: E402
from wikimem.interop.json_doc import export_document  # noqa: E402


def _chatgpt(conversations: int, turns: int) -> list[dict[str, object]]:
    out = []
    start = 1717218000
    for c in range(conversations):
        mapping: dict[str, object] = {"root": {"id": "root", "message": None, "parent": None, "children": ["n0"]}}
        prev = "root"
        for k in range(turns):
            node = f"n{k}"
            mapping[node] = {"id": node, "parent": prev, "children": [f"n{k + 1}"] if k < turns - 1 else [],
                             "message": {"author": {"role": "user" if k % 2 == 0 else "assistant"},
                                         "create_time": start + c * 3600 + k * 30,
                                         "content": {"content_type": "text",
                                                     "parts": [f"message {k} of conversation {c} " * 8]}}}
            prev = node
        out.append({"id": f"conv-{c}", "title": f"Conversation {c}", "create_time": start + c * 3600,
                    "mapping": mapping, "current_node": prev})
    return out


def _mem0(memories: int) -> list[dict[str, object]]:
    return [{"id": f"mem-{i}", "memory": f"fact {i} about topic {i % 97}, said in passing", "user_id": "alex",
             "created_at": "2024-05-01T10:00:00Z"} for i in range(memories)]


def _timed(label: str, reference: float, run: object) -> None:
    began = time.perf_counter()
    result = run()  # type: ignore[operator]
    took = time.perf_counter() - began
    print(f"  {label:<34} {took * 1000:9.0f} ms  {took / reference:7.1f}x json.loads   {result}")


def _bench(source: str, data: object, root: Path) -> None:
    path = root / f"{source}.json"
    path.write_text(json.dumps(data), "utf-8")
    began = time.perf_counter()
    json.loads(path.read_text("utf-8"))
    reference = time.perf_counter() - began
    print(f"{source}: {path.stat().st_size / 1e6:.1f} MB; json.loads {reference * 1000:.0f} ms")
    memory, restored = root / f"{source}-memory", root / f"{source}-restored"
    memory.mkdir()
    restored.mkdir()
    store = MemoryStore(memory)
    _timed("first import", reference, lambda: f"{apply(store, read_source(source, path)).written} written")
    _timed("second import (nothing new)", reference,
           lambda: f"{apply(store, read_source(source, path)).written} written")
    doc = root / f"{source}-export.json"
    _timed("export json", reference, lambda: doc.write_text(json.dumps(export_document(store)), "utf-8"))
    _timed("import json into an empty store", reference,
           lambda: f"{apply(MemoryStore(restored), read_source('json', doc)).written} written")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--memories", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _bench("chatgpt", _chatgpt(args.conversations, args.turns), root)
        _bench("mem0", _mem0(args.memories), root)


if __name__ == "__main__":
    main()
