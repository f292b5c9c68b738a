"""``wikimem export json|vault|digest``: the memory in other shapes (reads the memory, writes only OUT).

Each output file is written atomically. Exit codes: 0 done, 1 nothing to
export (a digest of nothing), 2 bad input (an unknown item, a folder or
file that is not the export's own).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikimem.cli.io import Output, counted, json_text
from wikimem.cli.write import fail

if TYPE_CHECKING:
    from wikimem.store import MemoryStore

__all__ = ["register", "run_export"]


def register(commands: Any, table: dict[str, Callable[..., int]],
             store_option: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``export`` (json, vault, digest) to the parser and the command table."""
    parser = commands.add_parser("export", help="export the memory: a JSON document, an Obsidian vault, a digest")
    kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True, parser_class=type(parser))
    doc = kinds.add_parser("json", help="the whole memory as one JSON document ('wikimem import json' reads it)")
    doc.add_argument("out", metavar="OUT", help="the file to write ('-': stdout)")
    doc.add_argument("--force", action="store_true", help="replace OUT even if it is not an earlier export")
    vault = kinds.add_parser("vault", help="a note per item: a folder Obsidian opens as a vault")
    vault.add_argument("out", metavar="DIR", help="an empty folder, or one an earlier export wrote")
    digest = kinds.add_parser("digest", help="a CLAUDE.md-style digest of chosen items (regenerated, never merged)")
    digest.add_argument("out", metavar="OUT", help="the file to write ('-': stdout)")
    digest.add_argument("--items", nargs="+", default=[], metavar="FILE:NAME", help="items to put in it")
    digest.add_argument("--file", nargs="+", default=[], dest="files", metavar="FILE",
                        help="RecallFiles to put in it, all of their items")
    digest.add_argument("--tag", nargs="+", default=[], dest="tags", metavar="TAG",
                        help="RecallFiles whose frontmatter tags include TAG, all of their items")
    digest.add_argument("--force", action="store_true", help="replace OUT even if wikimem did not generate it")
    for sub in (doc, vault, digest):
        sub.add_argument("--json", action="store_true", help="print one JSON document saying what was written")
        store_option(sub)
    store_option(parser)
    table["export"] = run_export


def _fail(args: argparse.Namespace, out: Output, code: int, message: str) -> int:
    return fail(args, out, code, message, prefix="wikimem export: error", kind="nothing" if code == 1 else "bad_input")


#: The summary's keys (those of ``--json``) as the text line says them: ``2 diary entries``, not ``2 diary``.
_NOUNS = {"items": ("item", "items"), "diary": ("diary entry", "diary entries"),
          "journal": ("journal line", "journal lines"), "notes": ("note", "notes")}


def _write(target: str, text: str, *, force: bool) -> None:
    """``text`` to stdout or ``target``; ``ValueError`` when ``target`` holds a file that is not an earlier export.

    An export's first line names its format: any other file at ``target``
    (a typo'd path onto someone's notes) is not replaced without ``--force``.
    """
    from wikimem.disk.atomic import atomic_write

    if target == "-":
        sys.stdout.write(text)
        return
    path = Path(target)
    head = text.split("\n", 2)
    start = "\n".join(head[:2]).encode()  # "{" and the format line
    try:
        with path.open("rb") as handle:
            found = handle.read(len(start))
    except FileNotFoundError:
        found = start
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    if found != start and not force:
        raise ValueError(f"{path} is not an earlier 'wikimem export json': not overwritten (--force to replace it)")
    atomic_write(path, text)


def run_export(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """Run ``wikimem export`` with parsed ``args``; returns the exit code."""
    from wikimem.interop.digest import choose, render_digest, write_digest
    from wikimem.interop.json_doc import export_document
    from wikimem.interop.vault import export_vault

    try:
        if args.kind == "json":
            doc = export_document(store)
            _write(args.out, json_text(doc, indent=1) + "\n", force=args.force)
            summary: dict[str, Any] = {"items": len(doc["items"]), "diary": len(doc["diary"]),
                                       "journal": len(doc["journal"])}
        elif args.kind == "vault":
            notes = export_vault(store, Path(args.out))
            summary = {"notes": len(notes)}
        else:
            chosen = choose(store, items=args.items, files=args.files, tags=args.tags)
            if not chosen:
                return _fail(args, out, 1, "nothing to put in the digest: name items (--items), files (--file) "
                                           "or tags (--tag)")
            command = ["wikimem", "-s", str(store.root), "export", "digest", args.out]
            for option, values in (("--items", args.items), ("--file", args.files), ("--tag", args.tags)):
                command += [option, *values] if values else []
            text = render_digest(chosen, command)
            if args.out == "-":
                out.write(text)  # memory text on a terminal: hidden characters made visible (cli.io)
            else:
                write_digest(Path(args.out), text, force=args.force)
            summary = {"items": len(chosen)}
    except ValueError as exc:
        return _fail(args, out, 2, str(exc))
    except OSError as exc:
        return _fail(args, out, 2, f"cannot write {args.out}: {exc.strerror or exc}")
    if args.out != "-":
        if args.json:
            out.json({"ok": True, "kind": args.kind, "out": args.out, **summary})
        else:
            said = ", ".join(counted(n, *_NOUNS[key]) for key, n in summary.items())
            out.line(f"exported {said} to {args.out}")
    return 0
