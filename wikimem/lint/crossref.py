"""Cross-file checks over a snapshot: links, orphans, evidence, anti-echo, review marks.

These need the whole store's names at once, so they run over the kept
facts after every refresh (dictionary lookups, no file reads). Evidence is
judged with :func:`wikimem.curation.classify_evidence`, the same rule the
reconcile queue and the audit chain use, so lint and the app agree on what
counts as independent.
"""

from __future__ import annotations

from wikimem.curation import classify_evidence
from wikimem.lint.findings import CODES, Finding, Location, make_finding
from wikimem.lint.snapshot import Snapshot

__all__ = ["MAX_EVIDENCE", "evidence_findings", "link_findings"]

#: The seed's rule: more than three independent chains means split the claim.
MAX_EVIDENCE = 3


def link_findings(snapshot: Snapshot) -> list[Finding]:
    """Dangling links (wiki and diary) and orphan wiki items."""
    wiki = snapshot.wiki
    findings: list[Finding] = []
    incoming: set[tuple[str, str]] = set()
    for facts in snapshot.files.values():
        if facts.kind == "diary" and not facts.valid:
            continue
        for item in facts.linking:
            source = (facts.stem, item.name)
            # Plain tuples, not WikiLink: a frozen dataclass hashes in Python.
            cited = {(ev.evidence.link.file, ev.evidence.link.name) for ev in item.evidence
                     if ev.evidence and ev.evidence.link} if item.evidence else ()
            reported: set[tuple[str, str]] = set()
            for link in item.links:
                target = (link.file, link.name)
                if target != source:
                    incoming.add(target)
                if target in wiki or target in cited or target in reported:
                    continue
                reported.add(target)
                findings.append(make_finding(
                    "dangling-link", facts.path, f"links to {link.render()}, which does not exist",
                    line=item.line_of(link.name), item=item.name))
    severity = CODES["orphan"].severity
    linked: dict[str, set[str]] = {}
    for file, name in incoming:
        linked.setdefault(file, set()).add(name)
    for facts in snapshot.wiki_files():
        path, names = facts.path, linked.get(facts.stem, set())
        for item in facts.items:
            if item.name not in names:
                # Built directly, not via make_finding: most items of a big store are orphans.
                findings.append(Finding("orphan", severity, Location(path, item.line, item.name),
                                        "no item or diary entry links here"))
    return findings


def evidence_findings(snapshot: Snapshot) -> list[Finding]:
    """Malformed, missing, echoing and too many evidence lines; review marks."""
    findings: list[Finding] = []
    for facts in snapshot.wiki_files():
        path = facts.path
        for item in facts.items:
            for reason in item.review:
                findings.append(make_finding(
                    "marked-for-review", path, f"marked for review: {reason or '(no reason given)'}",
                    line=item.line_of("wikimem-review"), item=item.name))
            if not item.evidence:
                continue
            if len(item.evidence) > MAX_EVIDENCE:
                findings.append(make_finding(
                    "evidence-too-many", path, f"{len(item.evidence)} evidence lines (at most "
                    f"{MAX_EVIDENCE}): split the item by independent outcome",
                    line=item.first + item.evidence[MAX_EVIDENCE].index, item=item.name))
            kinds: list[str] = []
            for line in item.evidence:
                where = item.first + line.index
                if line.evidence is None:
                    findings.append(make_finding(
                        "evidence-malformed", path, f"{line.text[:80]!r}: {line.error}", line=where,
                        item=item.name))
                    continue
                kind = classify_evidence(line.evidence, snapshot)
                kinds.append(kind)
                if kind == "missing":
                    what = "diary entry" if line.evidence.kind == "diary" else "wiki item"
                    findings.append(make_finding(
                        "evidence-missing", path, f"cites {line.evidence.target}, but no such {what} "
                        "exists: the claim is unsupported", line=where, item=item.name))
            if "derived" in kinds and "independent" not in kinds:
                findings.append(make_finding(
                    "evidence-echo", path, "all of its evidence is derived (written from recall "
                    "answers), so nothing independent supports it", line=item.first + item.evidence[0].index,
                    item=item.name))
    return findings
