"""The write verbs, for hooks and shell-only agents: ``add``, ``remove``, ``move``, ``diary append``.

Every write goes through the store's checked, journaled path, so a shell
agent, the MCP server and the app can never overwrite a version they did
not see (``--expected``/``--new``; exit 3 on a conflict, SPEC §7, with the
current content on stderr). Content given on the command line or in a file
is UTF-8; a file that is not is refused, never decoded lossily. Options
and exit codes: docs/reference/cli.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wikimem.cli.io import Output
from wikimem.errors import ConflictError
from wikimem.store import UNCHECKED, MemoryStore

__all__ = ["Failure", "fail", "register", "report_conflict"]

#: What the write verbs' FILE and NAME positionals are (``--help`` said nothing of them).
_FILE_HELP = "the RecallFile: wiki/FILE.md (lowercase a-z, 0-9, _ and -)"
_NAME_HELP = "the item's name: its heading in that file (quote it when it has spaces)"

#: Exit codes of the write verbs (and ``recall``, ``init``).
DONE, NOT_FOUND, BAD_INPUT, CONFLICT = 0, 1, 2, 3
_KINDS = {NOT_FOUND: "not_found", BAD_INPUT: "bad_input", CONFLICT: "conflict"}


class Failure(Exception):
    """A verb's failure: its exit code and message (raised inside a verb, reported by :func:`fail`)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def fail(args: argparse.Namespace, out: Output, code: int, message: str, *, prefix: str = "wikimem",
         kind: str | None = None, **extra: Any) -> int:
    """Report a failure: ``prefix: message`` on stderr and, with ``--json``, an error document on stdout.

    ``kind`` is the document's ``error`` (default: the one the exit code means).
    """
    out.error(f"{prefix}: {message}")
    if getattr(args, "json", False):
        out.json({"ok": False, "error": kind or _KINDS.get(code, "error"), "message": message, **extra})
    return code


def report_conflict(args: argparse.Namespace, out: Output, exc: ConflictError) -> int:
    """Exit 3: the message and the current content on stderr (and in the JSON document), nothing written."""
    current = exc.current
    out.error(f"wikimem: conflict: {exc}")
    out.error("current content:" if current is not None else "current content: (none: the item does not exist)")
    if current is not None:
        out.error(current)
    if getattr(args, "json", False):
        out.json({"ok": False, "error": "conflict", "message": str(exc), "file": exc.file, "name": exc.name,
                  "current": current, "current_item": _item(exc.item) if exc.item is not None else None})
    return CONFLICT


def _item(item: Any) -> dict[str, Any]:
    return {"file": item.file, "name": item.name, "content": item.content, "owner": item.owner,
            "source_conv": item.source_conv, "ts": item.ts}


def read_text_arg(path: str) -> str:
    """The UTF-8 text of ``path`` (``-``: stdin), or ``Failure`` (exit 2) saying why not."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise Failure(BAD_INPUT, f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Failure(BAD_INPUT, f"{'stdin' if path == '-' else path} is not UTF-8 (byte {exc.start}): "
                                 f"nothing written") from None


def _expected(args: argparse.Namespace) -> Any:
    if args.new:
        return None
    if args.expected_file is not None:
        return read_text_arg(args.expected_file).strip()
    if args.expected is not None:
        return args.expected.strip()
    return UNCHECKED


def _add_expected(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--expected", metavar="TEXT", help="the content as last read: refuse (exit 3) if it changed")
    group.add_argument("--expected-file", metavar="PATH", help="the same, read from a file ('-': stdin)")
    group.add_argument("--new", action="store_true", help="the item must not exist yet (exit 3 if it does)")


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document (also on failure)")


def guarded(run: Callable[[MemoryStore, argparse.Namespace, Output], int]) -> Callable[..., int]:
    """Turn the verbs' exceptions into exit codes: Failure, conflict, bad input, an unusable store."""

    def verb(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
        try:
            return run(store, args, out)
        except Failure as exc:
            return fail(args, out, exc.code, str(exc))
        except ConflictError as exc:
            return report_conflict(args, out, exc)
        except ValueError as exc:  # a name, the content, provenance, a lossy file: nothing written
            return fail(args, out, BAD_INPUT, f"{exc}")
        except OSError as exc:  # the store cannot be written (permissions, a full disk)
            return fail(args, out, BAD_INPUT, f"store error: {exc}")

    return verb


def done(args: argparse.Namespace, out: Output, line: str, payload: dict[str, Any]) -> int:
    if args.json:
        out.json({"ok": True, **payload})
    else:
        out.line(line)
    return DONE


def run_add(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """``add FILE NAME [CONTENT]``: insert or replace one item (checked with --expected/--new)."""
    if args.text is not None:
        content = args.text
    else:
        content = args.content if args.content is not None else read_text_arg(args.content_file)
    item = store.add(args.file, args.name, content, owner=args.owner, source_conv=args.source,
                     expected=_expected(args))
    return done(args, out, f"wrote {item.file}:{item.name}", {"item": _item(item)})


def run_remove(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """``remove FILE NAME``: delete one item; exit 1 when there is none."""
    expected = _expected(args)
    removed = store.remove(args.file, args.name, owner=args.owner, expected=expected)
    if not removed:
        raise Failure(NOT_FOUND, f"no item: {args.file}:{args.name}")
    return done(args, out, f"removed {args.file}:{args.name}",
                 {"removed": {"file": args.file, "name": args.name}})


def run_move(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """``move FILE NAME --to FILE[:NAME]``: rename and/or move, links rewritten with --rewrite-links."""
    new_file, sep, new_name = args.to.partition(":")
    if not new_file:
        raise Failure(BAD_INPUT, f"bad --to {args.to!r}: use FILE or FILE:NAME")
    if store.get(args.file, args.name) is None:
        raise Failure(NOT_FOUND, f"no item: {args.file}:{args.name}")
    moved = store.move(args.file, args.name, new_file=new_file, new_name=new_name if sep and new_name else None,
                       owner=args.owner, rewrite_links=args.rewrite_links, expected=_expected(args))
    return done(args, out, f"moved {args.file}:{args.name} to {moved.file}:{moved.name}",
                 {"from": {"file": args.file, "name": args.name}, "item": _item(moved)})


def run_diary_append(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """``diary append TEXT``: one diary entry (``-`` reads the text from stdin)."""
    text = read_text_arg("-") if args.text == "-" else args.text
    entry = store.diary.append(text, date=args.date, time=args.time, owner=args.owner, source_conv=args.source)
    payload = {"date": entry.date, "time": entry.time, "entry": entry.entry_id.key, "content": entry.content,
               "owner": entry.owner, "source_conv": entry.source_conv, "ts": entry.ts}
    return done(args, out, f"appended diary {entry.entry_id.render()}", {"entry": payload})


def register(commands: Any, table: dict[str, Callable[..., int]],
             add_store_option: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``add``, ``remove``, ``move`` and ``diary append`` to the parser and the command table."""
    add = commands.add_parser("add", help="write one item (insert or replace; checked with --expected/--new)")
    add.add_argument("file", metavar="FILE", help=_FILE_HELP)
    add.add_argument("name", metavar="NAME", help=_NAME_HELP)
    content = add.add_mutually_exclusive_group(required=True)
    # Positional like `diary append TEXT` (a first try `wikimem add prefs tea "Jasmine tea."` was refused);
    # --content stays for text that starts with '-'.
    content.add_argument("text", nargs="?", metavar="CONTENT", help="the item's content (or --content, --content-file)")
    content.add_argument("--content", metavar="TEXT", help="the item's content (also when it starts with '-')")
    content.add_argument("--content-file", metavar="PATH", help="read the content from a file ('-': stdin)")
    add.add_argument("--owner", metavar="O", help="whose memory this is (e.g. agent:claude-code)")
    add.add_argument("--source", metavar="S", help="the conversation it came from (source_conv)")
    _add_expected(add)

    remove = commands.add_parser("remove", help="delete one item (exit 1 if there is none)")
    remove.add_argument("file", metavar="FILE", help=_FILE_HELP)
    remove.add_argument("name", metavar="NAME", help=_NAME_HELP)
    remove.add_argument("--owner", metavar="O", help="who removes it (journal)")
    _add_expected(remove)

    move = commands.add_parser("move", help="rename an item or move it to another RecallFile")
    move.add_argument("file", metavar="FILE", help=_FILE_HELP)
    move.add_argument("name", metavar="NAME", help=_NAME_HELP)
    move.add_argument("--to", required=True, metavar="FILE[:NAME]",
                      help="the new address: another RecallFile, and/or a new name (FILE:NAME)")
    move.add_argument("--rewrite-links", action="store_true", help="rewrite every link to the old address")
    move.add_argument("--owner", metavar="O", help="who moves it (journal)")
    _add_expected(move)

    diary = commands.add_parser("diary", help="the diary: append an entry")
    diary_verbs = diary.add_subparsers(dest="diary_command", metavar="VERB", required=True,
                                       parser_class=type(diary))
    append = diary_verbs.add_parser("append", help="append one entry (date and time default to now)")
    append.add_argument("text", metavar="TEXT", help="the entry ('-': read it from stdin)")
    append.add_argument("--date", metavar="YYYY-MM-DD", help="the entry's day (default: today, local time)")
    append.add_argument("--time", metavar="HH:MM", help="the entry's time (default: now, local time)")
    append.add_argument("--owner", metavar="O", help="whose entry this is (e.g. agent:claude-code)")
    append.add_argument("--source", metavar="S", help="the conversation it came from (source_conv)")

    for parser in (add, remove, move, append):  # not on "diary" too: append's default would hide it
        add_json_option(parser)
    for parser in (add, remove, move, diary, append):
        add_store_option(parser)
    table["add"] = guarded(run_add)
    table["remove"] = guarded(run_remove)
    table["move"] = guarded(run_move)
    table["diary"] = guarded(run_diary_append)
