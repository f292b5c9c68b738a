"""``--demo``: a throwaway copy of the bundled demo memory.

The bundled files are package data and must never be written to (they may
sit in a read-only site-packages), so the app always works on a copy in a
fresh temporary directory.
"""

from __future__ import annotations

import shutil
import tempfile
from importlib import resources
from pathlib import Path

__all__ = ["demo_source", "make_demo_copy"]


def demo_source() -> Path:
    """Where the bundled demo memory lives (``wikimem/demo``)."""
    return Path(str(resources.files("wikimem") / "demo"))


def make_demo_copy(parent: Path | None = None) -> Path:
    """Copy the demo's ``wiki/``, ``diary/`` and ``journal.jsonl`` into a new temp dir; return it."""
    source = demo_source()
    target = Path(tempfile.mkdtemp(prefix="wikimem-demo-", dir=parent)) / "memory"
    target.mkdir()
    for name in ("wiki", "diary"):
        if (source / name).is_dir():
            shutil.copytree(source / name, target / name)
    if (source / "journal.jsonl").is_file():
        shutil.copy2(source / "journal.jsonl", target / "journal.jsonl")
    return target
