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
from collections import Counter

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
    # One C-speed pass finds the few places where neighbours share a key.
    for pos in [i for i, (a, b) in enumerate(zip(keys, keys[1:])) if a == b]:
        key = keys[pos]
        for step in range(1, _WINDOW + 1):
            if pos + step >= size or keys[pos + step] != key:
                break
            a, b = order[pos], order[pos + step]
            found.add((a, b) if a < b else (b, a))


def duplicate_findings(snapshot: Snapshot) -> list[Finding]:
    """One finding per duplicate pair, at the later item, the earlier one as ``related``.

    Sorted neighbourhoods instead of buckets: items sorted by their opening
    characters sit next to those sharing it (sorted by their closing
    characters, next to those sharing that), and each is compared with the
    next few only. Keys are cut from the raw text (case folded), and only
    candidates are normalised and compared, so a 100k-item store costs two
    sorts of short strings. The normalised text is kept on the item's facts.
    """
    entries = list(snapshot.wiki.items())
    contents = [item.content for _, item in entries]
    candidates: set[tuple[int, int]] = set()
    repeated = {content for content, count in Counter(contents).items() if count > 1}
    exact: dict[str, list[int]] = {}
    if repeated:
        for index, content in enumerate(contents):
            if content in repeated:
                exact.setdefault(content, []).append(index)
    present = list(range(len(entries)))
    heads = [content[:KEY_CHARS].casefold() for content in contents]
    by_head = sorted(present, key=heads.__getitem__)
    _neighbours(by_head, [heads[i] for i in by_head], candidates)
    tails = [content[: -KEY_CHARS - 1 : -1].casefold() for content in contents]  # last chars, reversed
    by_tail = sorted(present, key=tails.__getitem__)
    _neighbours(by_tail, [tails[i] for i in by_tail], candidates)
    findings: list[Finding] = []
    seen: set[tuple[int, int]] = set()
    for members in exact.values():
        if len(members) > 1 and contents[members[0]].strip():
            for other in members[1:]:
                seen.add((members[0], other))
                findings.append(_finding(snapshot, entries, members[0], other, "the same content"))
    for a, b in sorted(candidates - seen):
        one, two = _norm(entries[a][1]), _norm(entries[b][1])
        if not one or not two:
            continue
        if one == two:
            findings.append(_finding(snapshot, entries, a, b, "the same content"))
            continue
        ratio = _similar(one, two)
        if ratio >= THRESHOLD:
            findings.append(_finding(snapshot, entries, a, b, f"nearly the same content ({ratio:.0%} alike)"))
    return findings


def _norm(item: ItemFacts) -> str:
    if item.norm is None:
        item.norm = normalised(item.content)
    return item.norm


def _finding(snapshot: Snapshot, entries: list[tuple[Key, ItemFacts]], a: int, b: int, how: str) -> Finding:
    (first, one), (second, two) = entries[a], entries[b]
    where = snapshot.path_of(first[0])
    return make_finding(
        "near-duplicate", snapshot.path_of(second[0]),
        f"{how} as [[{first[0]}:{first[1]}]] ({where}:{one.line})",
        line=two.line, item=second[1], related=(Location(where, one.line, first[1]),))
