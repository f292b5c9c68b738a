"""Every key the App binds, with its stable id, and which of them write.

The App's bindings are active wherever the focus is, so they are one
table: the keymap file remaps them by id (``common/config.py`` checks the
ids and keys), the help screen and the footer read them from the App, and
the palette (``common/commands.py``) offers the same actions by name.
:data:`WRITE_ACTIONS` says which of them write, so read-only disables
them with one rule (the App's guard table).
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

__all__ = ["APP_BINDINGS", "WRITE_ACTIONS"]

#: Actions that write: disabled (with the reason) when read-only.
WRITE_ACTIONS = frozenset({"capture", "edit", "save", "new_item", "new_file", "rename", "move", "delete", "append_diary",
                           "promote", "external_editor", "undo", "retract"})

#: The App's keys (its ``BINDINGS``): ``id`` is what the keymap file names.
APP_BINDINGS: list[BindingType] = [
    # f1 has priority so it also works on modal screens (conflict, dialogs); ? must still type into boxes.
    Binding("f1", "help", "Help", id="help", key_display="F1", priority=True),
    Binding("question_mark", "help", "Help", id="help", show=False),
    Binding("slash", "pane('query')", "Query", id="focus-query", key_display="/"),
    Binding("t", "pane('tree')", "Tree", id="pane-tree"),
    Binding("c", "pane('calendar')", "Calendar", id="pane-calendar", show=False),
    Binding("j", "pane('journal')", "Journal", id="pane-journal", show=False),
    Binding("h", "pane('health')", "Health", id="pane-health", show=False),
    Binding("R", "pane('queue')", "Reconcile queue", id="pane-queue", show=False),
    Binding("e", "edit", "Edit", id="edit"),
    Binding("ctrl+s", "save", "Save", id="save"),
    Binding("escape", "cancel", "Cancel", id="cancel", show=False),
    Binding("n", "new_item", "New", id="new-item"),
    Binding("N", "new_file", "New file", id="new-file", show=False),
    Binding("r", "rename", "Rename", id="rename", show=False),
    Binding("m", "move", "Move", id="move", show=False),
    Binding("d", "delete", "Delete", id="delete"),
    Binding("ctrl+z", "undo", "Undo", id="undo", show=False),  # toasts after each write say "ctrl+z undoes it"
    Binding("a", "append_diary", "Append diary", id="append-diary", show=False),
    Binding("p", "promote", "Promote", id="promote", show=False),
    Binding("A", "audit", "Audit", id="audit"),
    Binding("X", "retract", "Retract", id="retract", show=False),
    Binding("H", "history", "History", id="history", show=False),
    Binding("g", "goto", "Go to", id="goto"),
    Binding("w", "why_not", "Why not recalled?", id="why-not", show=False),
    Binding("E", "embeddings", "Embeddings", id="embeddings", show=False),
    Binding("C", "capture('all')", "Capture agent sessions", id="capture", show=False),  # capture: sessions into the diary
    Binding("alt+left", "back", "Back", id="back", show=False),
    Binding("alt+right", "forward", "Forward", id="forward", show=False),
    Binding("y", "copy_link", "Copy [[link]]", id="copy-link", show=False),
    Binding("Y", "copy_block", "Copy markdown", id="copy-block", show=False),
    Binding("f4", "external_editor", "$EDITOR", id="external-editor", show=False),
    Binding("q", "quit", "Quit", id="quit"),
]
