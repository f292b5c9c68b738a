"""Evidence lines, the derived marker and review marks: what a reviewed claim rests on.

A wiki item promoted from the diary cites what it rests on, one line per
source, inside its own content, so the trail travels with the item through
every copy, move, git checkout and hand edit::

    (evidence: diary 2026-07-21 14:30, owner user:x)
    (evidence: diary 2026-07-21 14:30#2, owner user:x, source conv_0721)
    (evidence: [[people:Alice]])
    (evidence: source conv_0721)

A diary target names one entry, never a whole minute: without ``#n`` it is
the minute's first entry (see :mod:`wikimem.disk.entry_id`); lint and the
reconcile queue read it the same way, through :attr:`Evidence.cited`.

Anti-echo: text written from the memory's own recall answers carries the
derived marker ``<!-- wikimem-derived -->`` on a line of its own (never
``wikimem:``, which the block parser would take for metadata). Derived
material is never independent evidence.

Review marks (``<!-- wikimem-review: REASON -->``, :func:`mark_for_review`)
live in the item's content too, so they need no side file that could go
stale. Lint finds them and curation writes them, so the grammar is here,
beside the other marks, and neither depends on the other for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from wikimem.disk.entry_id import EntryId, split_ordinal
from wikimem.disk.links import WikiLink, find_links
from wikimem.disk.names import normalize_item_name, validate_date, validate_time

__all__ = [
    "DERIVED_MARKER",
    "DERIVED_TAG",
    "EVIDENCE_PREFIX",
    "Evidence",
    "EvidenceLine",
    "REVIEW_RE",
    "clear_review_marks",
    "find_evidence",
    "is_derived",
    "is_derived_line",
    "is_evidence_line",
    "mark_derived",
    "mark_for_review",
    "parse_evidence",
    "review_reasons",
    "strip_derived",
]

#: The anti-echo marker, written on a line of its own.
DERIVED_MARKER = "<!-- wikimem-derived -->"
#: The part every spelling of the marker contains: a cheap test (raw bytes
#: included) before the exact one, never the rule itself.
DERIVED_TAG = "wikimem-derived"
#: How an evidence line starts (after leading blanks).
EVIDENCE_PREFIX = "(evidence:"

_DERIVED_RE = re.compile(r"^[ \t]*<!--\s*wikimem-derived\s*-->[ \t]*$", re.M)
# A key part starts at ", owner " or ", source "; everything up to the next one
# is the value, so owners like "user:x" or "a, b" need no quoting.
_KEY_SPLIT_RE = re.compile(r",\s*(?=(?:owner|source)\s)")
_DIARY_RE = re.compile(r"diary\s+(\S+)\s+(\S+)")
_KEYS = ("owner", "source")

EvidenceKind = Literal["diary", "wiki", "source"]


@dataclass(frozen=True)
class Evidence:
    """One cited source: a diary entry, a wiki item, or only a conversation.

    ``kind`` says which target is set: ``diary`` (``date`` + ``time`` +
    ``ordinal``, the entry's place in its minute, 1 unless the line says
    ``#n``), ``wiki`` (``link``) or ``source`` (no target; ``source`` is the
    conversation id). ``owner`` and ``source`` are optional on the first two.
    """

    kind: EvidenceKind
    date: str | None = None
    time: str | None = None
    link: WikiLink | None = None
    owner: str | None = None
    source: str | None = None
    ordinal: int = 1

    @classmethod
    def diary(cls, date: str, time: str, *, owner: str | None = None, source: str | None = None,
              ordinal: int = 1) -> Evidence:
        """Evidence pointing at the diary entry ``date time`` (the ``ordinal``-th of that minute)."""
        if isinstance(ordinal, bool) or not isinstance(ordinal, int) or ordinal < 1:
            raise ValueError(f"invalid evidence ordinal {ordinal!r}: counts from 1")
        return cls("diary", validate_date(date), validate_time(time), None,
                   _value("owner", owner), _value("source", source), ordinal)

    @classmethod
    def entry(cls, entry_id: EntryId, *, owner: str | None = None, source: str | None = None) -> Evidence:
        """Evidence pointing at the diary entry ``entry_id``."""
        return cls.diary(entry_id.date, entry_id.time, owner=owner, source=source, ordinal=entry_id.ordinal)

    @property
    def entry_id(self) -> EntryId | None:
        """The cited diary entry (``None`` for wiki and source-only evidence)."""
        if self.kind != "diary":
            return None
        return EntryId(self.date or "", self.time or "", self.ordinal)

    @classmethod
    def wiki(cls, file: str, name: str, *, owner: str | None = None, source: str | None = None) -> Evidence:
        """Evidence pointing at the wiki item ``file:name``."""
        link = WikiLink(file.strip(), normalize_item_name(name))
        if not link.file or not link.name or any(c in link.file + link.name for c in "[]:\n"):
            raise ValueError(f"invalid evidence link {link.render()!r}")
        return cls("wiki", link=link, owner=_value("owner", owner), source=_value("source", source))

    @classmethod
    def conversation(cls, source: str, *, owner: str | None = None) -> Evidence:
        """Evidence that is only the original conversation ``source``."""
        value = _value("source", source)
        if value is None:
            raise ValueError("invalid evidence: a source-only line needs a source")
        return cls("source", owner=_value("owner", owner), source=value)

    def render(self) -> str:
        """The line as written in content; :func:`parse_evidence` reads it back equal."""
        parts: list[str] = []
        if self.kind == "diary":
            parts.append(f"diary {self.target_entry}")
        elif self.kind == "wiki" and self.link is not None:
            parts.append(self.link.render())
        if self.owner:
            parts.append(f"owner {self.owner}")
        if self.source:
            parts.append(f"source {self.source}")
        return f"{EVIDENCE_PREFIX} " + ", ".join(parts) + ")"

    @property
    def target_entry(self) -> str:
        """The cited entry as written after ``diary``: ``2026-07-21 14:30`` or ``2026-07-21 14:30#2``."""
        return f"{self.date} {self.time}" + (f"#{self.ordinal}" if self.ordinal != 1 else "")

    @property
    def cited(self) -> tuple[str, str, str] | None:
        """What it points at as a key: ``("diary", date, key)``, ``("wiki", file, name)`` or None.

        The node of the evidence graph (``wikimem.lint.graph``); a
        source-only line points at nothing the memory holds. A diary
        node's ``key`` is ``EntryId.key``: ``14:30`` for a minute's first
        entry, ``14:30#2`` for its second, so two entries of one minute are
        two nodes.
        """
        if self.kind == "diary":
            return ("diary", self.date or "", EntryId(self.date or "", self.time or "", self.ordinal).key)
        if self.kind == "wiki" and self.link is not None:
            return ("wiki", self.link.file, self.link.name)
        return None

    @property
    def target(self) -> str:
        """Where it points, for messages: ``diary D T``, ``[[f:n]]`` or ``source S``."""
        if self.kind == "diary":
            return f"diary {self.target_entry}"
        if self.kind == "wiki" and self.link is not None:
            return self.link.render()
        return f"source {self.source}"


@dataclass(frozen=True)
class EvidenceLine:
    """An evidence line found in content: its 0-based line index, text and parse.

    Exactly one of ``evidence`` and ``error`` is set: a line that starts like
    evidence but does not parse is kept (with the reason) so lint can say so.
    """

    index: int
    text: str
    evidence: Evidence | None
    error: str | None = None


def _value(key: str, value: str | None) -> str | None:
    """A key's value as it will be written; refuses what would not parse back."""
    if value is None:
        return None
    cleaned = " ".join(value.split())
    if not cleaned:
        return None
    if _KEY_SPLIT_RE.search(cleaned + " ") or cleaned.startswith(_KEYS):
        raise ValueError(f"invalid evidence {key} {value!r}: must not contain ', owner ' or ', source '")
    return cleaned


def is_evidence_line(line: str) -> bool:
    """True when ``line`` is meant as an evidence line (it may still be malformed)."""
    return line.strip().startswith(EVIDENCE_PREFIX)


def parse_evidence(line: str) -> Evidence:
    """Parse one evidence line; ``ValueError`` naming the problem otherwise."""
    text = line.strip()
    if not text.startswith(EVIDENCE_PREFIX):
        raise ValueError("not an evidence line: must start with '(evidence:'")
    if not text.endswith(")"):
        raise ValueError("evidence line is not closed with ')'")
    body = text[len(EVIDENCE_PREFIX):-1].strip()
    if not body:
        raise ValueError("evidence line is empty")
    parts = [part.strip() for part in _KEY_SPLIT_RE.split(body)]
    target, keys = parts[0], parts[1:]
    if target.startswith(_KEYS):  # no target: "(evidence: source conv_1)"
        target, keys = "", parts
    fields: dict[str, str] = {}
    for part in keys:
        key, _, value = part.partition(" ")
        if key in fields:
            raise ValueError(f"evidence line repeats {key!r}")
        if not value.strip():
            raise ValueError(f"evidence {key!r} has no value")
        fields[key] = value.strip()
    owner, source = fields.get("owner"), fields.get("source")
    if not target:
        if source is None:
            raise ValueError("evidence line names no diary entry, wiki item or source")
        return Evidence.conversation(source, owner=owner)
    diary = _DIARY_RE.fullmatch(target)
    if diary:
        time, ordinal = split_ordinal(diary.group(2))
        return Evidence.diary(diary.group(1), time, owner=owner, source=source, ordinal=ordinal)
    links = find_links(target)
    if len(links) == 1 and links[0].name is not None and links[0].span == (0, len(target)):
        return Evidence.wiki(links[0].file, links[0].name, owner=owner, source=source)
    raise ValueError(
        f"evidence target {target[:60]!r} is neither 'diary YYYY-MM-DD HH:MM[#n]' nor a [[file:name]] link"
    )


def find_evidence(content: str) -> list[EvidenceLine]:
    """Every evidence line in ``content``, parsed or with the reason it does not parse."""
    if EVIDENCE_PREFIX not in content:
        return []
    out: list[EvidenceLine] = []
    for index, line in enumerate(content.split("\n")):
        if not is_evidence_line(line):
            continue
        try:
            out.append(EvidenceLine(index, line.strip(), parse_evidence(line)))
        except ValueError as exc:
            out.append(EvidenceLine(index, line.strip(), None, str(exc)))
    return out


def is_derived(text: str) -> bool:
    """True when ``text`` carries the derived marker on a line of its own."""
    return DERIVED_TAG in text and _DERIVED_RE.search(text) is not None


def is_derived_line(line: str) -> bool:
    """True when ``line`` is the derived marker (a badge to show, not text)."""
    return _DERIVED_RE.fullmatch(line) is not None


def mark_derived(text: str) -> str:
    """``text`` with the derived marker as its last line (unchanged if already marked)."""
    if is_derived(text):
        return text
    return text.rstrip() + "\n" + DERIVED_MARKER


def strip_derived(text: str) -> str:
    """``text`` without marker lines: what a promotion copies into reviewed content."""
    if not is_derived(text):
        return text
    return "\n".join(line for line in text.split("\n") if not is_derived_line(line)).strip()


# -- review marks ------------------------------------------------------------------------

#: A review mark line; group 1 is the reason.
REVIEW_RE = re.compile(r"^[ \t]*<!--\s*wikimem-review:\s*(.*?)\s*-->[ \t]*$", re.M)


def mark_for_review(content: str, reason: str) -> str:
    """``content`` with a review mark line added (its last content line).

    The reason is one line (whitespace collapsed; ``-->`` refused). Write the
    result with ``MemoryStore.add(..., expected=old_content)``.
    """
    text = " ".join(reason.split())
    if "-->" in text or "<!--" in text:
        raise ValueError("invalid review reason: must not contain a comment delimiter")
    return content.rstrip() + f"\n<!-- wikimem-review: {text} -->"


def review_reasons(content: str) -> list[str]:
    """The reasons of every review mark in ``content`` (``[]`` when unmarked)."""
    return REVIEW_RE.findall(content) if "wikimem-review" in content else []


def clear_review_marks(content: str) -> str:
    """``content`` without its review mark lines (the item has been reviewed)."""
    return "\n".join(line for line in content.split("\n") if not REVIEW_RE.match(line)).strip()
