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
import hashlib
from pathlib import Path
from typing import Any

from wikimem.interop.conversation import Message, conversation_entries
from wikimem.interop.plan import ImportPlan, SourceError
from wikimem.interop.source_file import load_json
from wikimem.interop.text import provenance, to_ts

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
    names = [a.get("file_name") for a in (message.get("attachments") or []) + (message.get("files") or [])
             if isinstance(a, dict) and isinstance(a.get("file_name"), str)]
    if names:
        text = (text + "\n" if text.strip() else "") + "".join(f"[attachment: {n}]" for n in names)
    return text


def read_claude(path: Path, *, tz: dt.tzinfo | None = dt.timezone.utc) -> ImportPlan:
    """The plan for a Claude.ai export (``conversations.json``, its folder or its zip)."""
    data = load_json(path, inner="conversations.json")
    if isinstance(data, dict) and isinstance(data.get("conversations"), list):
        data = data["conversations"]
    if not isinstance(data, list):
        raise SourceError(f"{path}: not a Claude export (expected a list of conversations)")
    plan = ImportPlan("claude")
    for position, conv in enumerate(data):
        if not isinstance(conv, dict) or not isinstance(conv.get("chat_messages", []), list):
            raise SourceError(f"{path}: conversation {position} has no chat_messages: not a Claude export")
        raw_id = conv.get("uuid")
        if not isinstance(raw_id, str) or not raw_id.strip():
            raw_id = hashlib.sha256(repr((conv.get("name"), conv.get("created_at"))).encode()).hexdigest()[:16]
        messages = []
        for message in conv.get("chat_messages") or []:
            if not isinstance(message, dict):
                continue
            role = _ROLES.get(str(message.get("sender")))
            text = _text(message)
            if role is not None and text.strip():
                messages.append(Message(role, text, to_ts(message.get("created_at"))))
        if not messages:
            plan.notes.append(f"conversation {raw_id}: no messages")
            continue
        title = conv.get("name") if isinstance(conv.get("name"), str) else None
        entries, untimed = conversation_entries("Claude", provenance(f"claude:{raw_id}"), title, messages,
                                                to_ts(conv.get("created_at")), owner=OWNER, tz=tz)
        plan.entries += entries
        if untimed:
            plan.notes.append(f"conversation {raw_id}: {untimed} exchange(s) without a time left out")
    return plan
