"""ChatGPT's data export (``conversations.json``) as diary entries.

Each conversation is a tree of message nodes, because an edited prompt or a
regenerated reply branches it: the thread the person last saw is the chain
of parents from ``current_node``, and the other branches are drafts, left
out. Along it, messages that are not the person's or the assistant's words
to each other (system, tool, tool calls, hidden context) are skipped.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from wikimem.interop.conversation import Conversation, Message, read_export
from wikimem.interop.plan import ImportPlan
from wikimem.interop.text import to_ts

__all__ = ["read_chatgpt"]

OWNER = "import:chatgpt"


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        if isinstance(part.get("text"), str):
            return str(part["text"])
        kind = str(part.get("content_type") or "")
        return "[image]" if "image" in kind else "[attachment]"
    return ""


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if not isinstance(content, dict):
        return ""
    kind = content.get("content_type")
    if kind in ("user_editable_context", "execution_output", "tether_browsing_display", "system_error"):
        return ""
    parts = content.get("parts")
    if isinstance(parts, list):
        return "\n".join(t for t in (_part_text(p) for p in parts) if t.strip())
    text = content.get("text")
    return text if isinstance(text, str) else ""


def _thread(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The messages from the root to ``current`` (or to the newest leaf when it is missing), in order."""
    if not isinstance(current, str) or current not in mapping:
        leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
        def when(key: str) -> float:
            msg = mapping[key].get("message")
            t = msg.get("create_time") if isinstance(msg, dict) else None
            return float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) else 0.0
        current = max(leaves, key=when, default=None)
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id = current
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        if isinstance(node.get("message"), dict):
            chain.append(node["message"])
        node_id = node.get("parent")
    chain.reverse()
    return chain


def _messages(mapping: dict[str, Any], current: Any) -> list[Message]:
    out = []
    for message in _thread(mapping, current):
        author = message.get("author")
        role = author.get("role") if isinstance(author, dict) else None
        if role not in ("user", "assistant") or message.get("recipient", "all") != "all":
            continue  # system and tool messages, and what the assistant sent a tool (recipient "bio", "python")
        meta = message.get("metadata")
        if isinstance(meta, dict) and (meta.get("is_visually_hidden_from_conversation")
                                       or meta.get("is_user_system_message")):
            continue
        text = _text(message)
        if text.strip():
            out.append(Message(str(role), text, to_ts(message.get("create_time"))))
    return out


def _conversation(conv: dict[str, Any]) -> Conversation | None:
    if not isinstance(conv.get("mapping"), dict):
        return None
    ident = conv.get("conversation_id") or conv.get("id")
    title = conv.get("title")
    return Conversation(ident if isinstance(ident, str) else None, title if isinstance(title, str) else None,
                        _messages(conv["mapping"], conv.get("current_node")), conv.get("create_time"))


def read_chatgpt(path: Path, *, tz: dt.tzinfo | None = dt.timezone.utc) -> ImportPlan:
    """The plan for a ChatGPT export (``conversations.json``, its folder or its zip)."""
    return read_export(path, source="chatgpt", label="ChatGPT", owner=OWNER, tz=tz, conversation=_conversation)
