"""An Evidence Card on screen: the last link of the audit chain before the session log itself.

Opened from the audit (``enter`` on a card row): the card a captured diary
entry names (``wikimem.curation.capture_chain``), field by field -- agent,
session, where and when it ran, goal, outcome, what was left unresolved,
the representative update, tool counts, what reading the log skipped --
and whether the session log it came from still exists (agents delete old
logs; then this card is the only record). Everything on it came from an
agent's log: untrusted text, shown through ``wikimem_tui.common.safe``.
The screen only reads (in a thread worker); escape closes it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static
from textual.worker import get_current_worker

from wikimem.curation import CardLink, CardReader
from wikimem_tui.common.dialog import Dialog
from wikimem_tui.common.safe import safe_line, safe_text

__all__ = ["CardScreen", "card_text"]

_AGENTS = {"claude-code": "Claude Code", "codex": "Codex"}
_FIELDS = (("goal", "Goal"), ("outcome", "Outcome"), ("unresolved", "Unresolved"), ("update", "An update on the way"))


def _field(out: Text, label: str, value: object) -> None:
    out.append(f"{label}\n", style="bold")
    if isinstance(value, str) and value:
        out.append_text(safe_text(value))
    else:
        out.append("—", style="dim")
    out.append("\n\n")


def card_text(link: CardLink | None) -> Text:
    """The card, or why there is none, as one block of safe text."""
    if link is None or link.card is None:
        return Text(link.problem if link is not None and link.problem else "no such evidence card", style="red")
    card: dict[str, Any] = link.card
    out = Text()
    agent = str(card.get("agent") or "?")
    out.append_text(safe_line(f"{_AGENTS.get(agent, agent)} session {card.get('session_id') or '?'}", "bold"))
    out.append("\n")
    where = " · ".join(str(card[k]) for k in ("cwd", "branch") if isinstance(card.get(k), str) and card[k])
    when = " → ".join(str(card[k]) for k in ("first", "last") if isinstance(card.get(k), str) and card[k])
    out.append_text(safe_line(" · ".join(p for p in (where, when) if p), "dim"))
    out.append("\n")
    if card.get("derived") is True:
        out.append("↺ derived: the session read the memory, so this is not independent evidence\n", style="magenta")
    out.append("\nSession log  ", style="bold")
    out.append("✓ exists\n" if link.session_exists else "✗ no longer exists: this card is the only record\n",
               style="green" if link.session_exists else "bold red")
    out.append_text(safe_line(link.session_path or "-"))
    out.append("\n\n")
    for key, label in _FIELDS:
        _field(out, label, card.get(key))
    tools: dict[str, Any] = card["tools"] if isinstance(card.get("tools"), dict) else {}
    counts: dict[str, Any] = card["counts"] if isinstance(card.get("counts"), dict) else {}
    out.append("Tools  ", style="bold")
    out.append_text(safe_line(", ".join(f"{name} ×{n}" for name, n in tools.items()) or "none"))
    out.append("\n")
    out.append_text(safe_line(" · ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items()), "dim"))
    skipped: dict[str, Any] = card["skipped"] if isinstance(card.get("skipped"), dict) else {}
    if skipped:
        out.append("\nSkipped while reading  ", style="bold")
        out.append_text(safe_line("; ".join(f"{why}: {n}" for why, n in skipped.items()), "dim"))
    out.append("\n\n")
    out.append_text(safe_line(f"evidence card {card.get('id')} in {link.ref.snapshot}", "dim"))
    return out


class CardScreen(Dialog[None]):
    """One Evidence Card, read in a worker; escape closes."""

    HELP_TITLE = "Evidence card"

    DEFAULT_CSS = """
    CardScreen { align: center middle; }
    CardScreen > Vertical { width: 110; max-width: 98%; height: auto; max-height: 90%; border: thick $primary;
                            background: $surface; padding: 0 1; }
    CardScreen VerticalScroll { height: auto; max-height: 80vh; }
    CardScreen #card-hint { color: $text-muted; height: auto; }
    """

    BINDINGS = [Binding("escape", "close", "Close", id="card.close")]

    def __init__(self, root: Path, card_id: str) -> None:
        super().__init__()
        self.root = root
        self.card_id = card_id
        self.link: CardLink | None = None
        """The card read (None until the worker answered, or when there is none)."""
        self.loaded = False
        """True once the card is on screen (tests wait on it)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            with VerticalScroll():
                yield Static(Text("reading the evidence card…", style="italic dim"), id="card-body")
            yield Static(Text("escape closes"), id="card-hint")

    def on_mount(self) -> None:
        self._read()

    @work(thread=True, exclusive=True, group="card", exit_on_error=False)
    def _read(self) -> None:
        worker = get_current_worker()
        try:
            link = CardReader(self.root).by_id(self.card_id)
            text = card_text(link)
        except Exception as exc:  # a damaged snapshot must not take the screen down
            link, text = None, safe_line(f"cannot read the evidence card: {exc}", "red")
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, link, text)

    def _show(self, link: CardLink | None, text: Text) -> None:
        self.link = link
        self.query_one("#card-body", Static).update(text)
        self.loaded = True

    def action_close(self) -> None:
        """Close (nothing to change here)."""
        self.dismiss(None)
