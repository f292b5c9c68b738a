"""Claude.ai's data export (``conversations.json``) as diary entries.

The export is a list of conversations (``uuid``, ``name``, ``created_at``,
``chat_messages``), each message with ``sender`` (``human`` or
``assistant``), ``created_at`` (ISO-8601) and its text twice: ``text``, and
``content`` blocks (``text``, ``thinking``, ``tool_use``, ``tool_result``).
The ``text`` blocks are the message as shown; older exports have only
``text``. Thinking and tool traffic are not what was said, and are left
out; an attachment is named, its extracted content is not copied.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from wikimem.interop.conversation import Conversation, Message, read_export
from wikimem.interop.plan import ImportPlan
from wikimem.interop.text import to_ts

__all__ = ["read_claude"]

OWNER = "import:claude"
_ROLES = {"human": "user", "user": "user", "assistant": "assistant"}


def _text(message: dict[str, Any]) -> str:
    blocks = message.get("content")
    texts = [b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text"
             and isinstance(b.get("text"), str)] if isinstance(blocks, list) else []
    text = "\n\n".join(t for t in texts if t.strip())
    if not text.strip() and isinstance(message.get("text"), str):
        text = message["text"]
    attached = [a for key in ("attachments", "files") if isinstance(message.get(key), list) for a in message[key]]
    names = [a["file_name"] for a in attached if isinstance(a, dict) and isinstance(a.get("file_name"), str)]
    if names:
        text = (text + "\n" if text.strip() else "") + "".join(f"[attachment: {n}]" for n in names)
    return text


def _conversation(conv: dict[str, Any]) -> Conversation | None:
    if not isinstance(conv.get("chat_messages"), list):  # every conversation of the export has the list
        return None
    messages = []
    for message in conv["chat_messages"]:
        if not isinstance(message, dict):
            continue
        role = _ROLES.get(str(message.get("sender")))
        text = _text(message)
        if role is not None and text.strip():
            messages.append(Message(role, text, to_ts(message.get("created_at"))))
    ident, title = conv.get("uuid"), conv.get("name")
    return Conversation(ident if isinstance(ident, str) else None, title if isinstance(title, str) else None,
                        messages, conv.get("created_at"))


def read_claude(path: Path, *, tz: dt.tzinfo | None = dt.timezone.utc) -> ImportPlan:
    """The plan for a Claude.ai export (``conversations.json``, its folder or its zip)."""
    return read_export(path, source="claude", label="Claude", owner=OWNER, tz=tz, conversation=_conversation)
