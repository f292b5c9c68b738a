"""``wikimem import SOURCE PATH``: another tool's memory into this one (writes; ``--dry-run`` to look).

The whole source is read and checked before anything is written, then
written in one commit: a bad file writes nothing, and a second run writes
nothing new (see :mod:`wikimem.interop.plan`). Exit codes: 0 done (also
when everything was already there), 1 nothing to import (the source holds
no conversation, entity or memory), 2 bad input (an unreadable or
malformed source, a bad ``--tz``) or a store error.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from wikimem.cli.io import Output, counted
from wikimem.cli.write import fail

if TYPE_CHECKING:
    from wikimem.interop import ImportReport
    from wikimem.store import MemoryStore

__all__ = ["register", "run_import"]

#: How many planned writes of each kind the text output lists (the counts are always whole).
SHOWN = 20


def register(commands: Any, table: dict[str, Callable[..., int]],
             store_option: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``import`` (one sub-command per source) to the parser and the command table."""
    from wikimem.interop import IMPORTERS

    parser = commands.add_parser("import", help="import another tool's memory: ChatGPT, Claude, mem0, ... (writes)")
    sources = parser.add_subparsers(dest="source", metavar="SOURCE", required=True, parser_class=type(parser))
    for name, (what, _) in IMPORTERS.items():
        sub = sources.add_parser(name, help=what)
        sub.add_argument("path", metavar="PATH", help="the file (or folder) to import")
        sub.add_argument("--dry-run", action="store_true", help="print what would be written, write nothing")
        sub.add_argument("--tz", metavar="ZONE", help="wall clock of the diary days (default: UTC)")
        sub.add_argument("--json", action="store_true", help="print one JSON document (also on failure)")
        store_option(sub)
    store_option(parser)
    table["import"] = run_import


def _fail(args: argparse.Namespace, out: Output, code: int, kind: str, message: str) -> int:
    return fail(args, out, code, message, prefix="wikimem import: error", kind=kind)


def run_import(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """Run ``wikimem import`` with parsed ``args``; returns the exit code."""
    from wikimem.interop import SourceError, apply, read_source

    tz: dt.tzinfo = dt.timezone.utc
    if args.tz:
        try:
            tz = ZoneInfo(args.tz)
        except (KeyError, ValueError):
            return _fail(args, out, 2, "bad_input", f"bad --tz {args.tz!r}: not a time zone name")
    try:
        plan = read_source(args.source, args.path, tz=tz)
        if not plan.items and not plan.entries:
            message = f"nothing to import in {args.path}" + (f" ({'; '.join(plan.notes[:3])})" if plan.notes else "")
            return _fail(args, out, 1, "nothing", message)
        report = apply(store, plan, dry_run=args.dry_run)
    except SourceError as exc:
        return _fail(args, out, 2, "bad_input", str(exc))
    except ValueError as exc:  # a value this format cannot hold, or a damaged memory file: nothing written
        return _fail(args, out, 2, "bad_input", f"{exc}: nothing written")
    except OSError as exc:
        return _fail(args, out, 2, "store_error", f"store error: {exc}: nothing written")
    if args.json:
        out.json({"ok": True, **report.as_dict()}, indent=2)
    else:
        _print(report, out)
    return 0


def _first_line(text: str) -> str:
    lines = [line for line in text.split("\n") if line.strip()]
    line = lines[1] if len(lines) > 1 and lines[0].startswith("From ") else (lines[0] if lines else "")
    return line if len(line) <= 72 else line[:71] + "…"


def _print(report: ImportReport, out: Output) -> None:
    verb = "would write" if report.dry_run else "wrote"
    out.line(f"{report.source}: {verb} {counted(len(report.added), 'new item')}, {len(report.updated)} updated, "
             f"{counted(len(report.entries), 'diary entry', 'diary entries')}; "
             f"{report.unchanged} already there")
    rows = [f"+ {i.file}:{i.name}  {_first_line(i.content)}" for i in report.added]
    rows += [f"~ {i.file}:{i.name}  {_first_line(i.content)}" for i in report.updated]
    rows += [f"+ diary {key}  {_first_line(e.content)}" for key, e in report.entries]
    for row in rows[:SHOWN]:
        out.line(row)
    if len(rows) > SHOWN:
        out.line(f"… and {len(rows) - SHOWN} more")
    for note in report.notes:
        out.line(f"skipped: {note}")
    if report.files:
        shown = ", ".join(report.files[:SHOWN]) + (f" and {len(report.files) - SHOWN} more" if len(report.files) > SHOWN else "")
        out.line(f"{verb} {shown}")
