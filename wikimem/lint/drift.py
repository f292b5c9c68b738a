"""Drift: memory files changed behind the library's back.

Every write through the library appends a journal line right after it
replaces the file, so a file modified later than its last journal line (by
more than :data:`SLACK_SECONDS`) was written by something else. That is
allowed (the files are the truth) but worth knowing, since nothing says who
did it or why. Content comes first: a file whose sha256 is its accepted one
(:mod:`wikimem.disk.baseline`) is never drift, whatever its mtime.
:func:`accept_current_state` accepts a whole directory as it is now (for a
tool that just wrote a memory behind the library's back); ``wikimem lint
--fix`` accepts only what is drift.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from wikimem.disk.baseline import BASELINE_FILE, Baseline, load_baseline, render_baseline
from wikimem.disk.blocks import atomic_write, store_lock
from wikimem.disk.markers import has_conflict_markers
from wikimem.disk.tolerant import read_regular
from wikimem.disk.names import utc_now_iso
from wikimem.journal import latest_lines

__all__ = ["SLACK_SECONDS", "DriftState", "accept_current_state", "judge"]

#: A library write stamps its journal line (whole seconds) just after the
#: rename, so a file may look up to a second newer than its line; two
#: seconds of slack keep that from reading as drift.
SLACK_SECONDS = 2.0


@dataclass(frozen=True)
class DriftState:
    """What lint knows about one memory path when judging drift."""

    path: str
    sha256: str | None
    mtime: float | None
    logged: float | None
    last_action: str | None = None


def judge(state: DriftState, baseline: Baseline) -> str | None:
    """Why ``state`` is drift, or ``None`` when the journal or the baseline explains it."""
    if state.path in baseline.files and baseline.files[state.path] == state.sha256:
        return None
    if state.sha256 is None:  # gone from disk
        if state.logged is None or state.last_action == "remove":
            return None
        return "deleted on disk, but its last journal line is not a removal"
    if state.logged is None:
        return "no journal line was ever written for this file"
    if state.mtime is not None and state.mtime > state.logged + SLACK_SECONDS:
        return "changed on disk after its last journal line"
    return None


def _memory_files(root: Path) -> tuple[dict[str, str], set[str]]:
    """``path -> sha256`` of every readable ``*.md`` directly in ``wiki/`` and ``diary/``, and the others.

    The others exist but were not read (see :mod:`wikimem.disk.tolerant`) or hold
    git conflict markers (:mod:`wikimem.disk.markers`): their state is unknown, so
    it is neither accepted nor taken for deleted.
    """
    out: dict[str, str] = {}
    unknown: set[str] = set()
    for folder in ("wiki", "diary"):
        try:
            entries = list(os.scandir(root / folder))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            if entry.name.endswith(".md") and len(entry.name) > 3 and not entry.name.startswith("."):
                path = f"{folder}/{entry.name}"
                try:
                    data = read_regular(entry.path, root=root)
                except OSError:
                    unknown.add(path)
                    continue
                if data is not None and has_conflict_markers(data):
                    unknown.add(path)  # two versions in one file: never accepted as a state
                elif data is not None:
                    out[path] = hashlib.sha256(data).hexdigest()
    return out, unknown


def accept_current_state(root: str | os.PathLike[str], *, by: str = "lint", ts: str | None = None) -> str:
    """Accept every memory file under ``root`` as it is now; returns the baseline text written.

    Afterwards lint reports no drift until something changes a file again:
    each ``wiki/*.md`` and ``diary/*.md`` is accepted with its sha256, a
    file the old baseline or the journal knows but that is gone is
    accepted as deleted (``null``), and entries for files neither knows are
    dropped. A file that exists but cannot be read, or holds git conflict
    markers, keeps its old entry (if any): its state is unknown, never
    "deleted", and a conflict is never accepted. Atomic, under the store
    lock; ``ValueError`` (nothing written) when the baseline is damaged.
    """
    base = Path(root)
    with store_lock(base):
        baseline = load_baseline(base)
        if baseline.damaged:
            raise ValueError(f"{baseline.damaged}; repair or delete it, nothing written")
        hashes, unknown = _memory_files(base)
        current: dict[str, str | None] = dict(hashes)
        # Gone files lint would still ask about: in the baseline, or last
        # journaled as anything but a removal.
        logged = latest_lines(base)
        known = set(baseline.files) | {path for path, (_, action) in logged.items() if action != "remove"}
        current.update({path: None for path in known if path not in current and path not in unknown})
        # Every entry is rewritten (the state as of now), but an unread file keeps what was accepted.
        kept = Baseline({}, {p: e for p, e in baseline.raw.items() if p in unknown})
        text = render_baseline(kept, current, by=by, ts=ts or utc_now_iso())
        atomic_write(base / BASELINE_FILE, text)
    return text
