"""One memory file in, its facts and its local findings out.

Everything lint knows about a file comes from one pass here: the blocks (by
the one block parser, so lint sees exactly what the library sees), the line
each starts on, what each links to and cites, and every problem that can be
judged from this file alone. The facts are kept per file so that a re-lint
after an edit re-reads only the files that changed; the cross-file checks
(links, duplicates, evidence, drift) then run over the kept facts.

Speed matters (a 100k-item store in a few seconds): every per-item check is
gated on a substring test (``"[[" in content``, ``"<!--" in content``), so
the common item costs a handful of C-level operations.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from dataclasses import dataclass, field
from typing import Literal

from wikimem.blocks import Block, parse_blocks, parse_meta_line
from wikimem.curation import REVIEW_RE
from wikimem.diary import _sort_by_time  # the diary's own order, so lint and append agree
from wikimem.evidence import EvidenceLine, find_evidence, is_derived
from wikimem.lint.findings import Finding, Location, make_finding
from wikimem.lint.meta import CANONICAL_TS_RE, check_ts, diagnose_comment, is_wikimem_comment
from wikimem.links import WikiLink, parse_wiki_links
from wikimem.names import is_time, normalize_item_name, sanitize_item_name, validate_date, validate_file

__all__ = ["FileFacts", "ItemFacts", "line_of", "scan_file"]

_HEADING_RE = re.compile(r"^## ", re.M)
# What sanitize_item_name refuses, as one cheap test; the message comes from it.
_BAD_NAME_RE = re.compile("\\[\\[|\\]\\]|[:|#\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_BRACKETS_RE = re.compile(r"\[\[([^\]\n]*)\]\]")
_NON_SPACE_RE = re.compile(r"\S")
# A name with no whitespace run to collapse (the common case: skip the regex sub).
_PLAIN_NAME_RE = re.compile(r"(?:\S| (?! ))*")
_INTERESTING_RE = re.compile(r"<!--|```|~~~|\[\[|\(evidence:")
_FENCE_RE = re.compile(r"^[ \t]*(```|~~~)", re.M)

Kind = Literal["wiki", "diary"]


@dataclass(slots=True)
class ItemFacts:
    """One block as the library reads it, plus where it is and what it points at.

    ``name`` is the heading (a wiki item name or a diary ``HH:MM``);
    ``line`` the 1-based heading line and ``first`` the line of the first
    content line. ``links`` are link targets with names normalized the way
    the store matches them.
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
    links: tuple[WikiLink, ...] = ()
    evidence: tuple[EvidenceLine, ...] = ()
    derived: bool = False
    review: tuple[str, ...] = ()
    norm: str | None = None  # filled in by the duplicate check, kept across re-lints

    def line_of(self, needle: str) -> int:
        """The file line of the first content line containing ``needle`` (else the heading)."""
        return line_of(self.content, needle, self.first, self.line)


@dataclass(slots=True)
class FileFacts:
    """One file under ``wiki/`` or ``diary/``: its signature, items and local findings.

    ``items`` follows the library's semantics: a RecallFile's repeated
    headings collapse (last wins, at the first's place); a day keeps all.
    ``valid`` is false for a day file whose name is not a date (the library
    never reads it) and for a RecallFile whose name it cannot write.
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
    linking: list[ItemFacts] = field(default_factory=list)  # the items that have links


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
            "invalid-utf8", path, f"byte {exc.start} is not UTF-8 ({exc.reason}); the next write "
            "replaces such bytes with U+FFFD for good", line=line))
        return data.decode("utf-8", errors="replace"), False


def _name_problem(name: str) -> str:
    try:
        sanitize_item_name(name)
    except ValueError as exc:
        return str(exc)
    return f"invalid item name {name!r}"


def _normal(text: str) -> str:
    """The text as the block parser sees it (BOM gone, one kind of newline)."""
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _heading_lines(text: str) -> tuple[list[int], list[int]]:
    """Per block: the heading's 1-based line and its offset in ``text`` (already normal)."""
    starts = [match.start() for match in _HEADING_RE.finditer(text)]
    gaps = [text.count("\n", a, b) for a, b in zip([0, *starts], starts)]
    return list(itertools.accumulate(gaps, initial=1))[1:], starts


def _first_line(text: str, start: int, line: int) -> int:
    """The line of a block's first content line (its heading at ``start``, on ``line``)."""
    end = text.find("\n", start)
    if end < 0:
        return line + 1
    body = _NON_SPACE_RE.search(text, end + 1)
    stop = body.start() if body is not None else len(text)
    return line + 1 + text.count("\n", end + 1, stop)


def _open_fence(content: str) -> bool:
    """True when a code fence opened in ``content`` is not closed in it."""
    return ("```" in content or "~~~" in content) and len(_FENCE_RE.findall(content)) % 2 == 1


def _content_checks(facts: ItemFacts, block: Block, path: str, kind: Kind, findings: list[Finding]) -> None:
    """Everything judged from one block's content and metadata."""
    content, name = facts.content, facts.name
    if not content:
        findings.append(make_finding(
            "round-trip", path, "the item has no content; the writer refuses empty content, so it "
            "cannot be saved as it is", line=facts.line, item=name))
    if "<!--" in content:
        _comment_checks(facts, block, path, findings)
    if "[[" in content:
        links = parse_wiki_links(content)
        facts.links = tuple(
            link if _PLAIN_NAME_RE.fullmatch(link.name) else WikiLink(link.file, normalize_item_name(link.name))
            for link in links
        )
        if content.count("[[") == len(links):
            return _rest_checks(facts, content, kind)
        for match in _BRACKETS_RE.finditer(content):
            inner = match.group(1)
            file, colon, target = inner.partition(":")
            if colon and file.strip() and target.strip() and ":" not in target and "[" not in inner:
                continue
            findings.append(make_finding(
                "malformed-link", path, f"{match.group(0)!r} is not a link: write [[file:name]] "
                "(one colon, both parts non-empty)", line=facts.line_of(match.group(0)), item=name))
    _rest_checks(facts, content, kind)


def _rest_checks(facts: ItemFacts, content: str, kind: Kind) -> None:
    """Evidence lines and content markers."""
    if kind == "wiki" and "(evidence:" in content:
        facts.evidence = tuple(find_evidence(content))
    if "wikimem-" in content:
        facts.derived = is_derived(content)
        facts.review = tuple(REVIEW_RE.findall(content))


def _comment_checks(facts: ItemFacts, block: Block, path: str, findings: list[Finding]) -> None:
    lines = facts.content.split("\n")
    has_meta = block.owner is not None or block.source_conv is not None or block.ts is not None
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


def _duplicate_findings(path: str, items: list[ItemFacts], findings: list[Finding]) -> bool:
    seen: dict[str, list[int]] = {}
    for item in items:
        seen.setdefault(item.name, []).append(item.line)
    found = False
    for name, lines in seen.items():
        if len(lines) < 2:
            continue
        found = True
        where = ", ".join(str(n) for n in lines)
        findings.append(make_finding(
            "duplicate-heading", path, f"heading {name!r} appears {len(lines)} times (lines {where}); "
            f"the next write to this file keeps only the last one", line=lines[0], item=name,
            related=tuple(Location(path, n, name) for n in lines[1:])))
    return found


def scan_file(path: str, kind: Kind, stem: str, data: bytes, signature: tuple[int, int]) -> FileFacts:
    """Facts and local findings of one file (``path`` relative, ``/``-separated)."""
    findings: list[Finding] = []
    text, clean = _decode(data, path, findings)
    facts = FileFacts(path, kind, stem, signature, hashlib.sha256(data).hexdigest(), [], findings,
                      clean_utf8=clean)
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
    blocks = parse_blocks(text).blocks
    normal = _normal(text)
    heads, starts = _heading_lines(normal)
    items: list[ItemFacts] = []
    fence_reported = False
    for index, (block, line, start) in enumerate(zip(blocks, heads, starts)):
        name, content, ts = block.heading, block.content, block.ts
        item = ItemFacts(name, line, line + 2, content, block.owner, block.source_conv, ts)
        items.append(item)
        if kind == "wiki":
            if not name or _BAD_NAME_RE.search(name):
                findings.append(make_finding(
                    "bad-item-name", path, f"{_name_problem(name)}: it cannot be written or linked",
                    line=line, item=name))
        elif not is_time(name):
            findings.append(make_finding(
                "bad-diary-heading", path, f"diary heading {name!r} is not HH:MM (00:00–23:59)",
                line=line, item=name))
        # One C-level test decides whether the item needs any content check.
        if not content or _INTERESTING_RE.search(content) or (ts is not None and not CANONICAL_TS_RE.fullmatch(ts)):
            item.first = _first_line(normal, start, line)
            _content_checks(item, block, path, kind, findings)
            if ts is not None and not CANONICAL_TS_RE.fullmatch(ts):
                problem, canonical = check_ts(ts)
                end = starts[index + 1] if index + 1 < len(starts) else len(normal)
                while end > start and normal[end - 1].isspace():  # to the comment's line
                    end -= 1
                findings.append(make_finding(
                    "malformed-meta", path, f"metadata comment: {problem}",
                    line=line + normal.count("\n", start, end), item=name, fixable=canonical is not None))
            # The block that opened the fence is reported; the one after it,
            # which holds the fence's other half, is its consequence.
            if not fence_reported and index + 1 < len(blocks) and _open_fence(content):
                fence_reported = True
                findings.append(make_finding(
                    "heading-in-fence", path, f"a code fence is still open at the end of this block, so "
                    f"'## {blocks[index + 1].heading}' started a new block; it was probably meant inside "
                    "the code block", line=line, item=name))
                continue
        fence_reported = False
    if kind == "wiki":
        facts.duplicates = _duplicate_findings(path, items, findings)
        if facts.duplicates:
            by_name: dict[str, ItemFacts] = {}
            for item in items:
                by_name[item.name] = item
            items = list(by_name.values())
    else:
        _order_check(path, blocks, items, findings)
    facts.items = items
    facts.linking = [item for item in items if item.links]
    return facts


def _order_check(path: str, blocks: list[Block], items: list[ItemFacts], findings: list[Finding]) -> None:
    ordered = _sort_by_time(list(blocks))
    if all(a is b for a, b in zip(ordered, blocks)):
        return
    position = {id(block): i for i, block in enumerate(blocks)}
    first_moved = next(i for i, block in enumerate(ordered) if block is not blocks[i])
    moved = items[position[id(ordered[first_moved])]]
    findings.append(make_finding(
        "diary-order", path, f"entries are not in HH:MM order ({moved.name} comes after "
        f"{items[first_moved].name}); --fix sorts them, keeping same-minute entries in file order",
        line=moved.line, item=moved.name))
