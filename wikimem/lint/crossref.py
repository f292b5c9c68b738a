"""Cross-file checks of one file: its dangling links, its orphans, its evidence.

Each needs the whole store's names, which the snapshot's indexes answer in
a lookup, so each is a function of one file's facts: a re-lint recomputes
them for the files an edit can affect (the edited ones, those linking to
or citing what appeared or vanished) and keeps the rest. Evidence is judged
by the snapshot's :class:`~wikimem.lint.graph.Support`, the same rule the
reconcile queue and the audit chain use, so lint and the app agree on what
counts as independent.
"""

from __future__ import annotations

import operator
from itertools import compress, repeat
from operator import attrgetter

from wikimem.lint.findings import CODES, Finding, Location, make_finding
from wikimem.lint.scan import FileFacts, ItemFacts, line_of
from wikimem.lint.snapshot import Snapshot

__all__ = ["MAX_EVIDENCE", "dangling_findings", "evidence_findings", "orphan_findings"]

#: The seed's rule: more than three independent chains means split the claim.
MAX_EVIDENCE = 3
_ORPHAN = "no item or diary entry links here"
_NAME, _LINE = attrgetter("name"), attrgetter("line")


def dangling_findings(facts: FileFacts, snapshot: Snapshot) -> list[Finding]:
    """Links in ``facts`` (wiki or readable diary) to items that do not exist."""
    if facts.kind == "diary" and not facts.valid:
        return []
    wiki = snapshot.wiki
    findings: list[Finding] = []
    for item in facts.linking:
        # A link that is also cited as evidence is reported as missing evidence.
        cited = {(ev.evidence.link.file, ev.evidence.link.name) for ev in item.evidence
                 if ev.evidence and ev.evidence.link} if item.evidence else ()
        reported: set[tuple[str, str]] = set()
        for target in item.links:
            if target in wiki or target in cited or target in reported:
                continue
            holder = snapshot.files.get(f"wiki/{target[0]}.md")
            whole_file = not target[1]  # [[file]]: a link to the RecallFile itself, or to one of its aliases
            if whole_file and ((holder is not None and holder.unreadable is None) or target[0] in snapshot.aliases):
                continue
            reported.add(target)
            why = "which does not exist" if holder is None or holder.unreadable is None else \
                f"in wiki/{target[0]}.md, which cannot be read (see 'unreadable')"
            spelled = f"[[{target[0]}]]" if whole_file else f"[[{target[0]}:{target[1]}]]"
            findings.append(make_finding(
                "dangling-link", facts.path, f"links to {spelled}, {why}",
                line=line_of(item.content.lower(), target[0], item.first, item.line) if whole_file
                else item.line_of(target[1]), item=item.name))
    return findings


def orphan_findings(facts: FileFacts, snapshot: Snapshot) -> list[Finding]:
    """Items of RecallFile ``facts`` that nothing links to."""
    if facts.kind != "wiki":
        return []
    items = facts.items
    keys = zip(repeat(facts.stem), map(_NAME, items))
    alone = list(compress(items, map(operator.not_, map(snapshot.links.into.__contains__, keys))))
    if not alone:
        return []
    # All built by C-level maps: most items of a big store are orphans.
    places = map(Location, repeat(facts.path), map(_LINE, alone), map(_NAME, alone))
    return list(map(Finding, repeat("orphan"), repeat(CODES["orphan"].severity), places, repeat(_ORPHAN)))


def evidence_findings(facts: FileFacts, snapshot: Snapshot) -> list[Finding]:
    """Malformed, missing, echoing and too many evidence lines; review marks."""
    if facts.kind != "wiki":
        return []
    findings: list[Finding] = []
    for item in facts.curated:
        _item_evidence(facts.path, item, snapshot, findings)
    return findings


def _item_evidence(path: str, item: ItemFacts, snapshot: Snapshot, findings: list[Finding]) -> None:
    for reason in item.review:
        findings.append(make_finding(
            "marked-for-review", path, f"marked for review: {reason or '(no reason given)'}",
            line=item.line_of("wikimem-review"), item=item.name))
    if not item.evidence:
        return
    if len(item.evidence) > MAX_EVIDENCE:
        findings.append(make_finding(
            "evidence-too-many", path, f"{len(item.evidence)} evidence lines (at most "
            f"{MAX_EVIDENCE}): split the item by independent outcome",
            line=item.first + item.evidence[MAX_EVIDENCE].index, item=item.name))
    kinds: list[str] = []
    direct = False  # some citation is derived text itself, not an item resting on it
    for line in item.evidence:
        where = item.first + line.index
        evidence = line.evidence
        if evidence is None:
            findings.append(make_finding(
                "evidence-malformed", path, f"{line.text[:80]!r}: {line.error}", line=where, item=item.name))
            continue
        kind = snapshot.support.status(evidence, snapshot.wiki, snapshot.diary)
        kinds.append(kind)
        if kind == "missing":
            what = "diary entry" if evidence.kind == "diary" else "wiki item"
            findings.append(make_finding(
                "evidence-missing", path, f"cites {evidence.target}, but no such {what} "
                "exists: the claim is unsupported", line=where, item=item.name))
        elif kind == "derived":
            link = evidence.link
            direct = direct or link is None or snapshot.wiki[(link.file, link.name)].derived
    if "derived" in kinds and "independent" not in kinds:
        why = ("all of its evidence is derived (written from recall answers)" if direct else
               "its evidence only cites items that themselves rest on derived text or cite each "
               "other in a circle")
        findings.append(make_finding(
            "evidence-echo", path, f"{why}, so nothing independent supports it",
            line=item.first + item.evidence[0].index, item=item.name))
