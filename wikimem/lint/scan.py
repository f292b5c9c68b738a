"""One memory file in, its facts and its local findings out.

Everything lint knows about a file comes from one pass here: the blocks
(exactly as the block parser reads them), the line each starts on, what
each links to and cites, and every problem that can be judged from this
file alone. The facts are kept per file so that a re-lint re-reads only the
files that changed; the cross-file checks update from the kept facts.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from typing import Literal

from wikimem.disk.blocks import Block, parse_blocks, parse_meta_line
from wikimem.disk.frontmatter import read_file_meta
from wikimem.disk.links import find_links
from wikimem.diary import sort_by_time
from wikimem.disk.marks import REVIEW_RE, EvidenceLine, find_evidence, is_derived
from wikimem.lint.findings import Finding, Location, make_finding
from wikimem.lint.meta import check_ts, diagnose_comment, is_wikimem_comment
from wikimem.lint.swallowed import conflict_finding, may_conflict, separator_findings, swallowed, values_hold
from wikimem.disk.names import CANONICAL_TS_RE, normalize_item_name, sanitize_item_name, validate_date, validate_file

__all__ = ["FileFacts", "ItemFacts", "Target", "line_of", "link_targets", "scan_file", "unreadable_file"]

#: ``(file, name)`` of a wiki item (or ``(date, HH:MM)`` of a diary minute).
Target = tuple[str, str]

_HEADING_RE = re.compile(r"^## ", re.M)
# What sanitize_item_name refuses, as one cheap test; the message comes from it.
_BAD_NAME_RE = re.compile("\\[\\[|\\]\\]|[:|#\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_TIME = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]"
_ALL_TIMES_RE = re.compile(f"(?:{_TIME}\n)*")
# The link syntax of wikimem.disk.links (both halves without "[", "]", ":" or a newline).
_LINK_RE = re.compile(r"\[\[([^\[\]:\n]*):([^\[\]:\n]*)\]\]")
_BRACKETS_RE = re.compile(r"\[\[([^\]\n]*)\]\]")
# A name with no whitespace run to collapse (the common case: skip the regex sub).
_PLAIN_NAME_RE = re.compile(r"(?:\S| (?! ))*")
_NON_SPACE_RE = re.compile(r"\S")
_FENCE_RE = re.compile(r"^[ \t]*(```|~~~)", re.M)
# Every scan gets a new number: the duplicate index tells an item apart from
# the one that held its place before the file was re-read.
_GENERATION = itertools.count(1)

Kind = Literal["wiki", "diary"]


@dataclass(slots=True)
class ItemFacts:
    """One block as the library reads it, plus where it is and what it points at.

    ``name`` is the heading (a wiki item name or a diary ``HH:MM``);
    ``line`` the 1-based heading line and ``first`` the line of the first
    content line (exact for items with links, evidence or comments, the
    only ones whose inner lines are ever reported). ``links`` are
    ``(file, name)`` targets with names normalized the way the store
    matches them.
    """

    name: str
    line: int
    first: int
    content: str
    owner: str | None
    source_conv: str | None
    ts: str | None
    # Tuples by default: most items have none of these, and a shared empty
    # tuple costs nothing where three new lists per item would.
    links: tuple[Target, ...] = ()
    evidence: tuple[EvidenceLine, ...] = ()
    derived: bool = False
    review: tuple[str, ...] = ()
    norm: str | None = None  # filled in by the duplicate check, kept across re-lints
    vector_hash: str | None = None  # filled in by the vector cache check, kept likewise

    def line_of(self, needle: str) -> int:
        """The file line of the first content line containing ``needle`` (else the heading)."""
        return line_of(self.content, needle, self.first, self.line)


@dataclass(slots=True)
class FileFacts:
    """One file under ``wiki/`` or ``diary/``: its signature, items and local findings.

    ``items`` follows the library's semantics: a RecallFile's repeated
    headings collapse (last wins, at the first's place); a day keeps all.
    ``shadowed`` holds the blocks that collapse hides: invisible to reads,
    still in the file (a secret there is still committed and synced).
    ``valid`` is false for a day file whose name is not a date (the library
    never reads it) and for a RecallFile whose name it cannot write.
    ``linking`` and ``curated`` are the few items with links, and with
    evidence lines, a derived marker or a review mark. ``unreadable`` says
    why a file that exists was not read (then it has no items, no sha256,
    and is never judged deleted); ``conflicted`` marks git conflict markers
    (never accepted into the baseline, never rewritten by ``--fix``).
    """

    path: str
    kind: Kind
    stem: str
    signature: tuple[int, int]
    sha256: str
    items: list[ItemFacts]
    findings: list[Finding]
    valid: bool = True
    clean_utf8: bool = True
    duplicates: bool = False
    linking: list[ItemFacts] = field(default_factory=list)
    curated: list[ItemFacts] = field(default_factory=list)
    generation: int = 0
    unreadable: str | None = None
    conflicted: bool = False
    #: Other names of a RecallFile, from its frontmatter (a ``[[alias]]`` link reaches it).
    aliases: tuple[str, ...] = ()
    shadowed: list[ItemFacts] = field(default_factory=list)


def _normal(text: str) -> str:
    """``text`` as the block parser sees it: BOM gone, ``\\n`` newlines (so offsets match its blocks)."""
    text = text.lstrip("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _headings(text: str) -> tuple[list[int], list[int]]:
    """Each block heading's 1-based line and offset in ``text`` (already normal).

    The parser splits at ``^## ``, so a block starts exactly where a line
    starts with ``## ``.
    """
    starts = [0] if text.startswith("## ") else []
    find, at = text.find, text.find("\n## ")
    while at >= 0:
        starts.append(at + 1)
        at = find("\n## ", at + 1)
    gaps = list(map(text.count, repeat("\n"), [0, *starts[:-1]], starts))
    return list(accumulate(gaps, initial=1))[1:], starts


def line_of(content: str, needle: str, first: int, default: int) -> int:
    """Line number of ``needle`` inside ``content`` whose first line is ``first``."""
    pos = content.find(needle)
    return default if pos < 0 else first + content.count("\n", 0, pos)


def _decode(data: bytes, path: str, findings: list[Finding]) -> tuple[str, bool]:
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        findings.append(make_finding(
            "invalid-utf8", path, f"byte {exc.start} is not UTF-8 ({exc.reason}): it reads as U+FFFD, "
            "and a write to the block that holds it is refused until the file is re-saved as UTF-8", line=line))
        return data.decode("utf-8", errors="replace"), False


def _name_problem(name: str) -> str:
    try:
        sanitize_item_name(name)
    except ValueError as exc:
        return str(exc)
    return f"invalid item name {name!r}"


def _first_line(text: str, start: int, stop: int, line: int) -> int:
    """The line of the first content line of the block at ``start`` (heading on ``line``)."""
    end = text.find("\n", start, stop)
    if end < 0:
        return line + 1
    body = _NON_SPACE_RE.search(text, end + 1, stop)
    return line + 1 + text.count("\n", end + 1, body.start() if body is not None else stop)


def _last_line(text: str, start: int, stop: int, line: int) -> int:
    """The line of the last non-blank line of the block at ``start`` (where its metadata is)."""
    while stop > start and text[stop - 1].isspace():
        stop -= 1
    return line + text.count("\n", start, stop)


def _open_fence(content: str) -> bool:
    """True when a code fence opened in ``content`` is not closed in it."""
    return ("```" in content or "~~~" in content) and len(_FENCE_RE.findall(content)) % 2 == 1


def _content_checks(facts: ItemFacts, path: str, kind: Kind, findings: list[Finding]) -> None:
    """Everything judged from one block's content and metadata."""
    content, name = facts.content, facts.name
    if not content:
        findings.append(make_finding(
            "round-trip", path, "the item has no content; the writer refuses empty content, so it "
            "cannot be saved as it is", line=facts.line, item=name))
    if "<!--" in content:
        _comment_checks(facts, path, findings)
    if "[[" in content:
        facts.links = links = link_targets(content, path[5:-3] if kind == "wiki" else None)
        if content.count("[[") != len(links):
            _malformed_links(facts, path, findings, path[5:-3] if kind == "wiki" else None)
    if kind == "wiki" and "(evidence:" in content:
        facts.evidence = tuple(find_evidence(content))
    if "wikimem-" in content:
        facts.derived = is_derived(content)
        facts.review = tuple(REVIEW_RE.findall(content))


def link_targets(text: str, here: str | None = None) -> tuple[Target, ...]:
    """``(file, name)`` of each link in ``text``, in either spelling (:func:`wikimem.disk.links.find_links`).

    A link to a whole RecallFile (``[[file]]``) is ``(file, "")``: no item
    has an empty name, so it never counts as a link into an item. Reference
    links take a path of their own (tuples straight from one ``findall``; a
    test holds it to the parser): most items with links have a few, and
    most stores spell them one way.
    """
    found = _LINK_RE.findall(text)
    if len(found) == text.count("[["):  # every bracket pair spelled the reference way
        out = []
        for file, name in found:
            file, name = file.strip(), name.strip()
            if file and name:
                out.append((file, name if _PLAIN_NAME_RE.fullmatch(name) else normalize_item_name(name)))
        return tuple(out)
    return tuple((ref.file, "" if ref.name is None else normalize_item_name(ref.name))
                 for ref in find_links(text, here=here))


def _malformed_links(facts: ItemFacts, path: str, findings: list[Finding], here: str | None) -> None:
    for match in _BRACKETS_RE.finditer(facts.content):
        if "[" not in match.group(1) and find_links(match.group(0), here=here or "-"):
            continue
        findings.append(make_finding(
            "malformed-link", path, f"{match.group(0)!r} is not a link: write [[file:name]] "
            "(one colon, both parts non-empty) or [[file#name]], [[file]]", line=facts.line_of(match.group(0)),
            item=facts.name))


def _comment_checks(facts: ItemFacts, path: str, findings: list[Finding]) -> None:
    lines = facts.content.split("\n")
    has_meta = facts.owner is not None or facts.source_conv is not None or facts.ts is not None
    for index, text in enumerate(lines):
        if not is_wikimem_comment(text):
            continue
        last = index == len(lines) - 1
        diagnosis = diagnose_comment(text)
        problems = list(diagnosis.problems)
        if last and parse_meta_line(text) is not None:
            findings.append(make_finding(
                "round-trip", path, "the content ends with a second metadata comment: the writer refuses "
                "content whose last line would be read as metadata", line=facts.first + index,
                item=facts.name))
            continue
        if not last or has_meta:
            problems.append("only a comment on the block's last line is metadata")
        fixable = diagnosis.fields is not None and last and not has_meta
        findings.append(make_finding(
            "malformed-meta", path, f"{text.strip()[:80]!r} is read as content: " + "; ".join(problems),
            line=facts.first + index, item=facts.name, fixable=fixable))


def _duplicate_findings(path: str, items: list[ItemFacts], findings: list[Finding]) -> None:
    seen: dict[str, list[int]] = {}
    for item in items:
        seen.setdefault(item.name, []).append(item.line)
    for name, lines in seen.items():
        if len(lines) < 2:
            continue
        where = ", ".join(str(n) for n in lines)
        findings.append(make_finding(
            "duplicate-heading", path, f"heading {name!r} appears {len(lines)} times (lines {where}); "
            f"the next write to this file keeps only the last one", line=lines[0], item=name,
            related=tuple(Location(path, n, name) for n in lines[1:])))


def _name_findings(path: str, kind: Kind, items: list[ItemFacts], findings: list[Finding]) -> None:
    """Headings the library cannot write (wiki) or read as a time (diary)."""
    for item in items:
        if kind == "wiki" and (not item.name or _BAD_NAME_RE.search(item.name)):
            findings.append(make_finding(
                "bad-item-name", path, f"{_name_problem(item.name)}: it cannot be written or linked",
                line=item.line, item=item.name))
        elif kind == "diary" and not _ALL_TIMES_RE.fullmatch(item.name + "\n"):
            findings.append(make_finding(
                "bad-diary-heading", path, f"diary heading {item.name!r} is not HH:MM (00:00–23:59)",
                line=item.line, item=item.name))


def unreadable_file(path: str, kind: Kind, stem: str, signature: tuple[int, int], reason: str) -> FileFacts:
    """The facts of a memory file that exists but was not read: one ``unreadable`` error."""
    finding = make_finding("unreadable", path, f"cannot be read ({reason}): reads skip it and every write to it "
                           "is refused; it is not treated as deleted")
    return FileFacts(path, kind, stem, signature, "", [], [finding], generation=next(_GENERATION),
                     unreadable=reason)


def scan_file(path: str, kind: Kind, stem: str, data: bytes, signature: tuple[int, int]) -> FileFacts:
    """Facts and local findings of one file (``path`` relative, ``/``-separated)."""
    findings: list[Finding] = []
    text, clean = _decode(data, path, findings)
    facts = FileFacts(path, kind, stem, signature, hashlib.sha256(data).hexdigest(), [], findings,
                      clean_utf8=clean, generation=next(_GENERATION))
    try:
        validate_date(stem) if kind == "diary" else validate_file(stem)
    except ValueError as exc:
        code = "bad-day-file" if kind == "diary" else "bad-file-name"
        why = "the library never reads it, so its entries are invisible" if kind == "diary" \
            else "no write to it can succeed"
        findings.append(make_finding(code, path, f"{exc}; {why}"))
        facts.valid = False
        if kind == "diary":
            return facts
    if kind == "wiki" and text.startswith("---"):
        facts.aliases = tuple(alias.lower() for alias in read_file_meta(text).aliases)
    normal = _normal(text)
    heads, starts = _headings(normal)
    blocks = parse_blocks(normal).blocks
    names = [block.heading for block in blocks]
    if may_conflict(text):
        conflict = conflict_finding(path, text, names, heads)
        if conflict is not None:
            facts.conflicted = True
            findings.append(conflict)
    if not names:
        return facts
    items = [ItemFacts(b.heading, line, line + 2, b.content, b.owner, b.source_conv, b.ts)
             for b, line in zip(blocks, heads)]
    _name_findings(path, kind, items, findings)
    reported = -2  # the block whose open fence was reported last
    fences = "```" in normal or "~~~" in normal
    for index, item in enumerate(items):
        start, stop = starts[index], starts[index + 1] if index + 1 < len(starts) else len(normal)
        item.first = _first_line(normal, start, stop, item.line)
        _content_checks(item, path, kind, findings)
        ts = item.ts
        if ts is not None and not CANONICAL_TS_RE.fullmatch(ts):
            problem, canonical = check_ts(ts)
            if swallowed(ts):
                problem = f"{problem}: the fields are separated by ';' instead of '|'"
            findings.append(make_finding(
                "malformed-meta", path, f"metadata comment: {problem}",
                line=_last_line(normal, start, stop, item.line), item=item.name, fixable=canonical is not None))
        # The block that opened the fence is reported; the one after it,
        # which holds the fence's other half, is its consequence.
        if fences and reported != index - 1 and index + 1 < len(names) and _open_fence(item.content):
            reported = index
            findings.append(make_finding(
                "heading-in-fence", path, f"a code fence is still open at the end of this block, so "
                f"'## {names[index + 1]}' started a new block; it was probably meant inside "
                "the code block", line=item.line, item=item.name))
        if item.links:
            facts.linking.append(item)
        if item.evidence or item.derived or item.review:
            facts.curated.append(item)
    if values_hold(";", [b.owner for b in blocks]) or values_hold(";", [b.source_conv for b in blocks]):
        findings += separator_findings(path, items, lambda i: _last_line(
            normal, starts[i], starts[i + 1] if i + 1 < len(starts) else len(normal), items[i].line))
    if kind == "wiki":
        if len(set(names)) != len(names):
            facts.duplicates = True
            _duplicate_findings(path, items, findings)
            every = items
            items = list({item.name: item for item in items}.values())
            kept = {id(item) for item in items}
            facts.shadowed = [item for item in every if id(item) not in kept]
            facts.linking = [item for item in facts.linking if id(item) in kept]
            facts.curated = [item for item in facts.curated if id(item) in kept]
    elif names != sorted(names) or not _ALL_TIMES_RE.fullmatch("\n".join(names) + "\n"):
        _order_check(path, blocks, items, findings)
    facts.items = items
    return facts


def _order_check(path: str, blocks: list[Block], items: list[ItemFacts], findings: list[Finding]) -> None:
    ordered = sort_by_time(list(blocks))
    if all(a is b for a, b in zip(ordered, blocks)):
        return
    position = {id(block): i for i, block in enumerate(blocks)}
    first_moved = next(i for i, block in enumerate(ordered) if block is not blocks[i])
    moved = items[position[id(ordered[first_moved])]]
    findings.append(make_finding(
        "diary-order", path, f"entries are not in HH:MM order ({moved.name} comes after "
        f"{items[first_moved].name}); --fix sorts them, keeping same-minute entries in file order",
        line=moved.line, item=moved.name))
