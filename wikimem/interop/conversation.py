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
from dataclasses import dataclass

from wikimem.capture.redact import redact
from wikimem.interop.plan import PlannedEntry, entry_at
from wikimem.interop.text import clean, defuse_links, storable

__all__ = ["MESSAGE_CAP", "Message", "conversation_entries"]

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
                         tz: dt.tzinfo | None = dt.timezone.utc) -> tuple[list[PlannedEntry], int]:
    """The entries of one conversation, and how many exchanges had no time at all (left out)."""
    exchanges: list[list[Message]] = []
    for message in messages:
        if message.role == "user" or not exchanges:
            exchanges.append([message])
        else:
            exchanges[-1].append(message)
    heading = f'From {label}, "{clean(title).strip()}":' if title and title.strip() else f"From {label}:"
    out: list[PlannedEntry] = []
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
