"""stdio that answers every request it read before it lets the server see end of input.

Why: a one-shot client (``wikimem mcp < requests.jsonl``, a hook piping a
few lines, ``printf … | wikimem mcp``) closes stdin right after its last
request. The SDK's stdio transport treats that end of input as the end of
the session and cancels the handlers still running -- the answer to the
last ``recall`` (which may be waiting for the index build) is never
written, silently (modelcontextprotocol/python-sdk issue #2678, open). So
the server reads stdin through :class:`DrainingLines`, which remembers the
id of every request it passed on and, at end of input, holds the end back
until :class:`AnswerWriter` has written an answer (a result or an error)
for each of them -- or :data:`DRAIN_SECONDS` pass, so a hung handler cannot
keep the process alive for ever after its client left. A request the
client cancelled (``notifications/cancelled``) gets no answer by the
protocol, so it is no longer waited for.

Only the ids are read from each line (a JSON parse the SDK does anyway);
the lines themselves pass through unchanged. A line the SDK cannot take is
answered here instead (:func:`refusal`): the SDK drops such a line with no
answer, so the client would wait for ever -- a few hundred ``[`` (the
ids are read by the tolerant parser, so deeper nesting is no
``RecursionError`` here either), a lone surrogate escape (``"\\udcff"``: valid JSON syntax, not
Unicode), a batch, a request of the wrong shape. The client gets a JSON-RPC
parse error (-32700) or invalid request (-32600), with the request's id
whenever the line still shows it, and the server reads on.

One line may hold at most :data:`~wikimem.disk.limits.MAX_MESSAGE_BYTES`
characters. Lines are read in pieces of that size, so a longer one is never
held whole: it is skipped to its end, never passed on, and answered with a
JSON-RPC error naming the limit (when its id can be seen in its first
piece), and the server reads on.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from io import TextIOWrapper
from typing import Any

from wikimem.disk.limits import MAX_MESSAGE_BYTES, size_words
from wikimem.disk.tolerant import loads_tolerant

__all__ = ["DRAIN_SECONDS", "AnswerWriter", "DrainingLines", "Pending", "refusal", "stdio_streams"]

#: How long end of input waits for the answers still owed (a recall waits at most for the index build).
DRAIN_SECONDS = 120.0
# A request's id as it opens the message ({"jsonrpc": "2.0", "id": 7, ...}): all an oversized line is read for.
_ID_RE = re.compile(r'"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.){0,200}")')


class Pending:
    """The ids of the requests read and not yet answered, and an event for "none left"."""

    def __init__(self) -> None:
        import anyio

        self._ids: set[Any] = set()
        self._none_left = anyio.Event()
        self._none_left.set()

    def read(self, line: str) -> None:
        """A line from the client: a request adds its id; a cancellation drops the one it names."""
        message = _message(line)
        if message is None:
            return
        if "method" in message and "id" in message:
            self._owe(_key(message["id"]))
        elif message.get("method") == "notifications/cancelled":
            params = message.get("params")
            if isinstance(params, dict) and "requestId" in params:
                self._settle(_key(params["requestId"]))

    def written(self, text: str) -> None:
        """Text to the client: an answer (a message with an id and no method) settles its request."""
        for line in text.splitlines():
            message = _message(line)
            if message is not None and "id" in message and "method" not in message:
                self._settle(_key(message["id"]))

    async def drained(self, seconds: float = DRAIN_SECONDS) -> bool:
        """Wait until every request read has been answered; False when ``seconds`` ran out first."""
        import anyio

        with anyio.move_on_after(seconds):
            await self._none_left.wait()
            return True
        return False

    def _owe(self, key: Any) -> None:
        import anyio

        if not self._ids:
            self._none_left = anyio.Event()
        self._ids.add(key)

    def _settle(self, key: Any) -> None:
        self._ids.discard(key)
        if not self._ids:
            self._none_left.set()


class DrainingLines:
    """The client's lines, noted in ``pending``; their end waits until the answers owed are written.

    ``lines`` that wraps a text file (``anyio.wrap_file``) is read in
    pieces of at most ``limit`` characters, and a line longer than that is
    refused through ``answers`` (see the module docstring); any other async
    iterable is taken line by line. With ``answers``, a line the SDK would
    drop unanswered is answered with the :func:`refusal` error instead of
    being passed on.
    """

    def __init__(self, lines: Any, pending: Pending, seconds: float = DRAIN_SECONDS,
                 answers: AnswerWriter | None = None, limit: int = MAX_MESSAGE_BYTES) -> None:
        self._lines = lines
        self._pending = pending
        self._seconds = seconds
        self._answers = answers
        self._limit = limit

    def __aiter__(self) -> AsyncIterator[str]:
        return self._read()

    async def _read(self) -> AsyncIterator[str]:
        file = getattr(self._lines, "wrapped", None)
        async for line in self._lines if file is None else self._bounded(file):
            if line is None:
                continue
            refused = refusal(line) if self._answers is not None else None
            if refused is not None and self._answers is not None:
                await self._answers.write(refused)
                await self._answers.flush()
                continue
            self._pending.read(line)
            yield line
        await self._pending.drained(self._seconds)

    async def _bounded(self, file: Any) -> AsyncIterator[str | None]:
        """The lines, each at most ``limit`` characters; ``None`` for one that was longer (refused)."""
        import anyio

        async def readline(size: int) -> str:
            text: str = await anyio.to_thread.run_sync(file.readline, size)
            return text

        while line := await readline(self._limit + 1):
            if line.endswith("\n") or len(line) <= self._limit:  # at most ``limit`` before its newline
                yield line
                continue
            head = line
            while not line.endswith("\n") and (line := await readline(self._limit)):
                pass  # the rest of the line, read and dropped piece by piece
            await self._refuse(head)
            yield None

    async def _refuse(self, head: str) -> None:
        words = f"request larger than the limit of {size_words(self._limit)}: refused, not read"
        sys.stderr.write(f"wikimem mcp: a {words}\n")
        found = _ID_RE.search(head[:4096])
        try:
            ident = json.loads(found.group(1)) if found is not None else None
        except ValueError:  # "\x": not a JSON string after all
            ident = None
        if ident is None or self._answers is None:
            return
        error = {"jsonrpc": "2.0", "id": ident, "error": {"code": -32600, "message": words}}
        await self._answers.write(json.dumps(error) + "\n")
        await self._answers.flush()


class AnswerWriter:
    """The server's output, passed on unchanged; each answer written settles its request in ``pending``."""

    def __init__(self, out: Any, pending: Pending) -> None:
        import anyio

        self._out = out
        self._pending = pending
        self._lock = anyio.Lock()  # the SDK's answers and the reader's refusals: one whole write at a time

    async def write(self, text: str) -> int:
        async with self._lock:
            written: int = await self._out.write(text)
        self._pending.written(text)
        return written

    async def flush(self) -> None:
        await self._out.flush()


class _Unowned(TextIOWrapper):
    """A text layer that leaves the process's binary stream open when it goes (closing it would close sys.stdout)."""

    def close(self) -> None:
        try:
            self.detach()
        except ValueError:  # already detached
            pass


@contextmanager
def stdio_streams(seconds: float = DRAIN_SECONDS) -> Iterator[tuple[DrainingLines, AnswerWriter]]:
    """The process's stdin and stdout as the SDK's ``stdio_server(stdin, stdout)`` takes them, drained at the end.

    The wire moves to private copies of fds 0 and 1 while serving, and fd 0
    reads the null device, fd 1 writes to stderr -- what the SDK does when it
    owns the streams -- so a stray print of a handler (or of a library it
    calls) cannot corrupt the protocol, nor a child read the client's
    requests. Both are put back on exit. UTF-8 both ways (the platform's
    encoding of the standard streams is not to be trusted); undecodable
    input is replaced, so one bad byte is one invalid message, not a dead
    server.
    """
    import anyio

    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    reader = open(wire_in, "rb", closefd=True)  # noqa: SIM115 -- closed below, after the server is done
    writer = open(wire_out, "wb", closefd=True)  # noqa: SIM115
    pending = Pending()
    try:
        stdin = anyio.wrap_file(_Unowned(reader, encoding="utf-8", errors="replace"))
        stdout = anyio.wrap_file(_Unowned(writer, encoding="utf-8"))
        answers = AnswerWriter(stdout, pending)
        yield DrainingLines(stdin, pending, seconds, answers), answers
    finally:
        writer.flush()
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        reader.close()
        writer.close()


def _message(line: str) -> dict[str, Any] | None:
    value = loads_tolerant(line)
    return value if isinstance(value, dict) else None


#: A JSON string token, or one of the characters that change the nesting.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},]')
_ID_VALUE = re.compile(r'\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")')


def refusal(line: str) -> str | None:
    """The JSON-RPC error line answering ``line`` when the SDK cannot take it; ``None`` when it can.

    The SDK's own parse decides (its limits are not Python's: it refuses a
    few hundred levels of nesting Python reads). -32700 (parse error) for
    text that is not JSON to it -- too deep, a lone surrogate escape, bad
    syntax; -32600 (invalid request) for JSON that is no JSON-RPC message.
    The id is the request's whenever the line still shows it. A blank line
    and a notification of the wrong shape get nothing (nothing waits for
    them), as JSON-RPC has it.
    """
    from mcp import types

    if not line.strip():
        return None
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValueError as exc:  # pydantic's ValidationError
        problems = exc.errors() if hasattr(exc, "errors") else []
        not_json = [p for p in problems if p.get("type") == "json_invalid"]
    value = loads_tolerant(line, _NOT_JSON)
    ident = value.get("id") if isinstance(value, dict) else _top_level_id(line) if value is _NOT_JSON else None
    if not_json or value is _NOT_JSON:
        reason = str(not_json[0].get("msg", "")) if not_json else "Invalid JSON"
        return _error(ident, -32700, f"Parse error: {reason[:200]}")
    if isinstance(value, dict) and "method" in value and "id" not in value:
        return None  # a notification: no answer is owed
    return _error(ident, -32600, "Invalid request: not a JSON-RPC message this server takes")


_NOT_JSON = object()


def _error(ident: Any, code: int, message: str) -> str:
    if not isinstance(ident, (str, int)) or isinstance(ident, bool):
        ident = None
    return json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}, separators=(",", ":")) + "\n"


def _top_level_id(line: str) -> Any:
    """The ``id`` member of the outermost object of ``line``, found without parsing the rest (``None``: none).

    A scan of string tokens and brackets, no recursion: the line is one
    ``json.loads`` could not parse, typically because of nesting too deep.
    """
    depth = 0
    previous = ""
    for token in _TOKEN.finditer(line):
        text = token.group()
        if text in "[{":
            depth += 1
        elif text in "]}":
            depth -= 1
        elif depth == 1 and text == '"id"' and previous in ("{", ","):
            found = _ID_VALUE.match(line, token.end())
            if found is None:
                return None
            return loads_tolerant(found.group(1))
        previous = text
    return None


def _key(value: Any) -> Any:
    """An id as a set key: JSON-RPC ids are strings or numbers; anything else is keyed by its JSON."""
    return value if isinstance(value, (str, int, float)) else json.dumps(value, sort_keys=True)
