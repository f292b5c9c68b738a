"""One server, other writers: what another process writes is seen, and no write overwrites an unseen one.

The other writer is a real process (the CLI, as a hook or the app's store
would write), never the server's own store object.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import SAFETY_NET
from mcp_support import alice_memory, REPO, error_text, payload, server_env, stdio_client
from wikimem import MemoryStore

pytest.importorskip("mcp")


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    return alice_memory(tmp_path)


def other_process(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wikimem", "-s", str(root), *argv], env=server_env(), cwd=REPO,
                          capture_output=True, text=True, encoding="utf-8", timeout=SAFETY_NET)


async def recall_names(client, query: str) -> list[str]:  # type: ignore[no-untyped-def]
    result = await client.call_tool("recall", {"query": query})
    return [row["label"] for row in result.structured_content["items"]]


async def test_a_write_by_another_process_is_seen_by_the_next_call(mem: Path) -> None:
    async with stdio_client(mem) as client:
        assert await recall_names(client, "espresso") == []  # the index is built now
        done = other_process(mem, "add", "people", "Bob", "--content", "Drinks espresso.")
        assert done.returncode == 0, done.stderr
        assert await recall_names(client, "espresso") == ["people:Bob"]
        done = other_process(mem, "remove", "people", "Bob")
        assert done.returncode == 0, done.stderr
        assert await recall_names(client, "espresso") == []
        files = payload(await client.call_tool("list_files", {}))
        assert files["files"] == [{"file": "people", "items": 1}]


async def test_a_hand_edit_in_place_is_seen_by_the_stat_sweep(mem: Path) -> None:
    path = mem / "wiki" / "people.md"
    async with stdio_client(mem) as client:
        assert await recall_names(client, "matcha") == []
        with open(path, "a", encoding="utf-8") as handle:  # in place: no journal line, no new directory entry
            handle.write("\n## Carol\n\nPrefers matcha.\n")
        deadline = time.monotonic() + SAFETY_NET
        while await recall_names(client, "matcha") != ["people:Carol"]:
            assert time.monotonic() < deadline, "the in-place edit was never seen"
        backlinks = payload(await client.call_tool("read_item", {"file": "people", "name": "Carol"}))
        assert backlinks["content"] == "Prefers matcha."


async def test_an_unseen_version_is_never_overwritten(mem: Path) -> None:
    async with stdio_client(mem) as client:
        read = payload(await client.call_tool("read_item", {"file": "people", "name": "Alice"}))
        # Meanwhile the person edits the item (the app's write is the same checked store write).
        done = other_process(mem, "add", "people", "Alice", "--content", "Likes oolong now.",
                             "--expected", read["content"])
        assert done.returncode == 0, done.stderr
        stale = await client.call_tool("remember", {"file": "people", "name": "Alice",
                                                    "content": "Likes jasmine and green tea.",
                                                    "expected": read["content"]})
        assert json.loads(error_text(stale))["current"] == "Likes oolong now."
        # ... and the agent's write makes the app's (the CLI's) stale in turn.
        merged = await client.call_tool("remember", {"file": "people", "name": "Alice",
                                                     "content": "Likes oolong, jasmine and green tea.",
                                                     "expected": "Likes oolong now."})
        assert not merged.is_error
    refused = other_process(mem, "add", "people", "Alice", "--content", "x", "--expected", "Likes oolong now.")
    assert refused.returncode == 3 and "Likes oolong, jasmine and green tea." in refused.stderr
    assert MemoryStore(mem).get("people", "Alice").content == "Likes oolong, jasmine and green tea."


async def test_two_servers_on_one_directory_see_each_others_writes(mem: Path) -> None:
    async with stdio_client(mem) as first, stdio_client(mem) as second:
        assert await recall_names(second, "pelican") == []
        made = await first.call_tool("remember", {"file": "birds", "name": "Pelican", "content": "A pelican.",
                                                  "expected": ""})
        assert not made.is_error
        assert await recall_names(second, "pelican") == ["birds:Pelican"]
        again = await second.call_tool("remember", {"file": "birds", "name": "Pelican", "content": "Mine.",
                                                    "expected": ""})
        assert json.loads(error_text(again))["current"] == "A pelican."
