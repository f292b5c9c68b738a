"""Near-duplicate wiki items: the same fact saved twice under two names.

Comparing every pair is out of the question at scale. What an agent
actually produces is the same text again with a few words changed, a
sentence added or dropped, or other spacing, case or punctuation, so items
are grouped by their first and by their last :data:`KEY_CHARS` characters
(an edit anywhere but both ends keeps one key) and only items sharing a key
are compared, each with its next :data:`WINDOW` members, so a common opening
phrase costs a few comparisons, not a square. The deliberate miss: two
texts edited at both ends are not paired.

The groups are kept between runs (:class:`DuplicateIndex`), so a re-lint
compares only the pairs an edit made.
"""

from __future__ import annotations

import difflib
import re
from bisect import insort
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import compress
from operator import attrgetter, itemgetter

from wikimem.lint.findings import Finding, Location, make_finding
from wikimem.lint.scan import FileFacts, ItemFacts

__all__ = ["KEY_CHARS", "THRESHOLD", "WINDOW", "DuplicateIndex", "normalised"]

KEY_CHARS = 40
THRESHOLD = 0.8
WINDOW = 3
_CHARSET_FLOOR = 0.7
_ASIDE_RE = re.compile(r"^[ \t]*(\(evidence:.*|<!--\s*wikimem-(derived|review).*)$", re.M)
_CONTENT = attrgetter("content")
_HEAD = itemgetter(slice(None, KEY_CHARS))
_TAIL = itemgetter(slice(-KEY_CHARS, None))
#: A ref is ``generation << _SHIFT | index``: unique across re-reads of a file.
_SHIFT = 32

Ref = int
Pair = tuple[Ref, Ref]
#: The hash of an item's opening or closing characters (see :func:`_keys`).
Key = int


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


def _keys(texts: list[str]) -> list[int]:
    """Each text as a duplicate key: the hash of its ASCII-lower-cased UTF-8.

    Bytes, not ``str.lower()``: case is an ASCII matter for nearly every
    near-duplicate an agent writes. Kept as hashes (a colliding pair would
    only be compared, never reported unless alike).
    """
    return [hash(text.encode("utf-8", "surrogatepass").lower()) for text in texts]


def _keyed(files: Iterable[FileFacts]) -> tuple[list[Ref], list[str], list[Key], list[Key]]:
    """Refs, contents and the two keys of every item with content in ``files``."""
    refs: list[Ref] = []
    contents: list[str] = []
    for facts in files:
        column = list(map(_CONTENT, facts.items))
        base = facts.generation << _SHIFT
        ids = range(base, base + len(column))
        if "" in column:  # empty content is reported on its own and is no duplicate
            keep = list(map(bool, column))
            refs.extend(compress(ids, keep))
            contents.extend(compress(column, keep))
        else:
            refs.extend(ids)
            contents.extend(column)
    return refs, contents, _keys(list(map(_HEAD, contents))), _keys(list(map(_TAIL, contents)))


class _Groups:
    """Items by one key: a lone holder per key, and member lists for shared keys."""

    def __init__(self, order: Callable[[Ref], tuple[str, int]]) -> None:
        self.single: dict[Key, Ref] = {}
        self.multi: dict[Key, list[Ref]] = {}
        self._order = order

    def fill(self, keys: list[Key], refs: list[Ref]) -> set[Key]:
        """Build from nothing in C-level passes; returns the shared keys."""
        self.single = dict(zip(keys, refs))
        if len(self.single) == len(keys):
            return set()
        shared = {key for key, count in Counter(keys).items() if count > 1}
        for key, ref in compress(zip(keys, refs), map(shared.__contains__, keys)):
            self.multi.setdefault(key, []).append(ref)
        for key in shared:
            del self.single[key]
            self.multi[key].sort(key=self._order)
        return shared

    def remove(self, key: Key, ref: Ref, dirty: set[Key]) -> None:
        if self.single.get(key) == ref:
            del self.single[key]
            return
        group = self.multi.get(key)
        if group is None or ref not in group:
            return
        group.remove(ref)
        if len(group) == 1:
            self.single[key] = group[0]
            del self.multi[key]
        dirty.add(key)

    def add(self, key: Key, ref: Ref, dirty: set[Key]) -> None:
        group = self.multi.get(key)
        if group is not None:
            insort(group, ref, key=self._order)
        elif key in self.single:
            self.multi[key] = sorted((self.single.pop(key), ref), key=self._order)
        else:
            self.single[key] = ref
            return
        dirty.add(key)

    def pairs(self, key: Key, content: Callable[[Ref], str] | None) -> set[Pair]:
        """Each member with its next :data:`WINDOW`, and (given ``content``) exact copies with the first."""
        group = self.multi.get(key)
        if group is None:
            return set()
        size = len(group)
        out = {(group[i], group[j]) for i in range(size) for j in range(i + 1, min(i + 1 + WINDOW, size))}
        if content is not None:  # exact copies share their opening: they are all in this group
            first: dict[str, Ref] = {}
            for ref in group:
                earlier = first.setdefault(content(ref), ref)
                if earlier != ref:
                    out.add((earlier, ref))
        return out


class DuplicateIndex:
    """The near-duplicate check, kept between runs; one finding per pair at the later item.

    The earlier item of a pair is named in the message and in ``related``.
    """

    def __init__(self) -> None:
        self._facts: dict[int, FileFacts] = {}  # generation -> the RecallFile's current facts
        self._heads = _Groups(self._order)
        self._tails = _Groups(self._order)
        self._group_pairs: dict[tuple[int, Key], set[Pair]] = {}
        self._pair_count: dict[Pair, int] = {}
        self._found: dict[Pair, Finding] = {}
        #: path -> the findings located there, by pair.
        self._by_path: dict[str, dict[Pair, Finding]] = {}

    def findings(self, path: str) -> list[Finding]:
        """The near-duplicate findings located in ``path``."""
        return list(self._by_path.get(path, {}).values())

    def _order(self, ref: Ref) -> tuple[str, int]:
        return self._facts[ref >> _SHIFT].stem, ref & ((1 << _SHIFT) - 1)

    def _item(self, ref: Ref) -> ItemFacts:
        return self._facts[ref >> _SHIFT].items[ref & ((1 << _SHIFT) - 1)]

    def _content(self, ref: Ref) -> str:
        return self._item(ref).content

    def update(self, old: Iterable[FileFacts], new: Iterable[FileFacts]) -> set[str]:
        """Swap ``old`` wiki facts for ``new``; returns the paths whose findings changed."""
        old = [f for f in old if f.kind == "wiki"]
        new = [f for f in new if f.kind == "wiki"]
        dirty: tuple[set[Key], set[Key]] = (set(), set())
        groups = (self._heads, self._tails)
        refs, _, *keys = _keyed(old)
        for group, column, marks in zip(groups, keys, dirty):
            for key, ref in zip(column, refs):
                group.remove(key, ref, marks)
        for facts in old:
            self._facts.pop(facts.generation, None)
        for facts in new:
            self._facts[facts.generation] = facts
        refs, _, *keys = _keyed(new)
        for group, column, marks in zip(groups, keys, dirty):
            if not group.single and not group.multi:
                marks.update(group.fill(column, refs))
            else:
                for key, ref in zip(column, refs):
                    group.add(key, ref, marks)
        changed: set[Pair] = set()
        for kind, (group, marks) in enumerate(zip(groups, dirty)):
            for key in marks:
                before = self._group_pairs.pop((kind, key), set())
                after = group.pairs(key, self._content if kind == 0 else None)
                if after:
                    self._group_pairs[(kind, key)] = after
                for pair in before - after:
                    self._pair_count[pair] -= 1
                    if not self._pair_count[pair]:
                        del self._pair_count[pair]
                        changed.add(pair)
                for pair in after - before:
                    self._pair_count[pair] = self._pair_count.get(pair, 0) + 1
                    changed.add(pair)
        return self._judge(changed)

    def _judge(self, pairs: set[Pair]) -> set[str]:
        touched: set[str] = set()
        for pair in pairs:
            gone = self._found.pop(pair, None)
            if gone is not None:
                path = gone.location.path
                del self._by_path[path][pair]
                if not self._by_path[path]:
                    del self._by_path[path]
                touched.add(path)
            if pair not in self._pair_count:
                continue
            finding = self._compare(pair)
            if finding is not None:
                self._found[pair] = finding
                self._by_path.setdefault(finding.location.path, {})[pair] = finding
                touched.add(finding.location.path)
        return touched

    def _compare(self, pair: Pair) -> Finding | None:
        one, two = self._item(pair[0]), self._item(pair[1])
        if one.content == two.content:
            how = "the same content"
        else:
            a, b = _norm(one), _norm(two)
            if not a or not b:
                return None
            ratio = 1.0 if a == b else _similar(a, b)
            if ratio < THRESHOLD:
                return None
            how = "the same content" if a == b else f"nearly the same content ({ratio:.0%} alike)"
        first, second = self._order(pair[0])[0], self._order(pair[1])[0]
        where = f"wiki/{first}.md"
        return make_finding(
            "near-duplicate", f"wiki/{second}.md", f"{how} as [[{first}:{one.name}]] ({where}:{one.line})",
            line=two.line, item=two.name, related=(Location(where, one.line, one.name),))


def _norm(item: ItemFacts) -> str:
    if item.norm is None:
        item.norm = normalised(item.content)
    return item.norm
