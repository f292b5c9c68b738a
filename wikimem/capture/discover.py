"""Where each agent keeps its sessions, and which files under a folder are session logs.

Logs get renamed, copied, exported: a file name is a hint and the content
decides, so any ``.jsonl`` whose first lines have an agent's shape is a
session, and a folder's workflow journals and tool-result dumps are not.
Every file passed over is said, by reason.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from wikimem.capture import claude_code, codex
from wikimem.disk.tolerant import loads_tolerant

__all__ = ["AGENTS", "default_roots", "session_files"]

#: The agents capture reads, by their command-line name.
AGENTS = ("claude-code", "codex")
_CLAUDE_NAME_RE = re.compile(r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|agent-[\w-]+)\.jsonl$",
                             re.I)
_CODEX_NAME_RE = re.compile(r"^rollout-.*\.jsonl$")
#: How much of a file not named like a session is read to tell by its shape: lines, bytes, one line's bytes.
_SNIFF_LINES = 20
_SNIFF_BYTES = 16 << 20
_SNIFF_LINE = 1 << 20
_SHAPES: dict[str, tuple[str, Callable[[list[dict[str, Any]]], bool]]] = {
    "claude-code": ("a Claude Code transcript", claude_code.looks_like_session),
    "codex": ("a Codex rollout", codex.looks_like_session),
}


def default_roots(agent: str) -> list[Path]:
    """The folder ``agent`` writes its sessions to (whether it exists or not)."""
    if agent == "claude-code":
        config = os.environ.get("CLAUDE_CONFIG_DIR")
        return [Path(config).expanduser() / "projects" if config else Path.home() / ".claude" / "projects"]
    if agent == "codex":
        home = os.environ.get("CODEX_HOME")
        return [Path(home).expanduser() / "sessions" if home else Path.home() / ".codex" / "sessions"]
    raise ValueError(f"unknown agent {agent!r}: expected one of {', '.join(AGENTS)}")


def _is_session_name(agent: str, name: str) -> bool:
    return bool((_CLAUDE_NAME_RE if agent == "claude-code" else _CODEX_NAME_RE).match(name))


def _first_objects(path: Path) -> list[dict[str, Any]] | None:
    """The JSON objects of the first whole lines of ``path`` (``None``: it cannot be read).

    A line longer than :data:`_SNIFF_LINE` (a pasted file, an image) is
    passed over, not held; at most :data:`_SNIFF_BYTES` are read in all.
    """
    objects: list[dict[str, Any]] = []
    read = 0
    try:
        with open(path, "rb") as handle:
            while len(objects) < _SNIFF_LINES and read < _SNIFF_BYTES:
                line = handle.readline(_SNIFF_LINE)
                if not line:
                    break
                read += len(line)
                if not line.endswith(b"\n"):  # longer than a line worth reading, or torn: skip to its end
                    while read < _SNIFF_BYTES and (line := handle.readline(_SNIFF_LINE)) and not line.endswith(b"\n"):
                        read += len(line)
                    continue
                value = loads_tolerant(line.decode("utf-8", "replace"))
                if isinstance(value, dict):
                    objects.append(value)
    except OSError:
        return None
    return objects


def _not_a_session(agent: str, path: Path) -> str | None:
    """Why the ``.jsonl`` file ``path``, not named like a session, is none (``None``: it is one)."""
    first = _first_objects(path)
    if first is None:
        return "cannot be read"
    what, looks = _SHAPES[agent]
    if looks(first):
        return None
    for other, (its, other_looks) in _SHAPES.items():
        if other != agent and other_looks(first):
            return f"not named like a session, and its first lines are {its} (capture {other} reads it)"
    return f"not named like a session, and its first lines are not {what}'s"


def session_files(agent: str, paths: Sequence[str | os.PathLike[str]] | None = None, *,
                  passed: list[tuple[str, str]] | None = None) -> tuple[list[Path], list[tuple[str, str]]]:
    """The session logs under ``paths`` (default: the agent's folder), sorted; and the paths that are not usable.

    A missing default folder is no problem (the agent was never run here);
    a missing path the caller named is. ``passed`` receives ``(path,
    reason)`` for each ``.jsonl`` file in a folder that is not a session
    log, and one line per folder counting its other files.
    """
    named = paths is not None and len(paths) > 0
    roots = [Path(p).expanduser() for p in paths] if named and paths else default_roots(agent)
    found: set[Path] = set()
    problems: list[tuple[str, str]] = []
    for root in roots:
        try:
            info = os.stat(root)
        except FileNotFoundError:
            if named:
                problems.append((str(root), "no such file or directory"))
            continue
        except OSError as exc:
            problems.append((str(root), exc.strerror or str(exc)))
            continue
        if stat.S_ISREG(info.st_mode):
            found.add(root)
        elif stat.S_ISDIR(info.st_mode):
            others = 0
            for folder, dirs, files in os.walk(root, onerror=lambda exc: problems.append(
                    (str(exc.filename), exc.strerror or str(exc)))):
                dirs.sort()
                for name in sorted(files):
                    path = Path(folder) / name
                    if not name.endswith(".jsonl") or not path.is_file():
                        others += 1
                        continue
                    why = None if _is_session_name(agent, name) else _not_a_session(agent, path)
                    if why is None:
                        found.add(path)
                    elif passed is not None:
                        passed.append((str(path), why))
            if others and passed is not None:
                passed.append((str(root), f"{others} other file{'s' if others > 1 else ''} in it (not .jsonl logs)"))
        else:
            problems.append((str(root), "not a regular file or a directory"))
    return sorted(found), problems
