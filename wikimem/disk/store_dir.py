"""Whether a directory is a memory store: one rule for the command line and the app.

``wikimem -s /etc ls`` and ``wikimem-tui /etc`` (or either run in the wrong
directory) must not treat a directory of unrelated files as an empty memory:
the command line would print an empty listing that looks like one, and the
app would offer to create ``wiki/`` beside them. A directory is a memory
store when it holds any of :data:`STORE_MARKERS`; an empty one (dotfiles
aside, e.g. a fresh ``git init``) is a new, empty store.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["STORE_MARKERS", "is_memory_dir"]

#: What makes a directory a memory store (any one of them).
STORE_MARKERS = ("wiki", "diary", "journal.jsonl")


def is_memory_dir(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` (a directory) holds a store marker, or nothing but dotfiles."""
    root = Path(path)
    return any((root / marker).exists() for marker in STORE_MARKERS) or not _holds_files(root)


def _holds_files(path: Path) -> bool:
    """True when ``path`` lists anything but dotfiles (an unlistable directory counts as holding files)."""
    try:
        with os.scandir(path) as entries:
            return any(not entry.name.startswith(".") for entry in entries)
    except OSError:
        return True
