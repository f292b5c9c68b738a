"""The Evidence Card: one session, bounded, as the Evidence Snapshot keeps it.

The session log stays where the agent wrote it and may be deleted later,
so the card may become the only record: it holds what a reviewer needs to
judge a claim (goal, outcome, what was left unresolved, one intermediate
update) and where to find the original, never a tool's input or output.
Every text field has a cap (:data:`CAPS`) and a whole card one
(:data:`CARD_CAP`); every text is redacted first. The id is stable
(``<agent>-<session id>``), so a session that grew updates its card in place.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any

from wikimem.capture.redact import redact
from wikimem.capture.session import Event, Session

__all__ = ["CAPS", "CARD_CAP", "Summary", "build_card", "card_id", "cap_text", "session_log_path", "summarize"]

#: Characters kept per text field of a card.
CAPS = {"goal": 1200, "outcome": 2400, "unresolved": 600, "update": 1200, "cwd": 400, "branch": 160,
        "path": 800}
#: Bytes of JSON one card may take (its text caps shrink until it fits).
CARD_CAP = 12_288
_TOOLS_KEPT = 24
_REASONS_KEPT = 16
_SAFE_ID_RE = re.compile(r"[^A-Za-z0-9._-]+")
# A line of the final text that says something is still open.
_OPEN_RE = re.compile(r"(?im)^[ \t>*#-]*(?:\d+[.)]\s*)?(?:todo|fixme|unresolved|open (?:question|issue)s?|"
                      r"not (?:yet )?(?:done|fixed|implemented|working)|remaining|left to do|still (?:failing|open|"
                      r"broken|missing)|blocked|next steps?|known issues?)\b.*$")
# The same said in the middle of a line ("fixed it. TODO: the CI retry."): only as a label, with its colon,
# so "the remaining tests pass" is not one.
_OPEN_MID_RE = re.compile(r"(?i)(?<![\w-])(?:todo|fixme|unresolved|open (?:question|issue)s?|remaining|left to do|"
                          r"still (?:failing|open|broken|missing)|blocked|next steps?|known issues?)\s*:.*$")


def card_id(agent: str, session_id: str) -> str:
    """The stable Evidence ID of a session: ``<agent>-<session id>`` (characters outside ``[A-Za-z0-9._-]`` as ``_``)."""
    return f"{agent}-{_SAFE_ID_RE.sub('_', session_id)[:120]}"


def cap_text(text: str | None, limit: int) -> tuple[str | None, bool]:
    """``text`` cut to ``limit`` characters on a word, with ``…``; ``(text, cut?)``."""
    if text is None:
        return None, False
    text = text.strip()
    if len(text) <= limit:
        return (text or None), False
    cut = text.rfind(" ", 0, limit - 1)
    return text[: cut if cut > limit // 2 else limit - 1].rstrip() + "…", True


@dataclass(frozen=True)
class Summary:
    """What a session (or the part that grew) comes to: its texts redacted, not yet capped."""

    goal: str | None
    outcome: str | None
    unresolved: str | None
    update: str | None
    first: str | None
    last: str | None
    derived: bool
    requests: int
    replies: int


def _last(events: list[Event], role: str) -> int:
    return max((i for i, e in enumerate(events) if e.role == role), default=-1)


def _unresolved(talk: list[Event], outcome: str | None) -> str | None:
    """The latest unresolved state: an unanswered request, an interruption, or what the final text leaves open."""
    user, reply, stop = _last(talk, "user"), _last(talk, "assistant"), _last(talk, "interrupt")
    if user > reply and user > stop:
        return f"no reply yet to: {talk[user].text}"
    if stop > reply:
        return "interrupted by the user" + (f" while working on: {talk[user].text}" if user >= 0 else "")
    if outcome:
        lines = []
        for line in outcome.splitlines():
            found = _OPEN_RE.match(line) or _OPEN_MID_RE.search(line)
            if found:
                lines.append(found.group().strip(" \t>*#-"))
        if lines:
            return "\n".join(lines)
    return None


def summarize(session: Session) -> Summary:
    """Goal, outcome, unresolved state and one representative update of ``session`` (texts redacted)."""
    talk = [e for e in session.events if e.role in ("user", "assistant", "interrupt")]
    users = [e for e in talk if e.role == "user"]
    replies = [e for e in talk if e.role == "assistant"]
    goal = users[0].text if users else None
    outcome = replies[-1].text if replies else None
    middle = [e for e in replies[:-1] if e.text != outcome]
    # The update with the most to say; among equals the later one (closer to the outcome).
    update = max(middle, key=lambda e: (len(e.text.split()), e.offset)).text if middle else None
    unresolved = _unresolved(talk, outcome)
    def clean(text: str | None) -> str | None:
        return redact(text) if text else None

    return Summary(clean(goal), clean(outcome), clean(unresolved), clean(update), session.first_ts, session.last_ts,
                   session.derived, len(users), len(replies))


def _counted(counter: dict[str, int], keep: int, cap: int) -> dict[str, int]:
    top = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:keep]
    return {cap_text(redact(name), cap)[0] or "?": n for name, n in sorted(top)}


def build_card(session: Session, summary: Summary, *, entries: list[str], first: str | None = None) -> dict[str, Any]:
    """The card of ``session`` as stored (keys in a fixed order: the snapshot's bytes are stable).

    ``summary`` is of the whole session; ``entries`` are the diary entries
    written from it (``YYYY-MM-DD HH:MM[#n]``); ``first`` keeps the first
    time of an earlier capture when the session's start is no longer in
    its log.
    """
    tools = session.tools
    counts = {
        "requests": summary.requests,
        "replies": summary.replies,
        "tool_calls": sum(tools.values()),
        "tool_results": session.tool_results,
        "subagents": session.subagents,
        "interruptions": sum(1 for e in session.events if e.role == "interrupt"),
    }
    texts = {
        "path": redact(str(session.path)),
        "cwd": redact(session.cwd) if session.cwd else None,
        "branch": redact(session.branch) if session.branch else None,
        "goal": summary.goal,
        "outcome": summary.outcome,
        "unresolved": summary.unresolved,
        "update": summary.update,
    }
    caps = dict(CAPS)
    while True:
        capped: dict[str, str | None] = {}
        truncated: list[str] = []
        for key, value in texts.items():
            capped[key], cut = cap_text(value, caps[key])
            if cut:
                truncated.append(key)
        card: dict[str, Any] = {
            "id": card_id(session.agent, session.session_id),
            "agent": session.agent,
            "session_id": session.session_id,
            "path": capped["path"],
            "cwd": capped["cwd"],
            "branch": capped["branch"],
            "first": min(t for t in (first, summary.first) if t) if (first or summary.first) else None,
            "last": summary.last,
            "goal": capped["goal"],
            "outcome": capped["outcome"],
            "unresolved": capped["unresolved"],
            "update": capped["update"],
            "derived": summary.derived,
            "tools": _counted(tools, _TOOLS_KEPT, 80),
            "counts": counts,
            "skipped": _counted(session.skipped, _REASONS_KEPT, 120),
            "read": {"bytes": session.size, "sha256": session.sha256, "lines": session.lines},
            "entries": list(entries),
            "truncated": sorted(truncated),
        }
        if len(json.dumps(card, ensure_ascii=False).encode("utf-8")) <= CARD_CAP or caps["outcome"] < 80:
            return card
        caps = {key: max(40, limit // 2) for key, limit in caps.items()}


def session_log_path(path: object) -> str | None:
    """A card's ``path`` when it may be looked up as a session log, else ``None``.

    A card comes from the memory, which may come from anyone: its path is
    shown, and at most asked whether it still exists -- never opened. Even
    that ask is kept to what capture writes: an absolute, local path to a
    ``.jsonl`` file with no ``..`` in it. A network path (``//host/share``:
    on Windows merely asking makes the machine authenticate to that host)
    or any other file is never looked up.
    """
    if not isinstance(path, str) or not path.endswith(".jsonl") or "\x00" in path:
        return None
    if path.startswith(("//", "\\\\")) or not os.path.isabs(path) or ".." in _SEPARATORS.split(path):
        return None
    return path


_SEPARATORS = re.compile(r"[\\/]")
