"""``wikimem install claude-code|codex|cursor|claude-desktop``: the server (and hooks) into the agent's config.

Writes only the agent's own config files (see :mod:`wikimem.interop.install`
for which, and the rules); ``--dry-run`` prints the unified diff instead;
``--uninstall`` takes out what install wrote. Exit codes: 0 done (also
"already installed"), 1 nothing to uninstall, 2 a config that is not safe
to edit (malformed, another shape, an entry for another store) or a
failed write.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikimem.cli.io import Output

if TYPE_CHECKING:
    from wikimem.store import MemoryStore

__all__ = ["register", "run_install"]


def register(commands: Any, table: dict[str, Callable[..., int]],
             store_option: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``install`` to the parser and the command table."""
    from wikimem.interop.install import AGENTS

    parser = commands.add_parser("install", help="write the MCP server (and Claude Code's hooks) into an agent's config")
    parser.add_argument("agent", choices=AGENTS, help="the agent whose config to edit")
    parser.add_argument("--dry-run", action="store_true", help="print the diff, change nothing")
    parser.add_argument("--uninstall", action="store_true", help="remove what install wrote")
    parser.add_argument("--config", metavar="PATH", help="the agent's server config file (default: its usual place)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    store_option(parser)
    table["install"] = run_install


def run_install(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """Run ``wikimem install`` with parsed ``args``; returns the exit code."""
    from wikimem.interop.install import ConfigError, apply_changes, plan, unified_diff

    try:
        changes = plan(args.agent, Path(store.root), uninstall=args.uninstall,
                       config=Path(args.config).expanduser() if args.config else None)
        written = [] if args.dry_run else apply_changes(changes)
    except (ConfigError, OSError) as exc:
        message = str(exc) if isinstance(exc, ConfigError) else f"cannot write: {exc}"
        out.error(f"wikimem install: error: {message}")
        if args.json:
            out.json({"ok": False, "error": "bad_config", "message": message})
        return 2
    backups = {str(path): str(backup) if backup else None for path, backup in written}
    if args.json:
        out.json({"ok": True, "agent": args.agent, "dry_run": args.dry_run, "uninstall": args.uninstall,
                  "files": [{"path": str(c.path), "changed": c.changed, "what": c.what,
                             "backup": backups.get(str(c.path))} for c in changes]})
    else:
        for change in changes:
            if args.dry_run and change.changed:
                out.write(unified_diff(change))
            state = ("would change" if args.dry_run else "wrote") if change.changed else "unchanged"
            backup = backups.get(str(change.path))
            out.line(f"{args.agent}: {state} {change.path}: {change.what}" + (f" (backup {backup})" if backup else ""))
    if args.uninstall and not any(c.changed for c in changes):
        return 1
    return 0
