"""Where each agent keeps its sessions, and which files under a folder are session logs.

Defaults: Claude Code's ``$CLAUDE_CONFIG_DIR/projects`` (Claude Code's own
override) or ``~/.claude/projects``; Codex's ``$CODEX_HOME/sessions`` or
``~/.codex/sessions``. A path given on the command line may be a folder
(searched recursively, symlinked folders not followed) or one file (taken
as a session log whatever its name). In a folder, Claude Code logs are
``<uuid>.jsonl`` and ``agent-<id>.jsonl`` (a project folder also holds
workflow journals and tool-result dumps, which are not sessions); Codex
logs are ``rollout-*.jsonl``.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path

__all__ = ["AGENTS", "default_roots", "session_files"]

#: The agents capture reads, by their command-line name.
AGENTS = ("claude-code", "codex")
_CLAUDE_NAME_RE = re.compile(r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|agent-[\w-]+)\.jsonl$",
                             re.I)
_CODEX_NAME_RE = re.compile(r"^rollout-.*\.jsonl$")


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


def session_files(agent: str, paths: Sequence[str | os.PathLike[str]] | None = None,
                  ) -> tuple[list[Path], list[tuple[str, str]]]:
    """The session logs under ``paths`` (default: the agent's folder), sorted; and the paths that are not usable.

    A missing default folder is no problem (the agent was never run here);
    a missing path the caller named is.
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
            for folder, dirs, files in os.walk(root, onerror=lambda exc: problems.append(
                    (str(exc.filename), exc.strerror or str(exc)))):
                dirs.sort()
                for name in files:
                    if _is_session_name(agent, name):
                        path = Path(folder) / name
                        if path.is_file():
                            found.add(path)
        else:
            problems.append((str(root), "not a regular file or a directory"))
    return sorted(found), problems
