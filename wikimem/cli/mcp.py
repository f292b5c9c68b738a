"""``wikimem mcp``: serve the memory to an agent over MCP (the ``mcp`` extra).

The SDK is imported only when the command runs, so every other verb (and
``import wikimem``) works without it; without it this verb says how to get
it and exits 2. ``--embed`` gives the server an encoder
(:mod:`wikimem.cli.embed`; the server embeds in the background, see
:mod:`wikimem.server.vector_sync`).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable
from typing import Any

from wikimem.cli.args import port_number
from wikimem.cli.embed import EmbedSetupError, add_embed_options, embedder_from
from wikimem.cli.io import Output
from wikimem.store import MemoryStore

__all__ = ["register", "run_mcp"]


def register(commands: Any, table: dict[str, Callable[..., int]],
             add_store_option: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``mcp`` to the parser and its runner to the command table."""
    mcp = commands.add_parser("mcp", help="serve the memory to an agent over MCP (needs wikimem[mcp])")
    mcp.add_argument("--read-only", action="store_true",
                     help="list no write tool and create no file")
    mcp.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                     help="stdio (default: the agent starts the server) or streamable HTTP")
    mcp.add_argument("--host", default="127.0.0.1",
                     help="HTTP: the address to listen on (default 127.0.0.1, loopback only)")
    mcp.add_argument("--port", type=port_number, default=8765, help="HTTP: the port (default 8765; 0: any free port)")
    key = mcp.add_mutually_exclusive_group()
    key.add_argument("--token-file", metavar="FILE",
                     help="HTTP: require 'Authorization: Bearer <token>', the token read from FILE "
                          "(default: $WIKIMEM_MCP_TOKEN; required beyond loopback)")
    key.add_argument("--no-auth", action="store_true",
                     help="HTTP: serve beyond loopback without a token (anyone who can reach the port "
                          "reads and writes the memory)")
    add_embed_options(mcp, what="recall")
    add_store_option(mcp)
    table["mcp"] = run_mcp


def run_mcp(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """Run the server until the client leaves (stdio) or the process is stopped (HTTP)."""
    if importlib.util.find_spec("mcp") is None:
        out.error("wikimem mcp needs the MCP SDK: pip install 'wikimem[mcp]'")
        return 2
    from wikimem.server import serve
    from wikimem.server.http_auth import read_token
    from wikimem.server.memory_process import EmbedSpec

    try:
        embedder = embedder_from(args)
    except EmbedSetupError as exc:
        out.error(f"wikimem mcp: {exc}")
        return 2
    try:
        token = None if args.transport != "http" or args.no_auth else read_token(args.token_file)
        embed = EmbedSpec(args.embed, args.embed_model, args.embed_key_env) if embedder is not None else None
        serve(store.root, read_only=args.read_only, transport=args.transport, host=args.host, port=args.port,
              log=sys.stderr, token=token, no_auth=args.no_auth, embedder=embedder, embed=embed)
    except ValueError as exc:  # no token beyond loopback, an unusable token
        out.error(f"wikimem mcp: {exc}")
        return 2
    except OSError as exc:  # the port is taken, the host is not ours
        out.error(f"wikimem mcp: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
        return 2
    except KeyboardInterrupt:
        return 0
    return 0
