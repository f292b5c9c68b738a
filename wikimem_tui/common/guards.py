"""Why an action cannot run right now, as a table: the first row that applies answers.

Actions that cannot run (read-only, nothing open, editing, nothing to undo)
are disabled through Textual's ``check_action`` -- dimmed in the footer,
listed with the reason in the palette -- and say why when invoked anyway,
from a key or the palette. The conditions are rows of data rather than
branches of one method: a row names the actions it covers, when they cannot
run and what the user is told, so adding a rule is adding a row and a rule
can be read without the others. Each pane keeps the rows for its own
actions next to the state they read (the item pane's in
``item/item_area.py``); the App asks its own rows, then the pane's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Guard", "reason_for"]

S = TypeVar("S")


@dataclass(frozen=True)
class Guard(Generic[S]):
    """One rule: ``actions`` cannot run while ``blocked(subject)``; ``reason`` says why."""

    actions: Set[str]
    blocked: Callable[[S], bool]
    reason: str | Callable[[S, str], str]
    """The sentence shown, or a function of the subject and the action that writes it."""


def reason_for(guards: Sequence[Guard[S]], subject: S, action: str) -> str | None:
    """Why ``action`` cannot run on ``subject`` (the first row that applies), or None when it can."""
    for guard in guards:
        if action in guard.actions and guard.blocked(subject):
            return guard.reason if isinstance(guard.reason, str) else guard.reason(subject, action)
    return None
