"""``wikimem install``: the MCP server (and Claude Code's hooks) written into an agent's own config.

Each agent keeps its config in a file of its own format (see :data:`AGENTS`
and each writer below), next to settings the person made by hand, so an
install is an edit that must take nothing else with it. Codex's TOML is
edited as text: the standard library reads TOML, it cannot write it.

Rules: a config that does not parse, or whose parts have another shape than
the agent documents, is refused (:class:`ConfigError`), never rewritten;
every edit is checked by parsing the result and comparing everything but
the entry with what was there; an entry already as it would be written is
not written again; a changed file is backed up first; a symlinked config is
edited where it leads; a write that fails puts back the files already
written; ``--uninstall`` removes exactly what install writes (an entry that
differs is refused, not guessed at).
"""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
import difflib
import json
import os
import re
import shlex
import shutil
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.disk.atomic import atomic_write

__all__ = ["AGENTS", "Change", "ConfigError", "apply_changes", "config_path", "hook_commands", "plan",
           "server_entry", "unified_diff"]

AGENTS = ("claude-code", "codex", "cursor", "claude-desktop")
NAME = "wikimem"


class ConfigError(ValueError):
    """An agent's config cannot be edited safely (malformed, another shape, an entry that is not ours)."""


@dataclass(frozen=True)
class Change:
    """One config file: its text before and after (``None``: absent), and what the edit does."""

    path: Path
    before: str | None
    after: str | None
    what: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _wikimem_command() -> list[str]:
    """How to start this wikimem: the console script beside this Python, else ``python -m wikimem``."""
    exe = Path(sys.executable)
    for name in ("wikimem", "wikimem.exe"):
        script = exe.with_name(name)
        if script.is_file():
            return [str(script)]
    return [str(exe), "-m", "wikimem"]


def server_entry(store: Path, *, agent: str) -> dict[str, Any]:
    """The ``mcpServers.wikimem`` entry (Codex: the table) that starts the server on ``store``."""
    command, *prefix = _wikimem_command()
    entry: dict[str, Any] = {"command": command, "args": [*prefix, "-s", str(store), "mcp"]}
    return {"type": "stdio", **entry, "env": {}} if agent == "claude-code" else entry


def hook_commands(store: Path) -> dict[str, tuple[str, int]]:
    """Claude Code's hook commands by event, with their timeouts (seconds)."""
    base = [*_wikimem_command(), "-s", str(store)]
    recall = shlex.join([*base, "recall", "--from-hook", "--fail-open", "--budget", "600"])
    capture = shlex.join([*base, "capture", "claude-code", "--hook"])
    return {"UserPromptSubmit": (recall, 10), "Stop": (capture, 30), "PreCompact": (capture, 30)}


def config_path(agent: str, *, home: Path | None = None) -> Path:
    """Where ``agent`` keeps its MCP servers (Claude Code: ``~/.claude.json``)."""
    home = home if home is not None else Path.home()
    if agent == "claude-code":
        return home / ".claude.json"
    if agent == "codex":
        codex_home = os.environ.get("CODEX_HOME")
        return (Path(codex_home) if codex_home else home / ".codex") / "config.toml"
    if agent == "cursor":
        return home / ".cursor" / "mcp.json"
    if agent == "claude-desktop":
        if sys.platform == "darwin":
            return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
        if sys.platform == "win32":
            appdata = os.environ.get("APPDATA")
            return (Path(appdata) if appdata else home / "AppData" / "Roaming") / "Claude" / "claude_desktop_config.json"
        xdg = os.environ.get("XDG_CONFIG_HOME")
        return (Path(xdg) if xdg else home / ".config") / "Claude" / "claude_desktop_config.json"
    raise ValueError(f"unknown agent {agent!r}: expected one of {', '.join(AGENTS)}")


def _read(path: Path) -> str | None:
    try:
        return path.read_text("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8: not changed") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None


def _json_object(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}): "
                          f"not changed; fix it or move it aside") from None
    except RecursionError:
        raise ConfigError(f"{path}: JSON nested too deeply: not changed") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level is not a JSON object: not changed")
    return data


def _table(path: Path, data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: {key!r} is not an object: not changed")
    return value


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _json_server(path: Path, entry: dict[str, Any], *, uninstall: bool) -> Change:
    before = _read(path)
    data = _json_object(path, before)
    original = copy.deepcopy(data)
    servers = _table(path, data, "mcpServers")
    current = servers.get(NAME)
    if uninstall:
        if current is None:
            return Change(path, before, before, "no wikimem server entry")
        if current != entry:
            raise ConfigError(f"{path}: mcpServers.{NAME} is not what install writes for this store "
                              f"({json.dumps(current)}): not removed; pass the --store it was installed for")
        del servers[NAME]
        if not servers and "mcpServers" not in original:
            del data["mcpServers"]
        return Change(path, before, _dump(data), f"removed mcpServers.{NAME}")
    if current == entry:
        return Change(path, before, before, f"mcpServers.{NAME} already installed")
    servers[NAME] = entry
    return Change(path, before, _dump(data), f"{'updated' if current is not None else 'added'} mcpServers.{NAME}")


def _hook_group(command: str, timeout: int) -> dict[str, Any]:
    return {"hooks": [{"type": "command", "command": command, "timeout": timeout}]}


def _claude_hooks(path: Path, store: Path, *, uninstall: bool) -> Change:
    before = _read(path)
    data = _json_object(path, before)
    hooks = _table(path, data, "hooks")
    done: list[str] = []
    for event, (command, timeout) in hook_commands(store).items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
            raise ConfigError(f"{path}: hooks.{event} is not a list of matcher groups: not changed")
        ours = [g for g in groups if g == _hook_group(command, timeout)]
        if uninstall:
            if ours:
                hooks[event] = [g for g in groups if g != _hook_group(command, timeout)]
                if not hooks[event]:
                    del hooks[event]
                done.append(event)
            elif not groups:
                del hooks[event]
        elif not ours:
            groups.append(_hook_group(command, timeout))
            done.append(event)
    if not hooks:
        del data["hooks"]
    if not done:
        return Change(path, before, before, "hooks already installed" if not uninstall else "no wikimem hooks")
    return Change(path, before, _dump(data), ("removed" if uninstall else "added") + " hooks " + ", ".join(done))


# -- Codex: TOML written as text ------------------------------------------------------------

_HEADER_RE = re.compile(r"^\s*\[\s*mcp_servers\s*\.\s*(?:wikimem|\"wikimem\"|'wikimem')\s*\]\s*(?:#.*)?$")
_SUBHEADER_RE = re.compile(r"^\s*\[\s*mcp_servers\s*\.\s*(?:wikimem|\"wikimem\"|'wikimem')\s*\.")
_ANY_HEADER_RE = re.compile(r"^\s*\[")


def _toml(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}): not changed; fix it or move it aside") from None


def _toml_block(entry: dict[str, Any]) -> str:
    # A JSON string is a valid TOML basic string (its escapes are TOML's); ensure_ascii keeps any byte out.
    args = ", ".join(json.dumps(a) for a in entry["args"])
    return f"[mcp_servers.{NAME}]\ncommand = {json.dumps(entry['command'])}\nargs = [{args}]\n"


def _block_span(lines: list[str]) -> tuple[int, int] | None:
    """The lines of the ``[mcp_servers.wikimem]`` table (with its sub-tables), or ``None`` when it has no header."""
    start = next((i for i, line in enumerate(lines) if _HEADER_RE.match(line)), None)
    if start is None:
        return None
    end = start + 1
    while end < len(lines) and (not _ANY_HEADER_RE.match(lines[end]) or _SUBHEADER_RE.match(lines[end])):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():  # the blank lines before the next table stay its
        end -= 1
    return start, end


def _codex(path: Path, entry: dict[str, Any], *, uninstall: bool) -> Change:
    before = _read(path)
    text = before or ""
    data = _toml(path, text)
    servers = data.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: mcp_servers is not a table: not changed")
    current = servers.get(NAME)
    if not uninstall and current == entry:
        return Change(path, before, before, f"[mcp_servers.{NAME}] already installed")
    if uninstall and current is None:
        return Change(path, before, before, f"no [mcp_servers.{NAME}]")
    if uninstall and current != entry:
        raise ConfigError(f"{path}: [mcp_servers.{NAME}] is not what install writes for this store: not removed; "
                          f"pass the --store it was installed for")
    lines = text.splitlines(keepends=True)
    span = _block_span(lines)
    if current is not None and span is None:
        raise ConfigError(f"{path}: mcp_servers.{NAME} is written in a form install does not edit "
                          f"(an inline table or dotted keys): edit it by hand")
    if span is not None:
        start, end = span
        if uninstall:
            if start > 0 and not lines[start - 1].strip():  # the blank line install put before the table
                start -= 1
            after = "".join(lines[:start] + lines[end:])
        else:
            after = "".join(lines[:start] + [_toml_block(entry)] + lines[end:])
    elif not text:
        after = _toml_block(entry)
    else:
        after = text + ("\n" if text.endswith("\n") else "\n\n") + _toml_block(entry)
    check = _toml(path, after)
    others = {k: v for k, v in check.get("mcp_servers", {}).items() if k != NAME}
    if others != {k: v for k, v in servers.items() if k != NAME} or \
            {k: v for k, v in check.items() if k != "mcp_servers"} != {k: v for k, v in data.items() if k != "mcp_servers"}:
        raise ConfigError(f"{path}: the edit would change other settings: not changed")
    if check.get("mcp_servers", {}).get(NAME) != (None if uninstall else entry):
        raise ConfigError(f"{path}: the edit did not give the expected table: not changed")
    verb = "removed" if uninstall else ("updated" if current is not None else "added")
    return Change(path, before, after, f"{verb} [mcp_servers.{NAME}]")


def plan(agent: str, store: Path, *, uninstall: bool = False, config: Path | None = None,
         home: Path | None = None) -> list[Change]:
    """The edits installing (or removing) wikimem for ``agent`` makes; ``ConfigError`` when a file is not safe to edit."""
    store = store.expanduser().resolve()
    target = config if config is not None else config_path(agent, home=home)
    if agent == "codex":
        return [_codex(target, server_entry(store, agent=agent), uninstall=uninstall)]
    changes = [_json_server(target, server_entry(store, agent=agent), uninstall=uninstall)]
    if agent == "claude-code":
        settings = (home if home is not None else Path.home()) / ".claude" / "settings.json"
        changes.append(_claude_hooks(settings, store, uninstall=uninstall))
    return changes


def unified_diff(change: Change) -> str:
    """The change as a unified diff (empty when it changes nothing)."""
    return "".join(difflib.unified_diff((change.before or "").splitlines(keepends=True),
                                        (change.after or "").splitlines(keepends=True),
                                        fromfile=str(change.path), tofile=str(change.path)))


def apply_changes(changes: list[Change], *, now: dt.datetime | None = None) -> list[tuple[Path, Path | None]]:
    """Write every change (atomically), each existing file backed up first; returns ``(file, backup)`` pairs.

    All or none: an agent's install can be two files (Claude Code's server
    and hooks), so when one write fails the files already written are put
    back as they were (their backups removed) before the error goes on.
    """
    stamp = (now or dt.datetime.now(dt.timezone.utc)).strftime("%Y%m%dT%H%M%S")
    done: list[tuple[Path, Path | None]] = []
    undo: list[tuple[Path, str | None, Path | None]] = []  # (written file, its text before, backup)
    try:
        for change in changes:
            if not change.changed or change.after is None:
                continue
            backup = None
            if change.before is not None:
                backup = change.path.with_name(f"{change.path.name}.wikimem-backup-{stamp}")
                n = 2
                while backup.exists():  # two edits in one second: the earlier backup is kept
                    backup, n = change.path.with_name(f"{change.path.name}.wikimem-backup-{stamp}-{n}"), n + 1
                shutil.copy2(change.path, backup)
            # A config linked in from elsewhere (a dotfiles repository) is edited where it leads; the rename of
            # an atomic write would otherwise put a plain file in the link's place.
            target = change.path.resolve() if change.path.is_symlink() else change.path
            undo.append((target, change.before, backup))
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target, change.after)
            done.append((change.path, backup))
    except OSError:
        for target, before, backup in reversed(undo):
            with contextlib.suppress(OSError):
                if before is None:
                    target.unlink(missing_ok=True)
                else:
                    atomic_write(target, before)
                if backup is not None:
                    backup.unlink(missing_ok=True)
        raise
    return done
