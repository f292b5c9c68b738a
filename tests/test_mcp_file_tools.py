"""An agent that thinks in files, over MCP with the SDK's own client (SPEC §10).

The command set of a file-style memory tool -- view a folder, view a file
with a line range, create, str_replace, insert, rename, delete -- and "what
changed lately", each served by this server's tools in one session; and
the refusals an agent meets on the way say what to do instead, in our own
words (no SDK "Error executing tool" prefix).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_support import error_text, payload, stdio_client
from wikimem import MemoryStore

pytest.importorskip("mcp")


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    store = MemoryStore(root)
    store.add("people", "Alice", "Likes jasmine tea.\nWorks at the port.")
    store.add("people", "Bob", "Friend of [[people:Alice]].")
    return root


async def test_a_file_style_session_is_served_end_to_end(mem: Path) -> None:
    async with stdio_client(mem) as client:
        # view a folder: the memory's files, then one file's items
        files = payload(await client.call_tool("list_files", {}))
        assert files["files"] == [{"file": "people", "items": 2}]
        items = payload(await client.call_tool("list_items", {"file": "people"}))
        assert [(i["name"], i["lines"], i["first_line"]) for i in items["items"]] == [
            ("Alice", 2, "Likes jasmine tea."), ("Bob", 1, "Friend of [[people:Alice]].")]
        # view a file with a line range: numbered lines as stored
        view = await client.call_tool("read_file", {"file": "people", "start_line": 3, "end_line": 6})
        assert not view.is_error
        assert view.content[0].text == "3\t## Alice\n4\t\n5\tLikes jasmine tea.\n6\tWorks at the port.\n"
        assert view.structured_content["lines"] > 6
        # create
        made = await client.call_tool("remember", {"file": "projects", "name": "apollo", "content": "Ships in Q4.",
                                                   "expected": ""})
        assert not made.is_error
        # str_replace: exactly one occurrence, checked
        edited = payload(await client.call_tool("edit_item", {"file": "people", "name": "Alice",
                                                              "old_text": "jasmine", "new_text": "oolong"}))
        assert edited["content"] == "Likes oolong tea.\nWorks at the port." and edited["replacements"] == 1
        # insert at a line, then at the end
        await client.call_tool("insert_into_item", {"file": "projects", "name": "apollo", "text": "Lead: Alice.",
                                                    "line": 0})
        appended = payload(await client.call_tool("insert_into_item", {"file": "projects", "name": "apollo",
                                                                       "text": "Demo on Friday."}))
        assert appended["content"] == "Lead: Alice.\nShips in Q4.\nDemo on Friday."
        # rename (and move): the link from Bob follows
        moved = payload(await client.call_tool("move", {"file": "people", "name": "Alice", "new_file": "friends",
                                                        "new_name": "Alice Chen"}))
        assert (moved["file"], moved["name"]) == ("friends", "Alice Chen")
        bob = payload(await client.call_tool("read_item", {"file": "people", "name": "Bob"}))
        assert bob["content"] == "Friend of [[friends:Alice Chen]]."
        # delete
        gone = payload(await client.call_tool("forget", {"file": "projects", "name": "apollo"}))
        assert gone["removed"] is True
        # what changed lately, newest first
        recent = payload(await client.call_tool("recent", {"limit": 3}))
        assert [(e["action"], e.get("item")) for e in recent["entries"]] == [
            ("remove", "apollo"), ("remove", "Alice"), ("update", "Bob")]
    store = MemoryStore(mem)
    assert store.get("friends", "Alice Chen").content == "Likes oolong tea.\nWorks at the port."
    assert store.get("projects", "apollo") is None


async def test_refusals_say_what_to_do_in_our_own_words(mem: Path) -> None:
    async with stdio_client(mem) as client:
        twice = error_text(await client.call_tool("edit_item", {"file": "people", "name": "Alice",
                                                                "old_text": "a", "new_text": "b"}))
        assert twice.startswith("old_text occurs") and "not 1: nothing written" in twice
        capital = error_text(await client.call_tool("remember", {"file": "My Notes", "name": "x", "content": "y"}))
        assert "try 'my-notes'" in capital
        heading = error_text(await client.call_tool("remember", {"file": "notes", "name": "plan",
                                                                 "content": "Steps\n## Later\nmore"}))
        assert "'### Later'" in heading
        missing = await client.call_tool("list_items", {"file": "nowhere"})
        assert error_text(missing).startswith("no such file: nowhere")
        assert missing.structured_content == {"error": "not_found", "message": error_text(missing)}
        forget = await client.call_tool("forget", {"file": "people", "name": "Nobody"})
        stale = await client.call_tool("edit_item", {"file": "people", "name": "Bob", "old_text": "Friend",
                                                     "new_text": "Pal", "expected": "an old version"})
        assert payload(stale)["error"] == "conflict" and payload(stale)["current"] == "Friend of [[people:Alice]]."
    for result in (twice, capital, heading, error_text(forget)):
        assert "Error executing tool" not in result
    assert MemoryStore(mem).get("people", "Bob").content == "Friend of [[people:Alice]]."


async def test_a_diary_day_is_a_folder_and_a_file_too(mem: Path) -> None:
    MemoryStore(mem).diary.append("Met Alice at the port.", date="2026-07-21", time="09:00")
    async with stdio_client(mem) as client:
        day = payload(await client.call_tool("list_items", {"file": "2026-07-21"}))
        view = await client.call_tool("read_file", {"file": "2026-07-21"})
        since = payload(await client.call_tool("recent", {"since": "2099-01-01"}))
        bad = error_text(await client.call_tool("recent", {"since": "last tuesday"}))
    assert [(i["name"], i["first_line"]) for i in day["items"]] == [("09:00", "Met Alice at the port.")]
    assert view.content[0].text.startswith("1\t# 2026-07-21\n")
    assert since["entries"] == [] and bad.startswith("bad since 'last tuesday'")
