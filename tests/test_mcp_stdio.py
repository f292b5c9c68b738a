"""``wikimem mcp`` over stdio, driven by the SDK's own client: every tool, its hints and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_support import error_text, payload, stdio_client, tree
from wikimem import DERIVED_MARKER, MemoryStore

pytest.importorskip("mcp")

TS = "2026-07-20T09:00:00+00:00"
READS = {"recall", "read_item", "why_not", "lint", "list_files", "list_items", "read_file", "recent"}
WRITES = {"remember", "forget", "append_diary", "edit_item", "insert_into_item", "move"}


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    store = MemoryStore(root)
    store.add("people", "Alice", "Colleague who likes jasmine tea. See [[people:Bob]].", owner="agent", ts=TS)
    store.add("people", "Bob", "Drinks coffee every morning.", ts=TS)
    store.add("places", "Cafe", "Where [[people:Alice]] meets everyone.", ts=TS)
    store.diary.append("Had tea with [[people:Alice]].", date="2026-07-20", time="15:00", ts=TS)
    return root


async def test_every_tool_is_listed_with_its_hints(mem: Path) -> None:
    async with stdio_client(mem) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == READS | WRITES
    for name in READS:
        assert tools[name].annotations.read_only_hint is True, name
    for name in WRITES:
        assert tools[name].annotations.read_only_hint is False, name
    assert tools["forget"].annotations.destructive_hint is True
    assert tools["append_diary"].annotations.destructive_hint is False
    # A second identical forget, move or checked remember is refused: none of them is idempotent.
    assert not any(tools[name].annotations.idempotent_hint for name in WRITES)
    for tool in tools.values():  # descriptions as a model reads them: no source indentation
        assert tool.description and not any(line.startswith(" ") for line in tool.description.splitlines()), tool.name
    recall = tools["recall"].input_schema["properties"]
    assert set(recall) == {"query", "budget_tokens", "limit", "time_range", "today", "search_diary", "owner",
                           "source_conv", "after", "before", "tags"}
    assert recall["budget_tokens"]["default"] == 800 and recall["limit"]["default"] == 10
    assert set(tools["remember"].input_schema["properties"]) == {"file", "name", "content", "owner", "source_conv",
                                                                 "expected"}


async def test_recall_hands_labelled_items_and_their_links_ending_with_the_derived_marker(mem: Path) -> None:
    async with stdio_client(mem) as client:
        result = await client.call_tool("recall", {"query": "jasmine tea", "search_diary": False})
    assert not result.is_error
    text = result.content[0].text
    assert text.startswith("## people:Alice\nColleague who likes jasmine tea.")
    assert "## people:Bob (linked from Alice)\nDrinks coffee every morning.\n" in text
    assert text.endswith(f"\n{DERIVED_MARKER}\n")
    rows = result.structured_content["items"]
    assert [(r["file"], r["name"], r["source"], r["rank"], r["via"]) for r in rows] == [
        ("people", "Alice", "hit", 1, None), ("people", "Bob", "link", None, "Alice")]
    assert rows[0]["owner"] == "agent" and rows[0]["content"].startswith("Colleague")
    assert result.structured_content["text"] == text


async def test_recall_with_a_budget_and_a_time_range(mem: Path) -> None:
    async with stdio_client(mem) as client:
        small = await client.call_tool("recall", {"query": "jasmine tea", "budget_tokens": 1})
        window = await client.call_tool("recall", {"query": "tea", "time_range": "2026-07-20"})
    assert [r["name"] for r in small.structured_content["items"]] == ["Alice"]  # the first always survives
    labels = [r["label"] for r in window.structured_content["items"]]
    assert "diary 2026-07-20 15:00" in labels
    assert window.structured_content["time_range"] == ["2026-07-20", "2026-07-20"]


async def test_read_item_gives_content_provenance_links_and_backlinks(mem: Path) -> None:
    async with stdio_client(mem) as client:
        alice = payload(await client.call_tool("read_item", {"file": "people", "name": "Alice"}))
        entry = payload(await client.call_tool("read_item", {"file": "2026-07-20", "name": "15:00"}))
    assert alice["content"] == "Colleague who likes jasmine tea. See [[people:Bob]]."
    assert (alice["owner"], alice["ts"]) == ("agent", TS)
    assert alice["links"] == [{"file": "people", "name": "Bob", "link": "[[people:Bob]]", "exists": True}]
    assert alice["backlinks"] == [{"file": "places", "name": "Cafe"}]
    assert alice["diary_backlinks"] == [{"date": "2026-07-20", "entry": "15:00"}]
    assert entry["content"] == "Had tea with [[people:Alice]]." and entry["entry"] == "15:00"


async def test_remember_new_then_checked_update_then_stale_is_refused_with_nothing_written(mem: Path) -> None:
    async with stdio_client(mem) as client:
        made = await client.call_tool("remember", {"file": "notes", "name": "plan", "content": "Ship it.",
                                                   "owner": "agent:test", "source_conv": "c1", "expected": ""})
        assert not made.is_error, made.content[0].text
        again = await client.call_tool("remember", {"file": "notes", "name": "plan", "content": "Other.",
                                                    "expected": ""})
        assert json.loads(error_text(again))["current"] == "Ship it."
        updated = await client.call_tool("remember", {"file": "notes", "name": "plan", "content": "Ship it Friday.",
                                                      "owner": "agent:test", "source_conv": "c1",
                                                      "expected": "Ship it."})
        assert not updated.is_error
        before = tree(mem)
        stale = await client.call_tool("remember", {"file": "notes", "name": "plan", "content": "Lost update",
                                                    "expected": "Ship it."})
        conflict = json.loads(error_text(stale))
        assert conflict["error"] == "conflict" and conflict["current"] == "Ship it Friday."
        assert stale.structured_content["current_item"]["owner"] == "agent:test"
        assert tree(mem) == before  # nothing written, not even a journal line
    item = MemoryStore(mem).get("notes", "plan")
    assert (item.content, item.owner, item.source_conv) == ("Ship it Friday.", "agent:test", "c1")
    raw = (mem / "wiki" / "notes.md").read_text("utf-8")
    assert raw.startswith("# notes\n\n## plan\n\nShip it Friday.\n\n<!-- wikimem: owner=agent:test | source=c1 |")


async def test_forget_checked_and_unchecked(mem: Path) -> None:
    async with stdio_client(mem) as client:
        stale = await client.call_tool("forget", {"file": "people", "name": "Bob", "expected": "old"})
        assert json.loads(error_text(stale))["current"] == "Drinks coffee every morning."
        gone = await client.call_tool("forget", {"file": "people", "name": "Bob",
                                                 "expected": "Drinks coffee every morning."})
        assert payload(gone) == {"file": "people", "name": "Bob", "removed": True}
        missing = await client.call_tool("forget", {"file": "people", "name": "Bob"})
        assert "no item: people:Bob" in error_text(missing)
    assert MemoryStore(mem).get("people", "Bob") is None


async def test_append_diary_writes_an_entry(mem: Path) -> None:
    async with stdio_client(mem) as client:
        result = await client.call_tool("append_diary", {"content": "Agent finished the plan.", "date": "2026-07-21",
                                                         "time": "09:30", "owner": "agent:test"})
    assert payload(result)["entry"] == "09:30"
    [entry] = MemoryStore(mem).diary.day("2026-07-21")
    assert (entry.content, entry.owner) == ("Agent finished the plan.", "agent:test")


async def test_why_not_lint_and_list_files(mem: Path) -> None:
    async with stdio_client(mem) as client:
        why = payload(await client.call_tool("why_not", {"query": "jasmine", "file": "places", "name": "Cafe"}))
        lint = payload(await client.call_tool("lint", {}))
        files = payload(await client.call_tool("list_files", {}))
    assert why["recalled"] is False and why["missing_terms"] == ["jasmin"] or why["missing_terms"]
    assert why["text"].startswith("item: places:Cafe\nverdict: ")
    assert set(lint["counts"]) == {"error", "warning", "info"} and lint["total"] == len(lint["findings"])
    assert files["files"] == [{"file": "people", "items": 2}, {"file": "places", "items": 1}]
    assert files["diary"] == {"days": 1, "first": "2026-07-20", "last": "2026-07-20"}


BAD_CALLS = [
    ("read_item", {"file": "../etc", "name": "x"}, "invalid RecallFile name"),
    ("read_item", {"file": "nowhere", "name": "x"}, "no such file: nowhere"),
    ("read_item", {"file": "people", "name": "Nobody"}, "no item: people:Nobody"),
    ("remember", {"file": "people", "name": "bell\x07", "content": "x"}, "control character"),
    ("remember", {"file": "people", "name": "a:b", "content": "x"}, "invalid item name"),
    ("remember", {"file": "Bad File", "name": "x", "content": "x"}, "invalid RecallFile name"),
    ("remember", {"file": "people", "name": "Carol", "content": "## a heading"}, "content"),
    ("remember", {"file": "people", "name": "Carol", "content": "x", "owner": "two\nlines"}, "invalid owner"),
    ("forget", {"file": "nowhere", "name": "x"}, "no item: nowhere:x"),
    ("append_diary", {"content": "x", "time": "25:99"}, "invalid time"),
    ("append_diary", {"content": "x", "date": "2026-02-30"}, "invalid date"),
    ("recall", {"query": "tea", "time_range": "last summer"}, "bad time_range"),
    ("recall", {"query": "tea", "limit": "many"}, "limit"),
    ("recall", {"query": "tea", "limit": 0}, "bad limit"),
    ("recall", {"query": "tea", "today": "2026-7-20"}, "use YYYY-MM-DD"),
    ("why_not", {"query": "tea", "file": "people", "name": "Bob", "today": "monday"}, "use YYYY-MM-DD"),
    ("why_not", {"query": "tea", "file": "../x", "name": "y"}, "invalid RecallFile name"),
    ("no_such_tool", {}, "no_such_tool"),
]


async def test_bad_input_is_a_clear_tool_error_and_the_server_keeps_serving(mem: Path) -> None:
    before = tree(mem)
    async with stdio_client(mem) as client:
        for tool, args, message in BAD_CALLS:
            result = await client.call_tool(tool, args)
            assert message in error_text(result), (tool, args)
            after = await client.call_tool("recall", {"query": "coffee"})
            assert not after.is_error and "## people:Bob" in after.content[0].text, (tool, args)
    assert {k: v for k, v in tree(mem).items() if k != ".wikimem.lock"} == {
        k: v for k, v in before.items() if k != ".wikimem.lock"}


async def test_memory_text_reaches_the_client_byte_exact(mem: Path) -> None:
    tricky = 'esc \x1b[31m bell \x07 c1 \x9b quote " backslash \\u00zz \\n 中文 テスト ✓'
    async with stdio_client(mem) as client:
        wrote = await client.call_tool("remember", {"file": "notes", "name": "tricky 中文", "content": tricky})
        assert not wrote.is_error, wrote.content[0].text
        read = await client.call_tool("read_item", {"file": "notes", "name": "tricky 中文"})
        recalled = await client.call_tool("recall", {"query": "backslash quote"})
    assert payload(read)["content"] == tricky == read.structured_content["content"]
    assert MemoryStore(mem).get("notes", "tricky 中文").content == tricky
    assert f"## notes:tricky 中文\n{tricky}\n" in recalled.content[0].text
