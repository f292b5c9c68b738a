"""Drift: memory files changed behind the library's back, and the accepted baseline.

Every write through the library appends a journal line right after it
replaces the file, so a file whose modification time is later than its last
journal line (by more than :data:`SLACK_SECONDS`) was written by something
else: an agent editing the markdown directly, an editor, a sync tool. That
is allowed (the files are the truth) but worth knowing, since nothing in
the journal says who did it or why.

Timestamps alone cannot tell a real edit from a ``touch`` or a ``git
checkout``, so a person can accept the current state of a file: its sha256
goes into ``lint-baseline.json`` under the memory directory, and the file
is not reported again until its content differs from what was accepted::

    {"version": 1, "files": {
      "wiki/people.md": {"sha256": "9f8a…", "accepted": "2026-07-22T08:00:00+00:00", "by": "lint"},
      "diary/2026-07-01.md": {"sha256": null, "accepted": "…", "by": "lint"}
    }}

``sha256: null`` accepts that the file is gone. The rule is content
first: a file whose sha256 is its accepted one is never drift, whatever its
mtime and the journal say, so a baseline survives every copy that keeps the
bytes (``cp -r``, a fresh clone, ``git checkout``, unpacking an archive),
all of which give every file a new mtime. Commit the baseline with the
memory. :func:`accept_current_state` accepts a whole directory as it is now
(what a tool that just wrote a memory behind the library's back, such as
the app's demo copier, calls); ``wikimem lint --fix`` accepts only what is
drift. Deleting the baseline is safe: drift is then judged from the journal
alone again. A damaged baseline is ignored when reading and never
overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from wikimem.blocks import atomic_write, read_text, store_lock
from wikimem.journal import latest_lines, utc_now_iso
from wikimem.markers import has_conflict_markers
from wikimem.tolerant import UnreadableError, parse_json, read_regular

__all__ = [
    "BASELINE_FILE",
    "SLACK_SECONDS",
    "Baseline",
    "DriftState",
    "accept",
    "accept_current_state",
    "judge",
    "load_baseline",
    "render_baseline",
]

BASELINE_FILE = "lint-baseline.json"
#: A library write stamps its journal line (whole seconds) just after the
#: rename, so a file may look up to a second newer than its line; two
#: seconds of slack keep that from reading as drift.
SLACK_SECONDS = 2.0


@dataclass(frozen=True)
class Baseline:
    """Accepted states: ``path -> sha256`` (``None`` = accepted as deleted)."""

    files: dict[str, str | None]
    raw: dict[str, dict[str, object]]
    damaged: str | None = None


@dataclass(frozen=True)
class DriftState:
    """What lint knows about one memory path when judging drift."""

    path: str
    sha256: str | None
    mtime: float | None
    logged: float | None
    last_action: str | None = None


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
        raw = {str(k): dict(v) for k, v in files.items() if isinstance(v, dict)}
        hashes = {k: v.get("sha256") if isinstance(v.get("sha256"), str) else None for k, v in raw.items()}
    except (ValueError, KeyError, TypeError) as exc:
        return Baseline({}, {}, damaged=f"{BASELINE_FILE} is not a valid baseline ({exc})")
    return Baseline(hashes, raw)


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


def _memory_files(root: Path) -> tuple[dict[str, str], set[str]]:
    """``path -> sha256`` of every readable ``*.md`` directly in ``wiki/`` and ``diary/``, and the others.

    The others exist but were not read (see :mod:`wikimem.tolerant`) or hold
    git conflict markers (:mod:`wikimem.markers`): their state is unknown, so
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
