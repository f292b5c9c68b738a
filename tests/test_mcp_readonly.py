"""``wikimem mcp --read-only``: no write tool is listed or callable, and not one file is created."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_support import error_text, stdio_client, tree
from wikimem import MemoryStore

pytest.importorskip("mcp")


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    store = MemoryStore(root)
    for n in range(12):
        store.add(f"f{n % 3}", f"item {n}", f"content number {n} about tea and [[f0:item 0]]")
    store.diary.append("an event", date="2026-07-20", time="10:00")
    return root


async def test_read_only_lists_no_write_tool_and_refuses_them(mem: Path) -> None:
    async with stdio_client(mem, "--read-only") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        refused = await client.call_tool("remember", {"file": "x", "name": "y", "content": "z"})
    assert names == {"recall", "read_item", "why_not", "lint", "list_files", "list_items", "read_file", "recent"}
    assert "remember" in error_text(refused)


async def test_read_only_creates_nothing_on_disk(mem: Path) -> None:
    before = tree(mem)
    async with stdio_client(mem, "--read-only") as client:
        for tool, args in [("recall", {"query": "tea"}), ("recall", {"query": "event", "time_range": "2026-07-20"}),
                           ("read_item", {"file": "f0", "name": "item 0"}), ("lint", {}), ("list_files", {}),
                           ("why_not", {"query": "tea", "file": "f1", "name": "item 1"})]:
            result = await client.call_tool(tool, args)
            assert not result.is_error, (tool, result.content[0].text)
    assert tree(mem) == before
