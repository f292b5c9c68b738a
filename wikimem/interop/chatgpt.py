"""ChatGPT's data export (``conversations.json``) as diary entries.

The export is a list of conversations, each a tree of message nodes
(``mapping``: id -> ``{message, parent, children}``) because an edited
prompt or a regenerated reply branches it. The thread the person last saw
is the chain of parents from ``current_node`` up to the root; the other
branches are drafts, left out. Along that chain: nodes without a message
(the root), system and tool messages, hidden context and empty messages
are skipped; a message's ``parts`` are strings or, in multimodal messages,
objects (an image pointer, an attachment) that become ``[image]`` /
``[attachment]``; code and other text-bearing content types give their
``text``. Times are epoch seconds (``create_time``, possibly null).
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
        if role not in ("user", "assistant"):
            continue
        meta = message.get("metadata")
        if isinstance(meta, dict) and (meta.get("is_visually_hidden_from_conversation")
                                       or meta.get("is_user_system_message")):
            continue
        text = _text(message)
        if text.strip():
            out.append(Message(str(role), text, to_ts(message.get("create_time"))))
    return out


def read_chatgpt(path: Path, *, tz: dt.tzinfo | None = dt.timezone.utc) -> ImportPlan:
    """The plan for a ChatGPT export (``conversations.json``, its folder or its zip)."""
    data = load_json(path, inner="conversations.json")
    if isinstance(data, dict) and isinstance(data.get("conversations"), list):
        data = data["conversations"]
    if not isinstance(data, list):
        raise SourceError(f"{path}: not a ChatGPT export (expected a list of conversations)")
    plan = ImportPlan("chatgpt")
    for position, conv in enumerate(data):
        if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
            raise SourceError(f"{path}: conversation {position} has no mapping: not a ChatGPT export")
        raw_id = conv.get("conversation_id") or conv.get("id")
        if not isinstance(raw_id, str) or not raw_id.strip():  # a stable id all the same: what it holds
            raw_id = hashlib.sha256(repr((conv.get("title"), conv.get("create_time"))).encode()).hexdigest()[:16]
        title = conv.get("title") if isinstance(conv.get("title"), str) else None
        messages = _messages(conv["mapping"], conv.get("current_node"))
        if not messages:
            plan.notes.append(f"conversation {raw_id}: no messages")
            continue
        entries, untimed = conversation_entries("ChatGPT", provenance(f"chatgpt:{raw_id}"), title, messages,
                                                to_ts(conv.get("create_time")), owner=OWNER, tz=tz)
        plan.entries += entries
        if untimed:
            plan.notes.append(f"conversation {raw_id}: {untimed} exchange(s) without a time left out")
    return plan
