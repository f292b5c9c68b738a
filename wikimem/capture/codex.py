"""Codex's session logs: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl``.

Each line is ``{timestamp, type, payload}``: ``session_meta`` (id, cwd,
branch, source), ``turn_context``, ``response_item`` (the model history:
messages, tool calls whose names are counted and whose arguments and outputs
are never kept, encrypted reasoning skipped) and ``event_msg`` (the
conversation again, for the UI). Some rollouts hold a reply *only* in the
events, so an event's reply is kept for a turn that has no
``response_item`` reply, and the events' requests when the log has none.

Codex injects its own user content (``<environment_context>``, AGENTS.md),
as whole messages or as blocks beside the user's own: each block is judged,
so the request in such a message is kept. Logs from before the
``{type, payload}`` envelope are read too. A sub-agent's rollout names its
parent thread and is read as part of that parent, never as a session.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from wikimem.capture.jsonl import read_objects
from wikimem.capture.redact import redact_joined
from wikimem.capture.session import Session, normalize_ts

__all__ = ["AGENT", "looks_like_session", "read_codex"]

AGENT = "codex"

_ID_RE = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.I)
_INJECTED = ("<environment_context>", "<user_instructions>", "<permissions instructions>", "# AGENTS.md",
             "<INSTRUCTIONS>", "<user_shell_command>", "<turn_aborted>", "<collaboration_mode>")
_CALLS = {"function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call",
          "image_generation_call"}
_OUTPUTS = {"function_call_output", "custom_tool_call_output", "tool_search_output"}
_NOT_CONVERSATION = {"compacted", "turn_context"}


_ENVELOPED = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}


def looks_like_session(first: list[dict[str, Any]]) -> bool:
    """True when the first objects of a file are a Codex rollout's (for a file not named ``rollout-*``).

    ``{timestamp, type, payload}`` lines of the types Codex writes, or the
    early envelope-less shape (a bare ``{id, timestamp}`` first line, bare
    response items).
    """
    for line in first:
        if line.get("type") in _ENVELOPED and isinstance(line.get("payload"), dict):
            return True
        if line.get("type") == "message" and line.get("role") in ("user", "assistant"):
            return True
    return bool(first) and "type" not in first[0] and "id" in first[0] and "timestamp" in first[0]


def read_codex(path: Path) -> Session:
    """Read one Codex rollout file (``OSError`` only when it cannot be opened)."""
    match = _ID_RE.search(path.stem)
    session = Session(AGENT, match.group(1) if match else path.stem, path)
    seen_id = False
    turns = _Turns()
    for offset, line in read_objects(path, session):
        kind, payload = line.get("type"), line.get("payload")
        if not isinstance(payload, dict):  # the envelope-less format of early versions
            kind, payload = _legacy(line)
        ts = normalize_ts(line.get("timestamp"))
        if kind == "session_meta":
            if not seen_id and isinstance(payload.get("id"), str) and payload["id"]:
                session.session_id, seen_id = payload["id"], True
            _meta(session, payload)
        elif kind == "turn_context":
            if session.cwd is None and isinstance(payload.get("cwd"), str) and payload["cwd"]:
                session.cwd = payload["cwd"]
            session.skip("'turn_context' lines")
        elif kind == "response_item":
            _item(session, payload, ts, offset, turns)
        elif kind == "event_msg":
            _event(session, payload, ts, offset, turns)
        elif kind in _NOT_CONVERSATION:
            session.skip(f"'{kind}' lines")
        else:
            session.skip(f"lines of unknown type {str(kind)[:40]!r}")
    added = turns.settle(session)
    if added:
        session.events.sort(key=lambda e: e.offset)
    return session


class _Turns:
    """What the ``event_msg`` lines said, by turn, and which turns have a ``response_item`` request or reply.

    A turn starts at each real request (a ``response_item`` user message or
    a ``user_message`` event: Codex writes both for one request, so a turn
    may count twice -- harmless, replies fall after both).
    """

    def __init__(self) -> None:
        self.turn = 0
        self.requested = False  # a response_item request anywhere in the log
        self.replied: set[int] = set()  # turns with a response_item reply
        self.requests: list[tuple[str, str | None, int]] = []
        self.replies: list[tuple[int, str, str, str | None, int]] = []  # turn, event kind, text, ts, offset

    def settle(self, session: Session) -> bool:
        """Add what only the events said; True when anything was added."""
        added = False
        if not self.requested:
            for text, ts, offset in self.requests:
                session.add("user", text, ts, offset)
                added = True
        spoken = {turn for turn, kind, *_ in self.replies if kind == "agent_message"}
        seen: set[tuple[int, str]] = set()
        for turn, kind, text, ts, offset in self.replies:
            if turn in self.replied or (kind == "task_complete" and turn in spoken) or (turn, text.strip()) in seen:
                continue
            seen.add((turn, text.strip()))
            session.add("assistant", text, ts, offset)
            added = True
        return added


def _legacy(line: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if "type" not in line and "id" in line and "timestamp" in line:
        return "session_meta", line
    kind = line.get("type")
    if kind in ("message", "reasoning") or kind in _CALLS or kind in _OUTPUTS:
        return "response_item", line
    return str(kind), {}


def _meta(session: Session, payload: dict[str, Any]) -> None:
    if session.cwd is None and isinstance(payload.get("cwd"), str) and payload["cwd"]:
        session.cwd = payload["cwd"]
    git = payload.get("git")
    if session.branch is None and isinstance(git, dict) and isinstance(git.get("branch"), str) and git["branch"]:
        session.branch = git["branch"]
    source = payload.get("source")
    if isinstance(source, dict) and isinstance(source.get("subagent"), dict | str):
        spawn = source["subagent"].get("thread_spawn") if isinstance(source["subagent"], dict) else None
        parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
        session.parent_id = parent if isinstance(parent, str) and parent else "unknown"


def _blocks(content: object, kinds: tuple[str, ...]) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [b["text"] for b in content
            if isinstance(b, dict) and b.get("type") in kinds and isinstance(b.get("text"), str)]


def _injected(text: str) -> bool:
    return text.lstrip().startswith(_INJECTED)


def _strings(value: object, depth: int = 0) -> str:
    """Every string inside a tool output, only to look for the derived marker (never kept)."""
    if isinstance(value, str):
        return value  # JSON inside the string is decoded by Session.check_derived
    if depth > 4:
        return ""
    if isinstance(value, dict):
        return "\n".join(_strings(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_strings(v, depth + 1) for v in value)
    return ""


def _item(session: Session, payload: dict[str, Any], ts: str | None, offset: int, turns: _Turns) -> None:
    """One response item (a message also moves ``turns`` on)."""
    kind = payload.get("type")
    if kind == "message":
        role = payload.get("role")
        if role == "user":
            blocks = _blocks(payload.get("content"), ("input_text", "text"))
            own = [b for b in blocks if _injected(b)]
            theirs = [b for b in blocks if not _injected(b)]
            if own:
                session.check_derived("\n".join(own), offset)
                session.skip("messages (or blocks) Codex wrote itself (environment, instructions)")
            if theirs:
                turns.turn += 1
                turns.requested = True
                session.add("user", redact_joined(theirs), ts, offset)  # a key split over two blocks is still a key
            return
        if role == "assistant":
            turns.replied.add(turns.turn)
            session.add("assistant", redact_joined(_blocks(payload.get("content"), ("output_text", "text"))), ts, offset)
            return
        session.skip(f"'{str(role)[:20]}' messages (instructions, not conversation)")
    elif kind in _CALLS:
        name = payload.get("name")
        if not isinstance(name, str) or not name:
            name = {"local_shell_call": "shell", "web_search_call": "web_search"}.get(str(kind), str(kind))
        session.add("tool", name, ts, offset)
    elif kind in _OUTPUTS:
        session.tool_results += 1
        session.check_derived(_strings(payload.get("output")), offset)
    elif kind == "reasoning":
        session.skip("reasoning items (not copied)")
    else:
        session.skip(f"response items of unknown type {str(kind)[:40]!r}")


def _event(session: Session, payload: dict[str, Any], ts: str | None, offset: int, turns: _Turns) -> None:
    kind = payload.get("type")
    message = payload.get("last_agent_message") if kind == "task_complete" else payload.get("message")
    if kind == "user_message" and isinstance(message, str):
        if not _injected(message):
            turns.turn += 1
            turns.requests.append((message, ts, offset))
    elif kind in ("agent_message", "task_complete") and isinstance(message, str) and message.strip():
        turns.replies.append((turns.turn, str(kind), message, ts, offset))
    elif kind == "turn_aborted":
        session.add("interrupt", "", ts, offset)
    else:
        session.skip("'event_msg' lines (UI events)")
