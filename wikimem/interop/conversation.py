"""A conversation as diary entries: one entry per exchange (a person's message and the replies to it).

An exchange is the unit a person remembers ("I asked about X, it said Y"),
small enough to be recalled on its own and dated by the moment the message
was sent. A conversation's text is someone else's: secrets in it are
redacted (``wikimem.capture.redact``), a ``[[link]]`` in it is defused
(it is no link of this memory), and each message is capped at
:data:`MESSAGE_CAP` characters with a marker saying how much was left out,
so one pasted log does not crowd out everything else in recall.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikimem.capture.redact import redact
from wikimem.interop.plan import ImportPlan, SourceError, entry_at
from wikimem.interop.source_file import load_json
from wikimem.interop.text import clean, defuse_links, provenance, storable, to_ts
from wikimem.models import DiaryItem

__all__ = ["MESSAGE_CAP", "Conversation", "Message", "conversation_entries", "read_export"]

#: The most characters of one message an entry keeps.
MESSAGE_CAP = 4000


@dataclass(frozen=True)
class Message:
    """One message of a conversation: ``role`` is ``user`` or ``assistant``; ``ts`` its own time, if known."""

    role: str
    text: str
    ts: str | None


def _capped(text: str) -> str:
    text = clean(text).strip()
    if len(text) <= MESSAGE_CAP:
        return text
    return text[:MESSAGE_CAP].rstrip() + f"\n[… {len(text) - MESSAGE_CAP} more characters not imported]"


def conversation_entries(label: str, source_conv: str, title: str | None, messages: list[Message],
                         fallback_ts: str | None, *, owner: str,
                         tz: dt.tzinfo | None = dt.timezone.utc) -> tuple[list[DiaryItem], int]:
    """The entries of one conversation, and how many exchanges had no time at all (left out)."""
    exchanges: list[list[Message]] = []
    for message in messages:
        if message.role == "user" or not exchanges:
            exchanges.append([message])
        else:
            exchanges[-1].append(message)
    heading = f'From {label}, "{clean(title).strip()}":' if title and title.strip() else f"From {label}:"
    out: list[DiaryItem] = []
    untimed = 0
    for exchange in exchanges:
        ts = next((m.ts for m in exchange if m.ts), None) or fallback_ts
        if ts is None:
            untimed += 1
            continue
        body = "\n\n".join(f"{m.role}: {_capped(m.text)}" for m in exchange)
        content = storable(defuse_links(redact(f"{heading}\n\n{body}")))
        out.append(entry_at(ts, content, owner=owner, source_conv=source_conv, tz=tz))
    return out, untimed


@dataclass(frozen=True)
class Conversation:
    """One conversation as an export holds it: its id (``None``: it has none), title, messages and time."""

    ident: str | None
    title: str | None
    messages: list[Message]
    created: object


def read_export(path: Path, *, source: str, label: str, owner: str, tz: dt.tzinfo | None,
                conversation: Callable[[dict[str, Any]], Conversation | None]) -> ImportPlan:
    """The plan for a chat app's export: a list of conversations (or ``{"conversations": [...]}``).

    ``conversation`` reads one conversation object, or says (``None``) that it
    is not of this export's shape, which refuses the whole file. A
    conversation without an id is named by a hash of its title and time, so
    a second run finds it again.
    """
    data = load_json(path, inner="conversations.json")
    if isinstance(data, dict) and isinstance(data.get("conversations"), list):
        data = data["conversations"]
    if not isinstance(data, list):
        raise SourceError(f"{path}: not a {label} export (expected a list of conversations)")
    plan = ImportPlan(source)
    for position, raw in enumerate(data):
        conv = conversation(raw) if isinstance(raw, dict) else None
        if conv is None:
            raise SourceError(f"{path}: conversation {position} is not of a {label} export's shape")
        ident = conv.ident if conv.ident and conv.ident.strip() else \
            hashlib.sha256(repr((conv.title, conv.created)).encode()).hexdigest()[:16]
        if not conv.messages:
            plan.notes.append(f"conversation {ident}: no messages")
            continue
        entries, untimed = conversation_entries(label, provenance(f"{source}:{ident}"), conv.title, conv.messages,
                                                to_ts(conv.created), owner=owner, tz=tz)
        plan.entries += entries
        if untimed:
            plan.notes.append(f"conversation {ident}: {untimed} exchange(s) without a time left out")
    return plan
