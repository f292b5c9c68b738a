"""The app and the MCP server side by side on one directory: each sees the other's writes,
and neither overwrites a version it did not see (the checked write is the arbiter).

The agent is a real ``wikimem mcp`` process driven by the SDK's client; the
person is the app under Pilot with its file watcher on.
"""

from __future__ import annotations

import json

import pytest

from conftest import make_app, open_item, screen_text, started, wait_for
from mcp_support import error_text, payload, stdio_client
from wikimem import MemoryStore

pytest.importorskip("mcp")
pytest.importorskip("textual")


async def watching(pilot) -> None:  # type: ignore[no-untyped-def]
    assert await wait_for(pilot, lambda: pilot.app.watcher_ready)


async def test_the_agents_write_shows_in_the_app_and_the_apps_in_the_agents_recall(backend, memory_dir) -> None:
    from wikimem_tui.item.editor import ItemEditor

    app = make_app(backend, watch=True)
    async with stdio_client(memory_dir) as agent, started(app, (120, 40)) as pilot:
        await watching(pilot)
        made = await agent.call_tool("remember", {"file": "projects", "name": "apollo", "owner": "agent:test",
                                                  "content": "Launch with [[people:Alice]].", "expected": ""})
        assert not made.is_error, made.content[0].text
        assert await wait_for(pilot, lambda: "projects (1)" in screen_text(app))
        # The person edits and saves; the agent's next recall has the new text.
        await open_item(pilot, "preferences", "tea")
        await pilot.press("e")
        await wait_for(pilot)
        app.query_one(ItemEditor).area.load_text("Oolong, says the person.")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: MemoryStore(memory_dir).get("preferences", "tea").content
                              == "Oolong, says the person.")
        recall = await agent.call_tool("recall", {"query": "oolong"})
        assert "## preferences:tea\nOolong, says the person." in recall.content[0].text
        # The agent still holds what it read before the person's save: refused, nothing written.
        stale = await agent.call_tool("remember", {"file": "preferences", "name": "tea", "content": "Agent's tea.",
                                                   "expected": "Jasmine tea in the afternoon."})
        assert json.loads(error_text(stale))["current"] == "Oolong, says the person."
    assert MemoryStore(memory_dir).get("preferences", "tea").content == "Oolong, says the person."


async def test_the_agents_write_under_the_persons_draft_is_not_overwritten(backend, memory_dir) -> None:
    from wikimem_tui.item.editor import ItemEditor

    app = make_app(backend, watch=True)
    async with stdio_client(memory_dir) as agent, started(app, (120, 40)) as pilot:
        await open_item(pilot, "preferences", "tea")
        await watching(pilot)
        await pilot.press("e")
        await wait_for(pilot)
        app.query_one(ItemEditor).area.load_text("The person's unsaved draft.")
        read = payload(await agent.call_tool("read_item", {"file": "preferences", "name": "tea"}))
        wrote = await agent.call_tool("remember", {"file": "preferences", "name": "tea",
                                                   "content": "The agent's update.", "expected": read["content"]})
        assert not wrote.is_error
        # The app shows both versions instead of saving over the agent's.
        assert await wait_for(pilot, lambda: "The agent's update." in screen_text(app)
                              and "The person's unsaved draft." in screen_text(app))
    assert MemoryStore(memory_dir).get("preferences", "tea").content == "The agent's update."
