"""Command palette (ctrl+p): open any item by name, plus the app's actions.

Item names are untrusted, so the hit display is built with ``safe_line``
rather than Textual's ``matcher.highlight`` (which parses markup); scoring
reuses the go-to finder's fuzzy score so both finders agree.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from wikimem_tui.messages import OpenItem
from wikimem_tui.safe import safe_line
from wikimem_tui.screens.goto import rank

__all__ = ["ACTION_COMMANDS", "ItemCommands"]

#: (title, help, action) triples offered in the palette; actions are App actions.
ACTION_COMMANDS: list[tuple[str, str, str]] = [
    ("New item", "Create an item in a RecallFile", "new_item"),
    ("New RecallFile", "Create a RecallFile with its first item", "new_file"),
    ("Edit item", "Edit the open item", "edit"),
    ("Rename item", "Rename the open item", "rename"),
    ("Move item", "Move the open item to another RecallFile", "move"),
    ("Delete item", "Delete the open item (asks first)", "delete"),
    ("Append diary entry", "Append an entry to the diary", "append_diary"),
    ("Promote diary entries", "Turn entries of the day shown into a wiki item", "promote"),
    ("Go to item", "Fuzzy-find an item by file and name", "goto"),
    ("Toggle tree", "Show or hide the topic tree", "toggle_tree"),
    ("Show item pane", "Switch to the item view", "pane('item')"),
    ("Show calendar", "Switch to the diary calendar", "pane('calendar')"),
    ("Show journal", "Switch to the journal tail", "pane('journal')"),
    ("Show query", "Switch to the query box", "pane('query')"),
    ("Show health", "Switch to the lint findings", "pane('health')"),
    ("Open in $EDITOR", "Edit the open item in an external editor", "external_editor"),
    ("Keys", "List every key binding and its id", "help"),
]

MAX_HITS = 30


class ItemCommands(Provider):
    """Palette hits: "open <file:name>" for items, and the app actions."""

    def _open(self, file: str, name: str) -> None:
        self.app.post_message(OpenItem(file, name))

    async def _run(self, action: str) -> None:
        await self.app.run_action(action)

    async def discover(self) -> Hits:
        for title, help_text, action in ACTION_COMMANDS:
            yield DiscoveryHit(title, partial(self._run, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, action in ACTION_COMMANDS:
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(self._run, action), help=help_text)
        catalogue: Any = getattr(self.app, "catalogue", None)
        if catalogue is None:
            return
        # Off the event loop: scoring 100k names takes a few hundred ms.
        best, _total = await asyncio.to_thread(rank, query, catalogue.all_items(), MAX_HITS)
        for position, (file, name) in enumerate(best):
            display = safe_line("open ", "dim")
            display.append_text(safe_line(f"{file}:{name}"))
            yield Hit(0.9 - position / 1000, display, partial(self._open, file, name), text=f"{file}:{name}")
