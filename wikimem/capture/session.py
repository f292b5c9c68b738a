"""One agent session, read: the shape both readers (Claude Code, Codex) produce.

A session log is the agent's file, not ours (huge, still being written, of
a newer version, or damaged), so a reader never fails on a line: it takes
what it understands, counts what it skipped and why, and keeps every text
bounded (:data:`TEXT_CAP`). Every event carries its line's byte offset, so a
session that grew can be summarized from where the last capture stopped
(:meth:`Session.since`) without a second format-specific reader.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from wikimem.capture.redact import redact_joined
from wikimem.disk.marks import DERIVED_TAG, is_derived, strip_derived
from wikimem.disk.names import parse_ts
from wikimem.disk.tolerant import loads_tolerant

__all__ = ["TEXT_CAP", "Event", "Session", "bounded_text", "normalize_ts"]

#: Characters of one message kept by a reader (the card keeps far fewer).
TEXT_CAP = 16_000

Role = Literal["user", "assistant", "interrupt", "tool"]

# C0 controls but tab and newline, DEL, C1: a log is untrusted terminal text.
_CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def normalize_ts(value: object) -> str | None:
    """An agent's timestamp as ISO-8601 UTC seconds (``+00:00``), or ``None`` when it is not one."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return parse_ts(value)
    except ValueError:
        return None


def _json_strings(text: str, depth: int = 0) -> str:
    """Every string inside ``text`` read as JSON (nested JSON strings too), one per line; ``""`` if not JSON."""
    value = loads_tolerant(text, "") if depth < 4 and text.lstrip()[:1] in "{[\"" else None  # a deep one: not JSON
    if value == "":
        return ""
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(_json_strings(item, depth + 1) or item if item.lstrip()[:1] in "{[" else item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return "\n".join(out)


def bounded_text(text: str) -> str:
    """``text`` without control characters, cut at :data:`TEXT_CAP` on a word boundary.

    Cut at a space so the cut never leaves half of a secret that the
    redactor would no longer recognise at the end of what is kept.
    """
    if _CONTROL_RE.search(text):
        text = _CONTROL_RE.sub("", text)
    if len(text) > TEXT_CAP:
        cut = text.rfind(" ", 0, TEXT_CAP)
        text = text[: cut if cut > TEXT_CAP // 2 else TEXT_CAP]
    return text


@dataclass(frozen=True)
class Event:
    """One thing that happened: a real user request, an assistant text, an interruption, a tool call.

    ``text`` is the message (tool calls: the tool's name only; inputs and
    outputs are never kept); ``offset`` the byte offset of its line.
    """

    role: Role
    text: str
    ts: str | None
    offset: int


@dataclass
class Session:
    """A session log as read: identity, place, events, and what was skipped.

    ``size`` is how many bytes were read (up to the end of the last whole
    line) and ``sha256`` their hash: what the next capture compares to see
    that the session is unchanged, grew, or was rewritten. ``parent_id`` is
    set on a sub-agent's own file (its work belongs to the parent session).
    """

    agent: str
    session_id: str
    path: Path
    cwd: str | None = None
    branch: str | None = None
    events: list[Event] = field(default_factory=list)
    tool_results: int = 0
    derived_at: list[int] = field(default_factory=list)
    parent_id: str | None = None
    subagents: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    size: int = 0
    sha256: str = ""
    lines: int = 0
    #: The path as the caller named it (``path`` is made absolute for the card).
    shown: str = ""
    #: Parts of the last assistant event not yet joined to it (:meth:`extend_assistant`), and their length.
    _parts: list[str] = field(default_factory=list, init=False, repr=False, compare=False)
    _held: int = field(default=0, init=False, repr=False, compare=False)

    @property
    def derived(self) -> bool:
        """True when the session read the memory (the derived marker appeared in it)."""
        return bool(self.derived_at)

    @property
    def stamps(self) -> list[str]:
        return [e.ts for e in self.events if e.ts]

    @property
    def first_ts(self) -> str | None:
        stamps = self.stamps
        return min(stamps) if stamps else None

    @property
    def last_ts(self) -> str | None:
        stamps = self.stamps
        return max(stamps) if stamps else None

    @property
    def tools(self) -> Counter[str]:
        """Tool name -> calls (names and counts only: never an input or an output)."""
        return Counter(e.text for e in self.events if e.role == "tool")

    def since(self, offset: int) -> Session:
        """The part of the session from byte ``offset`` on (what grew since a capture)."""
        self.settle()
        return replace(
            self,
            events=[e for e in self.events if e.offset >= offset],
            derived_at=[o for o in self.derived_at if o >= offset],
            skipped=Counter(),
        )

    # -- what the readers call ---------------------------------------------------

    def add(self, role: Role, text: str, ts: str | None, offset: int) -> None:
        """Record one event; a text carrying the derived marker marks the session and loses the marker."""
        self.settle()
        if role in ("user", "assistant") and self.check_derived(text, offset):
            text = strip_derived(text)
        text = bounded_text(text).strip()
        if text or role == "interrupt":
            self.events.append(Event(role, text, ts, offset))

    def extend_assistant(self, text: str, offset: int) -> bool:
        """Append ``text`` to the last event when it is an assistant text (one message in several lines).

        The parts are joined by :meth:`settle`, once: an agent may stream
        one reply over tens of thousands of lines, and joining (and
        redacting) the whole reply again on every line made reading it
        quadratic. Parts past what :data:`TEXT_CAP` keeps are not held.
        """
        if not self.events or self.events[-1].role != "assistant":
            return False
        if self.check_derived(text, offset):
            text = strip_derived(text)
        text = text.strip()
        if not self._parts:
            self._held = len(self.events[-1].text)
        if text and self._held <= 2 * TEXT_CAP:  # redaction may shorten what is held: keep a margin
            self._parts.append(text)
            self._held += len(text) + 2
        return True

    def settle(self) -> None:
        """Join the parts :meth:`extend_assistant` held into the last event (readers call it when done)."""
        if not self._parts:
            return
        last = self.events[-1]
        joined = bounded_text(redact_joined([last.text, *self._parts], "\n\n")).strip()
        self.events[-1] = Event("assistant", joined, last.ts, last.offset)
        self._parts.clear()

    def check_derived(self, text: str, offset: int) -> bool:
        """Note the derived marker in ``text`` (a tool result, a message); True when it is there.

        A tool's output is often JSON inside a string (``{"output": …}``), where the marker's
        line breaks are escaped: such text is decoded before the marker is looked for.
        """
        if is_derived(text) or (DERIVED_TAG in text and is_derived(_json_strings(text))):
            if not self.derived_at or self.derived_at[-1] != offset:
                self.derived_at.append(offset)
            return True
        return False

    def skip(self, reason: str, count: int = 1) -> None:
        self.skipped[reason] += count
