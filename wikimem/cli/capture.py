"""``wikimem capture claude-code|codex [PATH...]``: agent sessions into Evidence Cards and diary entries.

Writes, in one recoverable write (``--dry-run`` only shows); running it
again changes nothing unless a session grew. ``--hook`` reads Claude Code's
hook input and captures that one session; it never exits 2, because a Stop
hook exiting 2 makes Claude Code carry on working with the error as its
next instruction: a hook failure is exit 1 (shown to the person, ignored by
the agent).
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from wikimem.cli.io import Output, counted, read_hook_input
from wikimem.cli.write import BAD_INPUT, fail

if TYPE_CHECKING:
    from wikimem.capture import CaptureReport
    from wikimem.store import MemoryStore

__all__ = ["register", "run_capture"]

Command = Callable[["MemoryStore", argparse.Namespace, Output], int]


def register(commands: argparse._SubParsersAction,  # type: ignore[type-arg]
             table: dict[str, Command], store_option: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``capture`` to the parser and the command table (the one call ``wikimem.cli`` makes)."""
    parser = commands.add_parser("capture", help="capture Claude Code or Codex sessions into the diary (writes)")
    parser.add_argument("agent", choices=("claude-code", "codex"), help="whose session logs to read")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="session folders or files (default: ~/.claude/projects, $CODEX_HOME/sessions "
                             "or ~/.codex/sessions)")
    parser.add_argument("--since", metavar="DATE", help="only sessions active on or after YYYY-MM-DD")
    parser.add_argument("--tz", metavar="ZONE", help="time zone of the diary days (default: the system's)")
    parser.add_argument("--dry-run", action="store_true", help="print what would be written, write nothing")
    parser.add_argument("--json", action="store_true", help="one JSON object: entries, cards, skipped, written")
    parser.add_argument("--verbose", "-v", action="store_true", help="say what was skipped in each session log")
    parser.add_argument("--hook", action="store_true",
                        help="read a Claude Code hook's JSON on stdin and capture its transcript_path")
    store_option(parser)
    table["capture"] = run_capture


def _fail(out: Output, hook: bool, message: str) -> int:
    out.error(f"wikimem capture: error: {message}")
    return 1 if hook else 2


def _hook_paths(out: Output) -> list[str] | str:
    """The transcript named by a hook's stdin, or the reason there is none.

    Read as every hook's input is (:func:`wikimem.cli.io.read_hook_input`):
    one too large, too deep or not UTF-8 is a reason, never a traceback.
    """
    try:
        payload = read_hook_input()
    except ValueError as exc:
        return f"--hook: {exc}"
    path = payload.get("transcript_path") if isinstance(payload, dict) else None
    if not isinstance(path, str) or not path:
        return "--hook: the hook input has no transcript_path"
    return [path]


def run_capture(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """Run ``wikimem capture`` with parsed ``args``; returns the exit code."""
    from wikimem.capture import capture
    from wikimem.disk.names import validate_date

    hook = bool(args.hook)
    tz: dt.tzinfo | None = None
    if args.tz:
        try:
            tz = ZoneInfo(args.tz)
        except (KeyError, ValueError):
            return _fail(out, hook, f"bad --tz {args.tz!r}: not a time zone name")
    if args.since:
        try:
            validate_date(args.since)
        except ValueError:
            return _fail(out, hook, f"bad --since {args.since!r}: expected YYYY-MM-DD")
    paths: list[str] | None = list(args.paths) or None
    if hook:
        found = _hook_paths(out)
        if isinstance(found, str):
            return _fail(out, hook, found)
        paths = found
    try:
        report = capture(store.root, args.agent, paths, since=args.since, tz=tz, dry_run=args.dry_run)
    except OSError as exc:  # the store cannot be written (permissions, a full disk): nothing landed
        code = fail(args, out, BAD_INPUT, f"store error: {exc}")
        return 1 if hook else code
    if args.json:
        out.json({"ok": not (report.missing or report.refused), **report.as_dict()}, indent=2)
    else:
        _print(report, out, verbose=args.verbose)
    for path, reason in report.missing:
        out.error(f"wikimem capture: error: {path}: {reason}")
    for path, reason in report.refused:
        out.error(f"wikimem capture: error: {path} not captured: {reason}")
    if report.missing or report.refused:
        return 1 if hook else 2
    return 0


def _print(report: CaptureReport, out: Output, *, verbose: bool) -> None:
    would = "would add" if report.dry_run else "added"
    follow = sum(1 for e in report.entries if e.follow_up)
    n = len(report.entries)
    out.line(f"{report.agent}: {would} {counted(n, 'diary entry', 'diary entries')} "
             f"({counted(len(report.new), 'new card')}, {follow} follow-up), "
             f"{report.unchanged} unchanged")
    for entry in report.entries:
        kind = "follow-up" if entry.follow_up else "new"
        out.line(f"+ diary {entry.entry_id.render()}  {kind}  {entry.card_id}" + ("  derived" if entry.derived else ""))
        if report.dry_run:
            for line in entry.content.split("\n"):
                out.line(f"    {line}")
    for path, reason in report.skipped:
        out.line(f"skipped {path}: {reason}")
    totals: Counter[str] = Counter()
    for path, counts in report.notes:
        totals.update(counts)
        if verbose:
            out.line(f"read {path}: skipped " + "; ".join(f"{why}: {n}" for why, n in counts.items()))
    if totals and not verbose:
        out.line("skipped while reading: " + "; ".join(f"{why}: {n}" for why, n in sorted(totals.items())))
    if report.written:
        out.line(("would write " if report.dry_run else "wrote ") + ", ".join(report.written))
