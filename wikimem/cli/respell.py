"""``wikimem respell-links [--to SPELLING] [--dry-run]``: every wiki link in one spelling.

A memory that is also an Obsidian vault wants ``[[file#name]]`` (a vault
resolves those; it reads ``[[file:name]]`` as a link to a note called
``file:name``); a memory shared with scripts written for the reference
library may want ``[[file:name]]``. Both spellings are links to this
library (:mod:`wikimem.disk.links`), so respelling changes no meaning: it
is one checked, journaled operation (:meth:`MemoryStore.respell_links`),
diary entries untouched (evidence is never rewritten). The spelling
defaults to the memory's setting (``wikimem.toml``, ``wikimem init --links``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from wikimem.cli.io import Output, counted
from wikimem.cli.write import add_json_option, done, guarded
from wikimem.disk.links import LINK_STYLES
from wikimem.store import MemoryStore

__all__ = ["register", "run_respell"]


def run_respell(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """Respell (or, with --dry-run, list what would change); exit 0 either way."""
    spelling = args.to or store.settings.link_spelling
    changed = store.respell_links(spelling, owner=args.owner, dry_run=args.dry_run)
    verb = "would respell" if args.dry_run else "respelled"
    if not args.json:
        for file, name in changed:
            out.line(f"  {file}:{name}")
    return done(args, out, f"{verb} the links of {counted(len(changed), 'item')} as {spelling}",
                 {"spelling": spelling, "dry_run": args.dry_run,
                  "items": [{"file": file, "name": name} for file, name in changed]})


def register(commands: Any, table: dict[str, Callable[..., int]],
             add_store_option: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``respell-links`` to the parser and the command table."""
    parser = commands.add_parser("respell-links", help="write every wiki link in one spelling (reference or obsidian)")
    parser.add_argument("--to", choices=LINK_STYLES, metavar="SPELLING",
                        help="reference ([[file:name]]) or obsidian ([[file#name]]); default: the memory's setting")
    parser.add_argument("--dry-run", action="store_true", help="list the items whose links would change; write nothing")
    parser.add_argument("--owner", metavar="O", help="who respells (journal)")
    add_json_option(parser)
    add_store_option(parser)
    table["respell-links"] = guarded(run_respell)
