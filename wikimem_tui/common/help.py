"""The help screen: the keys of where you are first, then the global ones (as k9s and posting do).

Nothing here lists keys by hand. ``show_help`` reads the screen's *active*
bindings (Textual's ``Screen.active_bindings``: the focus chain from the
focused widget up to the App, the user's keymap applied, a key bound twice
shown where it wins, actions a ``check_action`` hides left out) and groups
them by the widget that owns them: this app's widgets nearest first, then
Textual's own (tree, text box…), the screen and the App. So a binding added to any
widget or screen appears here by itself, under its widget's ``HELP_TITLE``,
with its stable id for the keymap file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.widgets import Static

from wikimem_tui.common.dialog import Dialog

__all__ = ["HelpScreen", "HelpSection", "help_sections", "show_help"]

INTRO = (
    "Keys for where you are come first, then the ones that work everywhere.\n"
    "Remap any of them by id: put `binding-id = \"key\"` lines under [keymap] in "
)

#: Scrolling keys every scrollable widget has: listing them under each widget buries the keys to learn.
_SCROLLING = re.compile(r"(scroll|page)_(up|down|left|right|home|end)$")
#: Titles for Textual's own widgets (ours carry a ``HELP_TITLE``).
_TITLES = {"Input": "Text box", "DataTable": "Table", "OptionList": "List", "TextArea": "Text editor"}


@dataclass
class HelpSection:
    """The keys one widget (or screen, or the app) handles where the focus is."""

    title: str
    note: str = ""
    rows: list[tuple[str, str, str, bool]] = field(default_factory=list)
    """``(keys, description, binding id, enabled)``."""


def _title(node: DOMNode) -> str:
    if isinstance(node, App):
        return "Everywhere"
    title = getattr(type(node), "HELP_TITLE", None)
    if title:
        return str(title)
    name = type(node).__name__
    return _TITLES.get(name) or re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).capitalize()


def help_sections(app: App[object]) -> list[HelpSection]:
    """The active bindings of ``app.screen``, grouped by owner, the focused widget's first."""
    screen = app.screen
    chain: list[DOMNode] = list(screen.focused.ancestors_with_self) if screen.focused else [screen]
    if app not in chain:
        chain.append(app)
    grouped: dict[int, dict[tuple[str, str], tuple[Binding, list[str], bool]]] = {}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if binding.system or _SCROLLING.match(binding.action):
            continue
        per_node = grouped.setdefault(id(active.node), {})
        slot = (binding.id or binding.action, binding.action)
        if slot in per_node:
            per_node[slot][1].append(app.get_key_display(binding.with_key(key)))
        else:
            per_node[slot] = (binding, [app.get_key_display(binding.with_key(key))], active.enabled)
    # This app's widgets first (their keys are the ones to learn), then Textual's own widgets'
    # movement and editing keys, then the screen's and the app's.
    ours = [n for n in chain if type(n).__module__.startswith("wikimem_tui") and "BINDINGS" in vars(type(n))
            and not isinstance(n, App)]
    chain = ours + [n for n in chain if n not in ours and not isinstance(n, App)] + [app]
    sections = []
    for node in chain:
        entries = grouped.get(id(node))
        if not entries:
            continue
        section = HelpSection(_title(node), str(getattr(type(node), "HELP_NOTE", "") or ""))
        for binding, keys, enabled in entries.values():
            section.rows.append((" / ".join(keys), binding.description or binding.action, binding.id or "", enabled))
        sections.append(section)
    return sections


def show_help(app: App[Any], config_file: str) -> None:
    """Open the help for where the focus is (the App's ``action_help``); on the help itself, close it."""
    if isinstance(app.screen, HelpScreen):
        app.screen.dismiss()
        return
    app.push_screen(HelpScreen(help_sections(app), config_file))


class HelpScreen(Dialog[None]):
    """Shows the sections ``help_sections`` built, in that order.

    Toasts are not drawn over the help (a start-up notice would sit on its
    keys for as long as it lasts): they are the app's, not the screen's, so those still
    current show again on the screen below when the help closes.
    """

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen Toast { visibility: hidden; }
    HelpScreen > VerticalScroll { width: 90; max-width: 95%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
    """

    BINDINGS = [Binding("escape,q,f1,question_mark", "dismiss", "Close", id="help.close")]

    def __init__(self, sections: list[HelpSection], config_file: str) -> None:
        super().__init__()
        self.sections = sections
        self.config_file = config_file

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            intro = Text(INTRO)
            intro.append(self.config_file, style="bold")
            intro.append(" (or $WIKIMEM_TUI_CONFIG); `wikimem-tui --check-config` checks it.\n"
                         "Mouse: click tree nodes, tabs, links and buttons. Esc closes.\n")
            yield Static(intro)
            for section in self.sections:
                yield Static(self._table(section), classes="help-section")

    @staticmethod
    def _table(section: HelpSection) -> Table:
        table = Table(expand=True, box=None, title=section.title, title_justify="left",
                      title_style="bold reverse", caption=section.note or None, caption_justify="left",
                      caption_style="italic", show_header=False, padding=(0, 1))
        table.add_column("key", style="bold cyan", no_wrap=True, min_width=14)
        table.add_column("action", ratio=1)
        table.add_column("binding id", style="dim", no_wrap=True)
        for keys, description, binding_id, enabled in section.rows:
            what = Text(description) if enabled else Text(f"{description} (not available here)", style="dim")
            table.add_row(Text(keys), what, Text(binding_id))
        return table
