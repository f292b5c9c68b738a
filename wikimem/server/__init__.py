"""``wikimem mcp``: the memory served to agents over MCP (stdio or streamable HTTP).

Needs the ``mcp`` extra (the official SDK); ``import wikimem`` never imports
this package, and the modules below import the SDK only where they speak
MCP: :mod:`~wikimem.server.memory` holds the tools' logic on plain values
(one store, one index kept fresh, the checked write path),
:mod:`~wikimem.server.memory_process` runs it in a process of its own, and
:mod:`~wikimem.server.tools` is its MCP face.

Transports: stdio (the default: the agent starts the server and talks over
its stdin/stdout) and streamable HTTP at ``http://HOST:PORT/mcp``. HTTP
binds the loopback interface unless told otherwise. Beyond loopback it
requires a bearer token (:mod:`~wikimem.server.http_auth`) unless
``no_auth`` is passed, and then says on stderr that whoever can reach the
port can read and write the memory. The bound address is printed to stderr
once the socket listens (``--port 0`` picks a free port), which is how a
script or a test learns it without guessing. One request may hold at most
:data:`~wikimem.disk.limits.MAX_MESSAGE_BYTES` (HTTP: 413; stdio: an error
answer), and the server goes on.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from wikimem.server.memory import AgentMemory
    from wikimem.server.memory_process import EmbedSpec, MemoryProcess

__all__ = ["LOOPBACK_HOSTS", "is_loopback", "serve"]

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (a loopback address or ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(root: str | Path, *, read_only: bool = False, transport: str = "stdio", host: str = "127.0.0.1",
          port: int = 8765, log: TextIO | None = None, token: str | None = None, no_auth: bool = False,
          embedder: Any = None, embed: EmbedSpec | None = None) -> None:
    """Serve the memory at ``root`` until the client goes away (stdio) or the process is stopped (HTTP).

    HTTP beyond loopback needs ``token`` (every request must then carry
    ``Authorization: Bearer <token>``) or, said in so many words,
    ``no_auth=True``; without either it raises ``ValueError`` before
    listening. On loopback ``token`` is optional. With ``embedder`` recall
    fuses cosine with BM25 once the wiki's vectors are embedded (in the
    background; BM25 alone until then and whenever the encoder fails, said
    once on ``log``).

    The index lives in a memory process started before the SDK is imported
    (:mod:`~wikimem.server.memory_process` says why) that makes its own
    embedder from ``embed``, the options it was made from; an ``embedder``
    given without them, or ``WIKIMEM_MCP_PROCESSES=1``, serves from this
    process alone.
    """
    from wikimem.server.http_auth import TOKEN_ENV
    from wikimem.server.memory_process import MemoryProcess, one_process

    log = log or sys.stderr
    if transport not in ("stdio", "http"):
        raise ValueError(f"unknown transport {transport!r}: stdio or http")
    if no_auth:
        token = None
    elif transport == "http" and token is None and not is_loopback(host):  # refused before anything starts
        raise ValueError(f"listening on {host}, beyond loopback, needs a token: pass --token-file FILE or set "
                         f"${TOKEN_ENV} (clients then send 'Authorization: Bearer <token>'), or --no-auth to let "
                         "anyone who can reach the port read and write this memory")
    if one_process() or (embedder is not None and embed is None):
        from wikimem.server.memory import AgentMemory

        in_process = AgentMemory(root, read_only=read_only, embedder=embedder, warn=_say(log))
        in_process.start_building()
        memory: AgentMemory | MemoryProcess = in_process
    else:
        memory = MemoryProcess(root, read_only=read_only, embed=embed)
    try:
        if embedder is not None:
            _say(log)(f"semantic recall with {embedder!r}: the wiki's vectors are embedded in the background "
                      "(BM25 only until they are ready)")
        _serve(memory, root, read_only, transport, host, port, log, token)
    finally:
        if isinstance(memory, MemoryProcess):
            memory.close()


def _serve(memory: AgentMemory | MemoryProcess, root: str | Path, read_only: bool, transport: str, host: str,
           port: int, log: TextIO, token: str | None) -> None:
    """Speak MCP for ``memory`` (the SDK is imported here) until the transport ends."""
    import asyncio

    from wikimem.server.tools import build_server

    server = build_server(memory)
    if transport == "stdio":
        asyncio.run(_serve_stdio(server))
        return
    sock = _listen(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    if token is None and not is_loopback(host):
        log.write(f"wikimem mcp: warning: listening on {host}, not on loopback, with --no-auth: anyone who can "
                  f"reach this port can read{'' if read_only else ' and write'} this memory\n")
    key = " (a bearer token is required)" if token is not None else ""
    log.write(f"wikimem mcp: serving {root} on http://{shown}:{bound}/mcp{' (read-only)' if read_only else ''}"
              f"{key}\n")
    log.flush()
    asyncio.run(_serve_http(server, sock, host, token))


def _say(log: TextIO) -> Callable[[str], None]:
    """A line on ``log`` (stderr: stdout is the stdio transport's), prefixed like every server message."""

    def say(message: str) -> None:
        log.write(f"wikimem mcp: {message}\n")
        log.flush()

    return say


def _listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


async def _serve_stdio(server: Any) -> None:
    """The SDK's stdio transport over streams that answer every request read before end of input ends it.

    :mod:`~wikimem.server.stdio_drain` says why. The low-level server is
    the one ``MCPServer.run_stdio_async`` runs; where a later SDK hides it,
    its own stdio run is used (and a one-shot pipe may lose its last answer
    again, rather than the server not starting).
    """
    from mcp.server.stdio import stdio_server

    from wikimem.server.stdio_drain import stdio_streams

    lowlevel = getattr(server, "_lowlevel_server", None)
    if lowlevel is None:
        await server.run_stdio_async()
        return
    with stdio_streams() as (lines, answers):
        async with stdio_server(stdin=lines, stdout=answers) as (read_stream,  # type: ignore[arg-type]
                                                                 write_stream):
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


async def _serve_http(server: object, sock: socket.socket, host: str, token: str | None) -> None:
    import uvicorn

    from wikimem.disk.limits import MAX_MESSAGE_BYTES
    from wikimem.server.http_auth import BearerAuth

    app = server.streamable_http_app(host=host, max_request_body_size=MAX_MESSAGE_BYTES)  # type: ignore[attr-defined]
    if token is not None:
        app = BearerAuth(app, token)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[sock])
