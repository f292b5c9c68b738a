"""A digest of every scan form a cold load makes: a load change must leave it unchanged.

Why this exists: the cold load's fast paths (the stem map, the numpy token
counts) promise byte-identical scan forms, and the tests hold them on
small texts; this holds them on the benchmark stores, 1M items included.
Each run is a fresh interpreter that builds ``MemoryIndex(store,
use_jieba=False)`` and hashes each segment's latin and CJK forms, starts
and token counts as ``add_scanned`` receives them. ``--commit REV`` runs
that commit's ``wikimem`` too (``git archive``), ``--pure`` the numpy path
off; every digest must be the same.

    python bench/forms_digest.py --sizes 100000,1000000 --commit c40c93f --pure
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if os.environ.get("WIKIMEM_BENCH_TREE"):  # a previous commit's library, same script and data
    sys.path.insert(0, os.environ["WIKIMEM_BENCH_TREE"])
else:
    sys.path.insert(0, str(ROOT))


def child(root: Path) -> str:
    """One cold load in this process: its forms' digest, segment count and build time."""
    from wikimem import MemoryIndex, MemoryStore  # noqa: PLC0415
    from wikimem.index.scoring.bm25 import InvertedIndex  # noqa: PLC0415
    from wikimem.index.forms.scan import ScannedTexts  # noqa: PLC0415

    digest, segments = hashlib.sha256(), 0
    real = InvertedIndex.add_scanned

    def hashed(self: InvertedIndex, scanned: ScannedTexts, *rest: Any) -> range:
        nonlocal segments
        parts = (scanned.latin, scanned.cjk.encode(), *map(bytes, scanned[2:]))
        for part in parts:
            digest.update(len(part).to_bytes(8, "little") + part)
        segments += 1
        return real(self, scanned, *rest)  # the key, and (since session 28) the views

    InvertedIndex.add_scanned = hashed  # type: ignore[method-assign]
    start = time.perf_counter()
    MemoryIndex(MemoryStore(root), use_jieba=False).build()
    return f"{digest.hexdigest()[:20]}  {segments} segments  build {time.perf_counter() - start:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000")
    parser.add_argument("--data", type=Path, default=Path("/tmp/wikimem-bench"))
    parser.add_argument("--commit", help="also this commit's wikimem")
    parser.add_argument("--pure", action="store_true", help="also with the numpy path off (WIKIMEM_NUMPY=0)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(child(args.child))
        return 0
    from bench_goals import _archive  # noqa: PLC0415

    runs: list[tuple[str, dict[str, str]]] = [("this tree", {})]
    if args.pure:
        runs.append(("this tree, numpy off", {"WIKIMEM_NUMPY": "0"}))
    if args.commit:
        runs.append((args.commit, {"WIKIMEM_BENCH_TREE": str(_archive(args.commit))}))
    differ = False
    for size in map(int, args.sizes.split(",")):
        root = args.data / f"store-{size}-1"
        seen = set()
        for label, env in runs:
            done = subprocess.run([sys.executable, __file__, "--child", str(root)], capture_output=True, text=True,
                                  env={**os.environ, **env}, check=True)
            line = done.stdout.strip()
            seen.add(line.split()[0])
            print(f"{size:>9,}  {label:<22} {line}")
        differ |= len(seen) > 1
    print("DIFFERENT forms" if differ else "same forms everywhere")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
