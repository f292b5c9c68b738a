"""Command palette (ctrl+p): open any item by name, plus the app's actions.

Item names are untrusted, so the hit display is built with ``safe_line``
rather than Textual's ``matcher.highlight`` (which parses markup); scoring
reuses the go-to finder's fuzzy score so both finders agree, in a thread
worker (cancelled with the palette). An action that cannot run now stays
listed with the reason in its help; choosing it says the reason again.
"""

from __future__ import annotations

from functools import partial
from typing import Protocol, runtime_checkable

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.worker import WorkerCancelled, WorkerFailed

from wikimem_tui.core.catalogue import Catalogue

from wikimem_tui.common.messages import OpenItem
from wikimem_tui.common.safe import safe_line
from wikimem_tui.common.goto import rank

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
    ("Audit", "What the item (or diary day) shown rests on, and what rests on it", "audit"),
    ("Retract", "Retract the item or a diary entry shown: mark or delete what rests on it", "retract"),
    ("History", "Past versions of the item shown, from git: diff and restore", "history"),
    ("Go to item", "Fuzzy-find an item by file and name", "goto"),
    ("Why not recalled?", "Pin an item in the query pane: why the query does (not) recall it", "why_not"),
    ("Capture agent sessions", "Claude Code and Codex sessions into the diary, each with its evidence card",
     "capture('all')"),
    ("Capture Claude Code sessions", "Sessions under ~/.claude/projects into the diary", "capture('claude-code')"),
    ("Capture Codex sessions", "Sessions under $CODEX_HOME/sessions into the diary", "capture('codex')"),
    ("Embeddings", "Start embedding the store (shows the cost first), or pause it (--embed)", "embeddings"),
    ("Undo", "Undo the app's last write (edit, new, delete, rename, move, promotion)", "undo"),
    ("Back", "Back to the item opened before", "back"),
    ("Forward", "Forward again after going back", "forward"),
    ("Copy link", "Copy the open item as [[file:name]]", "copy_link"),
    ("Copy markdown", "Copy the open item as its markdown block", "copy_block"),
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


@runtime_checkable
class PaletteHost(Protocol):
    """What the palette needs from the app: the names, and why an action cannot run."""

    catalogue: Catalogue | None

    def disabled_reason(self, action: str) -> str | None: ...


class ItemCommands(Provider):
    """Palette hits: "open <file:name>" for items, and the app actions."""

    def _open(self, file: str, name: str) -> None:
        self.app.post_message(OpenItem(file, name))

    async def _run(self, action: str) -> None:
        await self.app.run_action(action)

    def _help(self, action: str, help_text: str) -> str:
        reason = self.app.disabled_reason(action.partition("(")[0]) if isinstance(self.app, PaletteHost) else None
        return f"{help_text} — unavailable now: {reason}" if reason else help_text

    async def discover(self) -> Hits:
        for title, help_text, action in ACTION_COMMANDS:
            yield DiscoveryHit(title, partial(self._run, action), help=self._help(action, help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, action in ACTION_COMMANDS:
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(self._run, action), help=self._help(action, help_text))
        catalogue = self.app.catalogue if isinstance(self.app, PaletteHost) else None
        if catalogue is None:
            return
        # In a thread worker: scoring 100k names takes a few hundred ms.
        worker = self.app.run_worker(partial(rank, query, catalogue.all_items(), MAX_HITS), thread=True,
                                     group="palette", exclusive=True, exit_on_error=False)
        try:
            best, _total = await worker.wait()
        except (WorkerCancelled, WorkerFailed):
            return
        for position, (file, name) in enumerate(best):
            display = safe_line("open ", "dim")
            display.append_text(safe_line(f"{file}:{name}"))
            yield Hit(0.9 - position / 1000, display, partial(self._open, file, name), text=f"{file}:{name}")
