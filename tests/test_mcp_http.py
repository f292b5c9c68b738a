"""``wikimem mcp --transport http``: streamable HTTP on a loopback port the test lets the server pick."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from mcp_support import alice_memory, error_text, http_client, http_server, payload
from wikimem import DERIVED_MARKER, MemoryStore

pytest.importorskip("mcp")


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    return alice_memory(tmp_path)


async def test_http_serves_every_tool_on_loopback(mem: Path) -> None:
    with http_server(mem) as (url, lines):
        assert url.startswith("http://127.0.0.1:") and not any("warning" in line for line in lines)
        async with http_client(url) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert len(tools) == 14 and tools["recall"].annotations.read_only_hint is True
            recall = await client.call_tool("recall", {"query": "jasmine"})
            assert recall.content[0].text.startswith("## people:Alice\n")
            assert recall.content[0].text.endswith(DERIVED_MARKER + "\n")
            made = await client.call_tool("remember", {"file": "people", "name": "Bob", "content": "Coffee.",
                                                       "expected": ""})
            assert not made.is_error
            stale = await client.call_tool("remember", {"file": "people", "name": "Bob", "content": "x",
                                                        "expected": "Tea."})
            assert json.loads(error_text(stale))["current"] == "Coffee."
            bad = await client.call_tool("read_item", {"file": "../x", "name": "y"})
            assert "invalid RecallFile name" in error_text(bad)
            diary = await client.call_tool("append_diary", {"content": "Met Bob.", "date": "2026-07-21",
                                                            "time": "08:00"})
            assert payload(diary)["entry"] == "08:00"
            for tool, args in [("read_item", {"file": "people", "name": "Bob"}), ("lint", {}), ("list_files", {}),
                               ("why_not", {"query": "tea", "file": "people", "name": "Bob"}),
                               ("forget", {"file": "people", "name": "Bob", "expected": "Coffee."})]:
                result = await client.call_tool(tool, args)
                assert not result.is_error, (tool, result.content[0].text)
    assert MemoryStore(mem).get("people", "Bob") is None
    assert MemoryStore(mem).diary.day("2026-07-21")[0].content == "Met Bob."


async def test_http_read_only_lists_only_read_tools(mem: Path) -> None:
    with http_server(mem, "--read-only") as (url, lines):
        assert "(read-only)" in "".join(lines)
        async with http_client(url) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
    assert names == {"recall", "read_item", "why_not", "lint", "list_files", "list_items", "read_file", "recent"}


def test_a_host_other_than_loopback_is_warned_about(mem: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    import wikimem.server as server

    class FakeSocket:
        def getsockname(self) -> tuple[str, int]:
            return ("192.0.2.1", 4321)

    monkeypatch.setattr(server, "_listen", lambda host, port: FakeSocket())
    monkeypatch.setattr(asyncio, "run", lambda coro: coro.close())  # serve nothing: only the words are checked
    log = io.StringIO()
    server.serve(mem, transport="http", host="192.0.2.1", port=0, log=log, no_auth=True)
    assert "warning: listening on 192.0.2.1, not on loopback, with --no-auth" in log.getvalue()
    assert "read and write this memory" in log.getvalue()
    quiet = io.StringIO()
    server.serve(mem, transport="http", host="::1", port=0, log=quiet)
    assert "warning" not in quiet.getvalue() and "http://[::1]:4321/mcp" in quiet.getvalue()


@pytest.mark.parametrize("host,loopback", [("127.0.0.1", True), ("127.0.0.2", True), ("localhost", True),
                                           ("::1", True), ("0.0.0.0", False), ("::", False), ("10.0.0.1", False),
                                           ("example.com", False)])
def test_which_hosts_are_loopback(host: str, loopback: bool) -> None:
    from wikimem.server import is_loopback

    assert is_loopback(host) is loopback
