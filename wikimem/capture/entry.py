"""The diary entry of a captured session, and the one line that points at its Evidence Card.

An entry says in a few lines what the session was for and how it ended,
and ends with ``(capture: <snapshot>#<evidence id>)``, the link the seed's
Daily pages use; this module is the one reader and writer of that line.
Entry text is memory text: each part is one line (nothing in a log can
start a ``## `` block, an evidence line or a metadata comment), a
wiki-link in a log is defused (an agent's words are not links the memory
vouches for), and every part is redacted and capped before it gets here
(:mod:`wikimem.capture.card`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from wikimem.capture.card import Summary, cap_text
from wikimem.capture.redact import redact
from wikimem.disk.marks import DERIVED_MARKER

__all__ = ["CAPTURES_DIR", "CARD_REF_PREFIX", "CardRef", "entry_content", "find_card_refs", "render_card_ref",
           "snapshot_name"]

#: The folder of the Evidence Snapshots, in the memory directory.
CAPTURES_DIR = "captures"
#: How a card reference line starts.
CARD_REF_PREFIX = "(capture:"
_REF_RE = re.compile(r"^[ \t]*\(capture:[ \t]*(captures/(\d{4}-\d{2}-\d{2})\.capture\.json)#([A-Za-z0-9._-]+)\)[ \t]*$",
                     re.M)
_LABELS = {"claude-code": "Claude Code", "codex": "Codex"}
#: Characters of each part kept in the entry (the card keeps more).
_LINE_CAPS = {"goal": 300, "outcome": 500, "unresolved": 240}


def snapshot_name(date: str) -> str:
    """The snapshot of ``date``, relative to the memory directory: ``captures/YYYY-MM-DD.capture.json``."""
    return f"{CAPTURES_DIR}/{date}.capture.json"


@dataclass(frozen=True)
class CardRef:
    """A card reference found in content: the snapshot (relative path), its date, the card id, the line."""

    snapshot: str
    date: str
    card_id: str
    line: int

    def render(self) -> str:
        return render_card_ref(self.date, self.card_id)


def render_card_ref(date: str, card_id: str) -> str:
    """``(capture: captures/<date>.capture.json#<card id>)``; :func:`find_card_refs` reads it back."""
    return f"{CARD_REF_PREFIX} {snapshot_name(date)}#{card_id})"


def find_card_refs(content: str) -> list[CardRef]:
    """Every card reference line in ``content`` (0-based line index), in order."""
    if CARD_REF_PREFIX not in content:
        return []
    return [CardRef(m.group(1), m.group(2), m.group(3), content.count("\n", 0, m.start()))
            for m in _REF_RE.finditer(content)]


def one_line(text: str | None, limit: int) -> str | None:
    """``text`` as one capped line with wiki-links defused (``None`` stays ``None``)."""
    if not text:
        return None
    flat = " ".join(text.split()).replace("[[", "[ [").replace("]]", "] ]")
    return cap_text(flat, limit)[0]


def place(cwd: str | None, branch: str | None) -> str:
    """Where the session ran, short: the cwd's last folder and the branch (redacted before they are cut)."""
    cwd, branch = (redact(cwd) if cwd else cwd), (redact(branch) if branch else branch)
    name = os.path.basename(cwd.rstrip("/\\")) if cwd else ""
    where = one_line(name, 80) or ""
    if branch:
        where += f" ({one_line(branch, 60)})" if where else f"branch {one_line(branch, 60)}"
    return where


def entry_content(agent: str, session_id: str, summary: Summary, *, cwd: str | None, branch: str | None,
                  card_ref: str, follow_up: bool = False, rewritten: bool = False) -> str:
    """The diary entry of a capture: goal -> outcome (-> unresolved), the card reference, the marker if derived."""
    label = _LABELS.get(agent, agent)
    short = session_id.split("/")[-1][:8]
    where = place(cwd, branch)
    head = f"{label} session {short}"
    if follow_up:
        head += ", log rewritten since its last capture," if rewritten else ", continued,"
    head = f"{head} in {where}" if where else head.rstrip(",")
    goal = one_line(summary.goal, _LINE_CAPS["goal"]) or ("no new request" if follow_up else "no request recorded")
    lines = [f"{head}: {goal}"]
    outcome = one_line(summary.outcome, _LINE_CAPS["outcome"])
    lines.append(f"-> {outcome}" if outcome else "-> no reply recorded")
    unresolved = one_line(summary.unresolved, _LINE_CAPS["unresolved"])
    if unresolved:
        lines.append(f"-> unresolved: {unresolved}")
    lines = [redact(line) for line in lines]  # every part was redacted; the head's session id and place too
    lines.append(card_ref)
    if summary.derived:
        lines.append(DERIVED_MARKER)
    return "\n".join(lines)
