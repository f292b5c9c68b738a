"""What points at what: links between items, and the evidence each claim rests on.

Both are reverse indexes that a :class:`~wikimem.lint.Snapshot` updates file
by file, so "who links here" and "does this item have independent support"
cost a lookup after an edit, not a pass over the store.

A wiki item is *grounded* when it carries no derived marker and either cites
nothing that resolves or has at least one independent citation (a source
conversation, a diary entry that is not derived, or a grounded wiki item).
So an item resting only on an echo is an echo too, however long the chain.
The grounded set is the least fixpoint of that rule: items that cite only
each other are not grounded, and the answer never depends on visiting order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

from wikimem.disk.marks import Evidence
from wikimem.lint.scan import FileFacts, ItemFacts, Target

__all__ = ["EvidenceStatus", "LinkIndex", "Node", "Support"]

EvidenceStatus = Literal["missing", "derived", "independent"]
#: ``("diary", date, HH:MM[#n])`` or ``("wiki", file, name)``: a node of the evidence graph.
Node = tuple[str, str, str]
#: ``(path, item name)`` of a linking item (a diary minute's entries share one).
Source = tuple[str, str]


class LinkIndex:
    """``target -> {(path, name)}`` of the items linking to it (a self-link does not count)."""

    def __init__(self) -> None:
        self.into: dict[Target, set[Source]] = {}

    def update(self, old: Iterable[FileFacts], new: Iterable[FileFacts]) -> set[Target]:
        """Forget the links of ``old`` facts, learn those of ``new``.

        Returns the targets that gained their first linker or lost their
        last one (the only ones whose orphan finding can change).
        """
        into = self.into
        before: dict[Target, bool] = {}
        for facts, learn in [(f, False) for f in old] + [(f, True) for f in new]:
            if facts.kind == "diary" and not facts.valid:
                continue  # the library never reads it: its links count for nothing
            path, stem = facts.path, facts.stem
            for item in facts.linking:
                source, own = (path, item.name), (stem, item.name)
                for target in item.links:
                    if target == own:
                        continue
                    bucket = into.get(target)
                    if target not in before:
                        before[target] = bucket is not None
                    if learn:
                        if bucket is None:
                            into[target] = {source}
                        else:
                            bucket.add(source)
                    elif bucket is not None:
                        bucket.discard(source)
                        if not bucket:
                            del into[target]
        return {target for target, was in before.items() if was != (target in into)}


class Support:
    """Who cites each diary minute and wiki item, and which wiki items are not grounded."""

    def __init__(self) -> None:
        self.cites: dict[Node, set[Target]] = {}
        #: Wiki items that exist but are not grounded (see the module docstring).
        self.ungrounded: set[Target] = set()

    def status(self, evidence: Evidence, wiki: Mapping[Target, ItemFacts],
               diary: Mapping[Target, list[ItemFacts]]) -> EvidenceStatus:
        """Whether cited ``evidence`` exists, and whether it is independent."""
        return self._status(evidence, wiki, diary, set(), set())

    def _status(self, evidence: Evidence, wiki: Mapping[Target, ItemFacts],
                diary: Mapping[Target, list[ItemFacts]], open_: set[Target],
                grounded: set[Target]) -> EvidenceStatus:
        if evidence.kind == "source":
            return "independent"
        if evidence.kind == "diary":
            # One entry, not the minute: the ordinal-th of its HH:MM (wikimem.disk.entry_id).
            entries = diary.get((evidence.date or "", evidence.time or ""), ())
            if len(entries) < evidence.ordinal:
                return "missing"
            return "derived" if entries[evidence.ordinal - 1].derived else "independent"
        link = evidence.link
        target = (link.file, link.name) if link is not None else ("", "")
        if target not in wiki:
            return "missing"
        if target in open_:
            return "independent" if target in grounded else "derived"
        return "derived" if target in self.ungrounded else "independent"

    @staticmethod
    def _cited(item: ItemFacts) -> Iterable[Node]:
        for line in item.evidence:
            node = line.evidence.cited if line.evidence is not None else None
            if node is not None:
                yield node

    def update(self, old: Iterable[FileFacts], new: Iterable[FileFacts], named: set[Target],
               wiki: Mapping[Target, ItemFacts], diary: Mapping[Target, list[ItemFacts]]) -> set[Target]:
        """Swap ``old`` facts for ``new`` (``wiki``/``diary`` already hold the new state).

        ``named`` are the wiki items that appeared or disappeared. Returns
        every wiki item whose evidence findings may have changed: the
        curated items of the changed files, the items citing anything that
        appeared, vanished or may have changed standing, and everything
        citing those, transitively.
        """
        cites = self.cites
        # Standing can change only where evidence, markers or existence do:
        # an item with neither evidence nor marker is grounded iff it exists.
        curated: set[Target] = set()
        days: set[str] = set()
        for facts, learn in [(f, False) for f in old] + [(f, True) for f in new]:
            if facts.kind == "diary":
                if facts.valid:
                    days.add(facts.stem)
                continue
            stem = facts.stem
            for item in facts.curated:
                key = (stem, item.name)
                curated.add(key)
                for node in self._cited(item):
                    if learn:
                        cites.setdefault(node, set()).add(key)
                    elif node in cites:
                        cites[node].discard(key)
                        if not cites[node]:
                            del cites[node]
        changed = named | curated
        if len(changed) + len(days) > len(cites):  # a big change: walk the (smaller) index
            roots = [node for node in cites if (node[1], node[2]) in changed if node[0] == "wiki"]
            roots += [node for node in cites if node[0] == "diary" and node[1] in days]
        else:
            roots = [("wiki", *key) for key in changed]
            roots += [node for node in cites if node[0] == "diary" and node[1] in days] if days else []
        closure: set[Target] = set(curated)
        stack = [key for node in roots for key in cites.get(node, ())]
        while stack:
            key = stack.pop()
            if key not in closure:
                closure.add(key)
                stack.extend(cites.get(("wiki", *key), ()))
        self._ground(closure, wiki, diary)
        return closure

    def _ground(self, closure: set[Target], wiki: Mapping[Target, ItemFacts],
                diary: Mapping[Target, list[ItemFacts]]) -> None:
        """Recompute grounding inside ``closure`` (nothing outside it depends on it)."""
        self.ungrounded -= closure
        open_ = {key for key in closure if key in wiki and (wiki[key].evidence or wiki[key].derived)}
        grounded: set[Target] = set()
        queue = list(open_)
        while queue:
            key = queue.pop()
            if key in grounded or not self._is_grounded(wiki[key], wiki, diary, open_, grounded):
                continue
            grounded.add(key)
            queue.extend(c for c in self.cites.get(("wiki", *key), ()) if c in open_ and c not in grounded)
        self.ungrounded |= open_ - grounded

    def _is_grounded(self, item: ItemFacts, wiki: Mapping[Target, ItemFacts],
                     diary: Mapping[Target, list[ItemFacts]], open_: set[Target],
                     grounded: set[Target]) -> bool:
        if item.derived:
            return False
        resolvable = False
        for line in item.evidence:
            if line.evidence is None:
                continue
            status = self._status(line.evidence, wiki, diary, open_, grounded)
            if status == "independent":
                return True
            resolvable = resolvable or status == "derived"
        return not resolvable
