"""The help screen: every binding with its stable id, so users can remap it."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["HelpScreen"]

INTRO = (
    "wikimem-tui: inspect and edit a wikimem memory directory.\n"
    "Keys below are remappable: put `binding-id = \"key\"` lines under [keymap] in "
)


class HelpScreen(ModalScreen[None]):
    """Lists ``(id, keys, description)`` rows handed in by the app."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90; max-width: 95%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
    """

    BINDINGS = [Binding("escape,q,f1,question_mark", "dismiss", "Close", id="help.close")]

    def __init__(self, rows: list[tuple[str, str, str]], config_file: str) -> None:
        super().__init__()
        self.rows = rows
        self.config_file = config_file

    def compose(self) -> ComposeResult:
        table = Table(expand=True, box=None, header_style="bold")
        table.add_column("key", style="bold cyan", no_wrap=True)
        table.add_column("action")
        table.add_column("binding id", style="dim", no_wrap=True)
        for binding_id, keys, description in self.rows:
            table.add_row(Text(keys), Text(description), Text(binding_id))
        with VerticalScroll():
            intro = Text(INTRO)
            intro.append(self.config_file, style="bold")
            intro.append(" (or $WIKIMEM_TUI_CONFIG).\nMouse: click tree nodes, tabs, links and buttons. Esc closes.\n")
            yield Static(intro)
            yield Static(table)
