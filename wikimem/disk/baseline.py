"""``lint-baseline.json``: the accepted state of each memory file, by content.

Timestamps alone cannot tell a real edit from a ``touch`` or a ``git
checkout``, so a person can accept the current state of a file: its sha256
goes into the baseline and lint does not report the file as drift again
until its content differs::

    {"version": 1, "files": {
      "wiki/people.md": {"sha256": "9f8a…", "accepted": "2026-07-22T08:00:00+00:00", "by": "lint"},
      "diary/2026-07-01.md": {"sha256": null, "accepted": "…", "by": "lint"}
    }}

``sha256: null`` accepts that the file is gone. The baseline comes with the
memory, so only keys that name a memory file are read. A damaged baseline
is reported, ignored and never overwritten; deleting it is safe (drift is
then judged from the journal alone).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from wikimem.disk.blocks import atomic_write, read_text, store_lock
from wikimem.disk.names import utc_now_iso
from wikimem.disk.store_dir import is_memory_file
from wikimem.disk.tolerant import UnreadableError, parse_json

__all__ = ["BASELINE_FILE", "Baseline", "accept", "load_baseline", "render_baseline"]

BASELINE_FILE = "lint-baseline.json"


@dataclass(frozen=True)
class Baseline:
    """Accepted states: ``path -> sha256`` (``None`` = accepted as deleted)."""

    files: dict[str, str | None]
    raw: dict[str, dict[str, object]]
    damaged: str | None = None


def load_baseline(root: str | os.PathLike[str]) -> Baseline:
    """The baseline under ``root`` (empty when absent; ``damaged`` says why when unreadable)."""
    try:
        text = read_text(Path(root) / BASELINE_FILE)
    except UnreadableError as exc:
        return Baseline({}, {}, damaged=f"{BASELINE_FILE} {exc.strerror}")
    if text is None or not text.strip():
        return Baseline({}, {})
    try:
        data = parse_json(text)
        files = data["files"]
        if not isinstance(files, dict):
            raise ValueError("'files' is not an object")
        # Only memory files: the baseline comes with the memory, and a key naming
        # ``../x`` or ``/etc/x`` is no state of it (and must not be carried on).
        raw = {str(k): dict(v) for k, v in files.items() if isinstance(v, dict) and is_memory_file(str(k))}
        hashes = {k: v.get("sha256") if isinstance(v.get("sha256"), str) else None for k, v in raw.items()}
    except (ValueError, KeyError, TypeError) as exc:
        return Baseline({}, {}, damaged=f"{BASELINE_FILE} is not a valid baseline ({exc})")
    return Baseline(hashes, raw)


def render_baseline(baseline: Baseline, updates: Mapping[str, str | None], *, by: str, ts: str) -> str:
    """The baseline file text with ``updates`` (path -> sha256 or None) accepted."""
    files = {path: dict(entry) for path, entry in baseline.raw.items()}
    for path, sha in updates.items():
        files[path] = {"sha256": sha, "accepted": ts, "by": by}
    # One line per file: diffs and merges of the baseline stay one line per change.
    rows = [f" {json.dumps(path, ensure_ascii=False)}: {json.dumps(entry, ensure_ascii=False)}"
            for path, entry in sorted(files.items())]
    return '{"version": 1, "files": {\n' + ",\n".join(rows) + "\n}}\n"


def accept(
    root: str | os.PathLike[str],
    updates: Mapping[str, str | None],
    *,
    by: str = "lint",
    ts: str | None = None,
    expected: str | None = None,
) -> str:
    """Accept the given states into the baseline, atomically under the store lock.

    ``expected`` is the baseline text the caller planned from (``""`` for
    none): a mismatch means another process changed it meanwhile, and
    ``ValueError`` is raised with nothing written. Returns the text written.
    """
    path = Path(root) / BASELINE_FILE
    with store_lock(Path(root)):
        current = read_text(path) or ""
        if expected is not None and current != expected:
            raise ValueError(f"{BASELINE_FILE} changed while planning; nothing written")
        baseline = load_baseline(root)
        if baseline.damaged:
            raise ValueError(f"{baseline.damaged}; repair or delete it, nothing written")
        text = render_baseline(baseline, updates, by=by, ts=ts or utc_now_iso())
        atomic_write(path, text)
    return text
