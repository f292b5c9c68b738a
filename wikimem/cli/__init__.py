"""The ``wikimem`` command: inspection of a memory directory, and the agents' write verbs.

The CLI is a compatibility contract: its messages, exit codes and output
layouts are what scripts written against the original wikimem parse, so the
layouts live in plain format strings in this package's verb modules, not in
a table library. What each verb does, writes and exits with is
docs/reference/cli.md. ``main`` always *returns* the code (argparse's own
usage errors included), so tests can call it directly and the console
script does ``sys.exit(main())``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from wikimem.cli.args import int_at_least as _int_at_least
from wikimem.cli.io import Output, decode_argv, prepare_stdout, quiet_broken_pipe, warnings_to
from wikimem.cli.read import run_grep, run_ls, run_show
from wikimem.disk.store_dir import is_memory_dir
from wikimem.store import MemoryStore

__all__ = ["build_parser", "main"]

#: Environment variable naming the default memory directory.
STORE_ENV = "WIKIMEM_STORE"


class StoreError(Exception):
    """The memory directory cannot be used: exit code 2."""


class _ParserExit(Exception):
    """Carries argparse's exit status out of ``parse_args``."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors become a return code instead of an exit.

    argparse already prints ``usage`` plus ``wikimem: error: …`` to stderr and
    uses code 2; raising lets ``main`` return the code to an in-process caller
    rather than killing it.
    """

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            sys.stderr.write(message)
        raise _ParserExit(status)


def _unit_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1: {text!r}")
    return value


def _add_store_option(parser: argparse.ArgumentParser, *, top: bool) -> None:
    # Accepted before the command (the documented place) and, for convenience,
    # after it; the sub-parser default is SUPPRESS so it never hides the
    # top-level value.
    parser.add_argument(
        "-s",
        "--store",
        metavar="DIR",
        default=None if top else argparse.SUPPRESS,
        help=f"memory directory (default: ${STORE_ENV}, then the current directory)",
    )


class _Version(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked.

    ``importlib.metadata`` is slow to import next to a command's own work,
    so only ``--version`` pays for it.
    """

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from importlib.metadata import version

        sys.stdout.write(f"{parser.prog} {version('wikimem')}\n")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (exposed for ``--help`` tests and docs)."""
    parser = _Parser(
        prog="wikimem",
        description="Inspect a wikimem memory directory; write to it as an agent; serve it over MCP.",
        epilog="'wikimem COMMAND --help' shows a command's arguments and options. Exit codes: 0 ok, "
               "1 no match or not found, 2 usage or store error, 3 a checked write refused (--expected, --new).",
    )
    _add_store_option(parser, top=True)
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    ls = commands.add_parser("ls", help="list RecallFiles with their item counts")
    _add_store_option(ls, top=False)

    show = commands.add_parser("show", help="print a RecallFile, or one item, as stored")
    show.add_argument("file", metavar="FILE", help="a RecallFile (wiki/FILE.md), or a diary day YYYY-MM-DD")
    show.add_argument("name", metavar="NAME", nargs="?",
                      help="one item of it (its heading); on a diary day HH:MM, or HH:MM#2 for a minute's second entry")
    _add_store_option(show, top=False)

    grep = commands.add_parser("grep", help="regex search over item names and content lines")
    grep.add_argument("pattern", metavar="PATTERN",
                      help="a Python regular expression, matched against item names and content lines")
    grep.add_argument("-i", "--ignore-case", action="store_true", help="case-insensitive")
    _add_store_option(grep, top=False)

    explain = commands.add_parser("explain", help="show how a query is retrieved and scored")
    explain.add_argument("query", metavar="QUERY",
                         help="the query, as an agent would ask it (time words such as 'yesterday' or 昨天 "
                         "choose the diary window)")
    explain.add_argument("--limit", type=_int_at_least(1), default=10, metavar="N", help="ranked hits (default 10)")
    explain.add_argument("--budget", type=_int_at_least(0), default=None, metavar="N",
                         help="token budget (default: no limit)")
    explain.add_argument("--no-links", action="store_true", help="no one-hop link expansion")
    jieba = explain.add_mutually_exclusive_group()
    jieba.add_argument("--jieba", dest="use_jieba", action="store_const", const=True,
                       default=None, help="tokenize Chinese with jieba")
    jieba.add_argument("--no-jieba", dest="use_jieba", action="store_const", const=False,
                       help="tokenize Chinese with character bigrams")
    from wikimem.index.terms.analyzer import ANALYZERS, DEFAULT_ANALYZER

    explain.add_argument("--analyzer", choices=ANALYZERS, default=None,
                         help=f"English analyzer: 'en' stems and drops stop words from the query, 'stem', "
                         f"'stop' or 'none' (default: {DEFAULT_ANALYZER}; stemming needs wikimem[en])")
    explain.add_argument("--time-range", metavar="A[..B]",
                         help="diary window: YYYY-MM-DD or YYYY-MM-DD..YYYY-MM-DD")
    from wikimem.cli.embed import add_embed_options

    add_embed_options(explain)
    explain.add_argument("--fusion", metavar="NAME", help="fusion method (with --embed)")
    explain.add_argument("--fusion-weight", type=_unit_float, default=None, metavar="W",
                         help="BM25's share of the fused score, 0..1")
    from wikimem.cli.explain import add_arguments as add_explain_arguments

    add_explain_arguments(explain)
    _add_store_option(explain, top=False)

    graph = commands.add_parser("graph", help="print the wiki-link graph")
    graph.add_argument("--format", choices=("mermaid", "json"), default="mermaid",
                       help="a mermaid flowchart (default) or JSON nodes and edges")
    _add_store_option(graph, top=False)

    from wikimem.cli.lint import add_lint_parser

    _add_store_option(add_lint_parser(commands), top=False)
    _register_verbs(commands)
    return parser


def _command_names(parser: argparse.ArgumentParser) -> list[str]:
    """The commands in the order ``--help`` lists them: read from the parser, so none is ever left out."""
    for action in parser._actions:  # argparse keeps its sub-parsers nowhere public
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def _register_verbs(commands: argparse._SubParsersAction[_Parser]) -> None:
    """The verbs that register themselves: one call per module (parser and command table)."""
    from wikimem.cli import capture, export, import_cmd, init, install, json_views, mcp, recall, respell, write

    def store_option(sub: argparse.ArgumentParser) -> None:
        _add_store_option(sub, top=False)

    # json_views first: it adds --json to the read verbs registered above.
    for verb in (json_views, write, recall, init, mcp, capture, respell, import_cmd, export, install):
        verb.register(commands, _COMMANDS, store_option)


def resolve_store_dir(option: str | None) -> Path:
    """``--store``, else ``$WIKIMEM_STORE`` (when non-empty), else the cwd.

    A directory that holds files but none of the store markers is not a
    memory store (``wikimem -s /etc ls``, or ``wikimem ls`` run in the wrong
    directory): a store error, exit 2, rather than an empty listing that
    looks like an empty memory. An empty directory (dotfiles aside) is a
    new, empty store, as the contract's "empty store prints nothing" wants.
    """
    raw = option if option is not None else (os.environ.get(STORE_ENV) or os.getcwd())
    path = Path(raw).expanduser()
    if not path.is_dir():
        # A newcomer's first import or diary append runs before any init: say which verb makes one.
        raise StoreError(f"store directory not found: {raw} ('wikimem init {shlex.quote(raw)}' creates one)")
    if not is_memory_dir(path):
        raise StoreError(f"not a memory directory: {raw} (it has no wiki/, diary/ or journal.jsonl; "
                         f"pass the memory directory with --store or ${STORE_ENV})")
    return path


def _cmd_explain(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    from wikimem.cli.explain import run_explain

    return run_explain(store, args, out)


def _cmd_graph(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    from wikimem.cli.graph import graph_json, render_graph

    if args.format == "json":  # data, not terminal text: never neutralized (see wikimem.cli.io)
        out.json(graph_json(store), indent=2)
    else:
        out.write(render_graph(store, fmt=args.format))
    return 0


def _cmd_lint(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    from wikimem.cli.lint import run_lint

    return run_lint(store, args, out)


_COMMANDS: dict[str, Callable[..., int]] = {
    "ls": run_ls,
    "show": run_show,
    "grep": run_grep,
    "explain": _cmd_explain,
    "graph": _cmd_graph,
    "lint": _cmd_lint,
}


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (the console script exits with it)."""
    parser = build_parser()
    words = decode_argv(sys.argv[1:]) if argv is None else argv
    try:
        args = parser.parse_args(words)
    except _ParserExit as stop:
        if stop.status and "--json" in words:  # a usage error still answers --json with JSON
            Output().json({"ok": False, "error": "usage", "message": "bad usage (see stderr)"})
        return stop.status
    if args.command is None:
        parser.print_usage(sys.stderr)
        sys.stderr.write(f"wikimem: error: a command is required ({', '.join(_command_names(parser))}; "
                         "wikimem --help says what each does)\n")
        return 2
    prepare_stdout()
    out = Output()
    standalone = getattr(args, "standalone", None)  # a verb that makes its store (init)
    if standalone is not None:
        with quiet_broken_pipe() as pipe:
            code = standalone(args, out)
            out.flush()
        return pipe.code if pipe.broken else code
    try:
        root = resolve_store_dir(args.store)
    except StoreError as exc:
        out.error(str(exc))
        if getattr(args, "json", False):  # --json: stdout is one JSON document whatever happens
            out.json({"ok": False, "error": "store_error", "message": str(exc)})
        if getattr(args, "fail_open", False):
            return 0
        return 1 if getattr(args, "hook", False) else 2  # a hook's exit 2 is an instruction to its agent
    code = 0
    with quiet_broken_pipe() as pipe, warnings_to(out):
        code = _COMMANDS[args.command](MemoryStore(root), args, out)
        out.flush()
    return pipe.code if pipe.broken else code


if __name__ == "__main__":  # pragma: no cover - ``python -m wikimem`` is __main__.py
    raise SystemExit(main())
