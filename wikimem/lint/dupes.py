"""Near-duplicate wiki items: the same fact saved twice under two names.

Comparing every pair is out of the question at 100k items, and so is a
per-character shingle sketch in pure Python (seconds per pass). What an
agent actually produces is the same text again with a few words changed,
one sentence added or dropped, or different spacing, case or punctuation.
So each item's text is normalised (case folded, whitespace removed;
evidence lines and markers left out, as they are about the text, not in
it) and bucketed three ways: by the whole normalised text
(exact duplicates), by its first and by its last :data:`KEY_CHARS`
characters (an edit anywhere but both ends keeps one of them). Only items
sharing a key are compared, with ``difflib``'s ratio, and a pair counts
from :data:`THRESHOLD`. Items sharing a key are found by sorting, and each
is compared with its next few neighbours only, so a common opening phrase
shared by thousands of items costs a few comparisons each, not a square. The miss is deliberate and documented: two texts edited at both
ends are not paired.
"""

from __future__ import annotations

import difflib
import re

from wikimem.lint.findings import Finding, Location, make_finding
from wikimem.lint.scan import ItemFacts
from wikimem.lint.snapshot import Snapshot

__all__ = ["KEY_CHARS", "THRESHOLD", "duplicate_findings", "normalised"]

KEY_CHARS = 40
THRESHOLD = 0.8
_WINDOW = 3
_CHARSET_FLOOR = 0.7
_ASIDE_RE = re.compile(r"^[ \t]*(\(evidence:.*|<!--\s*wikimem-(derived|review).*)$", re.M)

Key = tuple[str, str]


def normalised(content: str) -> str:
    """The text compared for duplicates: case folded, whitespace removed, asides left out.

    Whitespace and case are the differences that never change a fact;
    punctuation is left for the ratio to weigh (stripping it with a regex
    costs three times as much per item, at 100k items a second).
    """
    if "(evidence:" in content or "wikimem-" in content:
        content = _ASIDE_RE.sub("", content)
    return "".join(content.casefold().split())


def _similar(a: str, b: str) -> float:
    """difflib's ratio, after two C-speed rejections (lengths, then character sets)."""
    if 2 * min(len(a), len(b)) < THRESHOLD * (len(a) + len(b)):
        return 0.0
    chars_a, chars_b = set(a), set(b)
    # Texts that are 80% alike share nearly all their characters; unrelated
    # texts (above all CJK ones, with thousands of distinct characters) do not.
    if 2 * len(chars_a & chars_b) < _CHARSET_FLOOR * (len(chars_a) + len(chars_b)):
        return 0.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _neighbours(order: list[int], keys: list[str], found: set[tuple[int, int]]) -> None:
    """Pairs of items at most :data:`_WINDOW` apart in ``order`` that share their key."""
    size = len(order)
    for pos in range(size - 1):
        key = keys[pos]
        for step in range(1, _WINDOW + 1):
            if pos + step >= size or keys[pos + step] != key:
                break
            a, b = order[pos], order[pos + step]
            found.add((a, b) if a < b else (b, a))


def duplicate_findings(snapshot: Snapshot) -> list[Finding]:
    """One finding per duplicate pair, at the later item, the earlier one as ``related``.

    Sorted neighbourhoods instead of buckets: items sorted by their text put
    those sharing a prefix next to each other (sorted by the reversed text,
    those sharing a suffix), and each is compared with the next few only.
    The normalised text is kept on each item's facts, so a re-lint only
    normalises the items of files that were re-read.
    """
    entries = list(snapshot.wiki.items())
    norms: list[str] = []
    for _, item in entries:
        norm = item.norm
        if norm is None:
            norm = item.norm = normalised(item.content)
        norms.append(norm)
    present = [i for i, norm in enumerate(norms) if norm]
    candidates: set[tuple[int, int]] = set()
    by_text = sorted(present, key=norms.__getitem__)
    _neighbours(by_text, [norms[i][:KEY_CHARS] for i in by_text], candidates)
    tails = {i: norms[i][: -KEY_CHARS - 1 : -1] for i in present}  # last chars, reversed
    by_tail = sorted(present, key=tails.__getitem__)
    _neighbours(by_tail, [tails[i] for i in by_tail], candidates)
    findings: list[Finding] = []
    # Runs of identical text: every member against the first, however long the run.
    exact: dict[int, int] = {}
    for pos in range(1, len(by_text)):
        a, b = by_text[pos - 1], by_text[pos]
        if norms[a] == norms[b]:
            exact[b] = exact.get(a, a)
    groups: dict[int, list[int]] = {}
    for member, head in exact.items():
        groups.setdefault(head, [head]).append(member)
    for members in groups.values():
        members.sort()
        for other in members[1:]:
            findings.append(_finding(snapshot, entries, members[0], other, "the same content"))
    for a, b in sorted(candidates):
        if norms[a] == norms[b]:
            continue
        ratio = _similar(norms[a], norms[b])
        if ratio >= THRESHOLD:
            findings.append(_finding(snapshot, entries, a, b, f"nearly the same content ({ratio:.0%} alike)"))
    return findings


def _finding(snapshot: Snapshot, entries: list[tuple[Key, ItemFacts]], a: int, b: int, how: str) -> Finding:
    (first, one), (second, two) = entries[a], entries[b]
    where = snapshot.path_of(first[0])
    return make_finding(
        "near-duplicate", snapshot.path_of(second[0]),
        f"{how} as [[{first[0]}:{first[1]}]] ({where}:{one.line})",
        line=two.line, item=second[1], related=(Location(where, one.line, first[1]),))
