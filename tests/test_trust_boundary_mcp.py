"""A shared server has a key, and no one message can stop it or fill the memory.

Real server processes: the HTTP one on a loopback port it picks, the stdio
one fed raw lines. A token comes from ``--token-file`` (or
``$WIKIMEM_MCP_TOKEN``); without it a request gets 401 and
``WWW-Authenticate: Bearer``; beyond loopback the server does not start
without one unless told ``--no-auth``. A request over the message limit is
refused (413 over HTTP, an error answer over stdio) and the server goes on.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_support import REPO, SAFETY_NET, TextOut, alice_memory, error_text, http_server, server_env
from wikimem import MemoryStore
from wikimem.disk.limits import MAX_CONTENT_BYTES, MAX_MESSAGE_BYTES

pytest.importorskip("mcp")

TOKEN = "k3y-" + "s3cret" * 6


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    return alice_memory(tmp_path)


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    return path


def _post(url: str, headers: dict[str, str], body: bytes = b"{}") -> Any:
    import httpx

    return httpx.post(url, content=body, headers={"Content-Type": "application/json",
                                                  "Accept": "application/json, text/event-stream", **headers},
                      timeout=SAFETY_NET)


def _authed_client(url: str, token: str) -> Any:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http), read_timeout_seconds=SAFETY_NET)


async def test_a_token_is_required_when_given_and_the_right_one_serves(mem: Path, token_file: Path) -> None:
    with http_server(mem, "--token-file", str(token_file)) as (url, lines):
        assert "(a bearer token is required)" in "".join(lines)
        for headers in ({}, {"Authorization": "Bearer wrong-token-wrong-token"}, {"Authorization": TOKEN},
                        {"Authorization": f"Basic {TOKEN}"}):
            refused = _post(url, headers)
            assert refused.status_code == 401, headers
            assert refused.headers["www-authenticate"].startswith("Bearer")
            assert TOKEN not in refused.text
        async with _authed_client(url, TOKEN) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "recall" in names
            made = await client.call_tool("remember", {"file": "people", "name": "Bob", "content": "Coffee."})
            assert not made.is_error
        assert not any(TOKEN in line for line in lines)  # never logged
    assert MemoryStore(mem).get("people", "Bob") is not None


def test_the_host_and_origin_checks_still_hold_behind_the_token(mem: Path, token_file: Path) -> None:
    with http_server(mem, "--token-file", str(token_file)) as (url, _):
        auth = {"Authorization": f"Bearer {TOKEN}"}
        assert _post(url, {**auth, "Host": "evil.example"}).status_code == 421
        assert _post(url, {**auth, "Origin": "http://evil.example"}).status_code == 403


async def test_an_oversized_http_request_is_refused_and_the_server_goes_on(mem: Path, token_file: Path) -> None:
    with http_server(mem, "--token-file", str(token_file)) as (url, _):
        big = _post(url, {"Authorization": f"Bearer {TOKEN}"}, b" " * (MAX_MESSAGE_BYTES + 1))
        assert big.status_code == 413
        async with _authed_client(url, TOKEN) as client:
            over = await client.call_tool("remember", {"file": "people", "name": "Big",
                                                       "content": "x" * (MAX_CONTENT_BYTES + 1)})
            assert "limit of 1 MiB" in error_text(over)
            assert (await client.list_tools()).tools
    assert MemoryStore(mem).get("people", "Big") is None


def _run(mem: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wikimem", "-s", str(mem), "mcp", "--transport", "http",
                           "--port", "0", *args], capture_output=True, text=True, env=env or server_env(),
                          cwd=REPO, timeout=SAFETY_NET, stdin=subprocess.DEVNULL)


def test_beyond_loopback_the_server_does_not_start_without_a_token(mem: Path) -> None:
    done = _run(mem, "--host", "0.0.0.0")
    assert done.returncode == 2
    assert "needs a token" in done.stderr and "--token-file" in done.stderr and "--no-auth" in done.stderr


def test_a_short_token_is_refused_without_being_shown(mem: Path, tmp_path: Path) -> None:
    short = tmp_path / "short"
    short.write_text("abc123\n")
    done = _run(mem, "--token-file", str(short))
    assert done.returncode == 2 and "shorter than 16" in done.stderr and "abc123" not in done.stderr
    env = {**server_env(), "WIKIMEM_MCP_TOKEN": "has a space in it and is long"}
    done = _run(mem, env=env)
    assert done.returncode == 2 and "WIKIMEM_MCP_TOKEN" in done.stderr and "has a space" not in done.stderr


def test_serve_beyond_loopback_needs_a_token_or_no_auth(mem: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio
    import io

    import wikimem.server as server

    class FakeSocket:
        def getsockname(self) -> tuple[str, int]:
            return ("192.0.2.1", 4321)

    listened: list[str] = []
    monkeypatch.setattr(server, "_listen", lambda host, port: listened.append(host) or FakeSocket())
    monkeypatch.setattr(asyncio, "run", lambda coro: coro.close())  # serve nothing: only the decision is checked
    with pytest.raises(ValueError, match="needs a token"):
        server.serve(mem, transport="http", host="192.0.2.1", port=0, log=io.StringIO())
    assert listened == []
    log = io.StringIO()
    server.serve(mem, transport="http", host="192.0.2.1", port=0, log=log, token=TOKEN)
    assert "bearer token is required" in log.getvalue() and TOKEN not in log.getvalue()
    assert "warning" not in log.getvalue()


def _line(message: dict[str, object]) -> str:
    return json.dumps(message) + "\n"


def test_an_oversized_stdio_line_gets_an_error_answer_and_the_server_reads_on(mem: Path) -> None:
    init = _line({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "pipe", "version": "0"}}})
    ready = _line({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(ident: int, content: str) -> str:
        return _line({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                      "params": {"name": "remember", "arguments": {"file": "people", "name": f"n{ident}",
                                                                   "content": content}}})

    requests = init + ready + call(2, "x" * (MAX_MESSAGE_BYTES + 10)) + call(3, "y" * (MAX_CONTENT_BYTES + 1)) \
        + call(4, "small")
    done = subprocess.run([sys.executable, "-m", "wikimem", "-s", str(mem), "mcp"], input=requests,
                          capture_output=True, text=True, env=server_env(), cwd=REPO, timeout=SAFETY_NET)
    assert done.returncode == 0, done.stderr[-2000:]
    answers = {row["id"]: row for row in map(json.loads, done.stdout.splitlines()) if "id" in row}
    assert set(answers) == {1, 2, 3, 4}
    assert "limit of 8 MiB" in answers[2]["error"]["message"]
    assert answers[3]["result"]["isError"] and "limit of 1 MiB" in answers[3]["result"]["content"][0]["text"]
    assert not answers[4]["result"]["isError"]
    store = MemoryStore(mem)
    assert (store.get("people", "n2"), store.get("people", "n3")) == (None, None)
    assert store.get("people", "n4") is not None


async def test_an_oversized_line_whose_id_cannot_be_read_is_dropped_and_reading_goes_on() -> None:
    import anyio

    from wikimem.server.stdio_drain import AnswerWriter, DrainingLines, Pending

    lines = ['{"id": "\\x' + "y" * 50 + "\n", '{"jsonrpc": "2.0", "id": 9, "params": "' + "z" * 50 + '"}\n',
             '{"jsonrpc": "2.0", "id": 10, "method": "ping"}\n']
    pending, out = Pending(), TextOut()
    answers = AnswerWriter(out, pending)
    read = [line async for line in DrainingLines(anyio.wrap_file(io.StringIO("".join(lines))), pending, 0,
                                                 answers, limit=50)]
    assert read == [lines[2]]
    assert [json.loads(line)["id"] for line in out.text.splitlines()] == [9]


async def test_the_token_guards_every_scope_but_the_lifespan() -> None:
    """A websocket (or any scope type an ASGI server may add) without the token never reaches the app."""
    from wikimem.server.http_auth import BearerAuth

    reached: list[str] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["type"])

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {}

    guarded = BearerAuth(app, TOKEN)
    await guarded({"type": "websocket", "headers": []}, receive, send)
    await guarded({"type": "lifespan"}, receive, send)
    await guarded({"type": "websocket", "headers": [(b"authorization", f"Bearer {TOKEN}".encode())]}, receive, send)
    assert reached == ["lifespan", "websocket"]
    assert sent == [{"type": "websocket.close", "code": 1008}]
