"""The findings model: what lint reports, in a shape other tools can rely on.

A finding's ``code`` is stable (scripts filter on it, the app groups by it,
the README documents each one); its ``message`` is complete on its own (the
app shows it without cutting, a CI log shows nothing else). ``CODES`` is the
single table of codes, severities, explanations and fixes: the checks take
their severity from it and the README's table is tested against it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "CODES",
    "SEVERITIES",
    "CodeInfo",
    "Finding",
    "LintReport",
    "Location",
    "Severity",
    "make_finding",
]

Severity = Literal["error", "warning", "info"]
#: Most severe first: the order reports are sorted in.
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@dataclass(frozen=True)
class CodeInfo:
    """What a code means: its severity, what it detects, how to fix it."""

    severity: Severity
    what: str
    fix: str
    fixable: bool = False


CODES: dict[str, CodeInfo] = {
    "bad-file-name": CodeInfo(
        "error", "a wiki/*.md file whose stem is not a valid RecallFile name (or is a device name Windows "
        "reserves: con, prn, aux, nul, com1-9, lpt1-9), so no write to it can succeed",
        "rename the file to match [a-z0-9_][a-z0-9_-]*"),
    "bad-item-name": CodeInfo(
        "error", "a wiki heading that is empty or contains [[, ]], :, | or #, so it cannot be written or linked",
        "rename the heading"),
    "duplicate-heading": CodeInfo(
        "error", "the same heading twice in one RecallFile: the next write keeps only the last one",
        "rename or merge one of them"),
    "invalid-utf8": CodeInfo(
        "error", "bytes that are not UTF-8: they read as U+FFFD; other writes keep them byte for byte, "
        "and a write to the block that holds them is refused (nothing written)",
        "re-save the file as UTF-8"),
    "unreadable": CodeInfo(
        "error", "a memory file (or the journal) that exists but cannot be read: no permission, not a regular "
        "file (a FIFO, a device), or a symlink pointing outside the memory directory; reads skip it, writes to "
        "it are refused, and drift is not judged from it",
        "fix its permissions, or replace it with a regular file inside the memory directory"),
    "conflict-markers": CodeInfo(
        "error", "git conflict markers (<<<<<<< / ======= / >>>>>>> lines) in a RecallFile or day file: it holds "
        "two versions of itself, which the parser reads as content; --fix never accepts it into the baseline",
        "resolve the conflict: keep one side and delete the marker lines"),
    "round-trip": CodeInfo(
        "error", "content the strict writer refuses (empty, or ending in a metadata comment), so the item cannot be saved",
        "edit the content"),
    "heading-in-fence": CodeInfo(
        "warning", "a code fence left open at the end of a block: a '## ' line inside it started a new block",
        "indent the '## ' line or close the fence"),
    "malformed-meta": CodeInfo(
        "warning", "a <!-- wikimem … --> comment meant as metadata that the parser reads as content "
        "(missing ':', unknown or repeated key, ts not ISO-8601, not the last line)",
        "--fix normalises it when every field can be recovered; otherwise edit it", fixable=True),
    "bad-day-file": CodeInfo(
        "error", "a diary/*.md file whose name is not a real YYYY-MM-DD date: its entries are invisible",
        "rename the file to the day it holds"),
    "bad-diary-heading": CodeInfo(
        "error", "a diary heading that is not a zero-padded HH:MM (00:00–23:59)",
        "rewrite the heading as HH:MM"),
    "diary-order": CodeInfo(
        "warning", "diary headings out of HH:MM order", "--fix sorts them (stable)", fixable=True),
    "dangling-link": CodeInfo(
        "warning", "a [[file:name]] link to an item that does not exist", "fix the link or create the item"),
    "malformed-link": CodeInfo(
        "warning", "text like [[x]] or [[:x]] that was meant as a link but is ignored by the parser",
        "write it as [[file:name]]"),
    "orphan": CodeInfo(
        "info", "a wiki item nothing links to (neither another item nor a diary entry)",
        "link it from a related item, if it should be found by link expansion"),
    "near-duplicate": CodeInfo(
        "warning", "the same or nearly the same content under two names",
        "merge them into one item"),
    "evidence-malformed": CodeInfo(
        "warning", "a line starting '(evidence:' that does not parse", "fix the line (see Evidence lines)"),
    "evidence-missing": CodeInfo(
        "error", "an evidence line citing a diary entry or wiki item that does not exist: the claim is unsupported",
        "cite the right entry, or mark the item for review"),
    "evidence-echo": CodeInfo(
        "warning", "a reviewed item whose only evidence is derived (written from recall answers): anti-echo",
        "add independent evidence, or mark it for review"),
    "evidence-too-many": CodeInfo(
        "warning", "more than three evidence lines on one item", "split it by independent outcome"),
    "marked-for-review": CodeInfo(
        "warning", "an item carrying <!-- wikimem-review: … --> (e.g. after a retraction)",
        "review it, then delete the marker line (or the item)"),
    "vector-cache-torn": CodeInfo(
        "warning", "a vector cache that is unreadable or inconsistent: it is ignored and rebuilt (re-embedded)",
        "delete vectors.keys.jsonl and vectors-*.npy (or let the next sync rebuild it)"),
    "vector-cache-model": CodeInfo(
        "warning", "a vector cache stamped with another model than the one in use, or as wide as another "
        "model's vectors (the same name at a new width): ranking falls back to BM25",
        "delete the cache to re-embed with the current model"),
    "vector-cache-stale": CodeInfo(
        "info", "vector cache rows for items that changed or no longer exist: the next sync re-embeds them",
        "nothing: the next sync refreshes it"),
    "journal-bad-line": CodeInfo(
        "warning", "a journal.jsonl line that is not a JSON object with ts and action (torn or hand-edited)",
        "delete or repair the line"),
    "drift": CodeInfo(
        "warning", "a memory file changed on disk with no journal line since (written behind the library's back)",
        "review the change; --fix accepts it into lint-baseline.json", fixable=True),
    "bad-settings": CodeInfo(
        "warning", "wikimem.toml (the memory's settings) is not valid TOML or holds a value the library does not "
        "know: the defaults apply (links are written [[file:name]])",
        "fix the file (see docs/guide/storage.md) or delete it"),
    "reviewed-damaged": CodeInfo(
        "warning", "a reviewed.json that is not valid: its dismissals are ignored (those entries are back in "
        "the reconcile queue) and no new dismissal can be saved",
        "repair the file, or delete it (the dismissed entries come back to the queue)"),
    "intent-quarantined": CodeInfo(
        "error", "an intent record the next write refused and moved aside (.wikimem-intent-<time>.quarantined): "
        "it named a file outside the memory directory, or one no write of the store touches; a memory from "
        "elsewhere (git pull, an archive) may carry a planted one. Never applied",
        "look at what it holds, then delete it"),
    "folder-outside": CodeInfo(
        "error", "wiki/, diary/, captures/ or diary-vectors/ is a symlink leading outside the memory directory: "
        "its files are not read and every write is refused",
        "replace the symlink with a folder of the memory (move the files in)"),
    "stale-temp-file": CodeInfo(
        "warning", "a .<file>.md.*.tmp file in wiki/ or diary/ (or a .postings.*.tmp one in the memory directory, "
        "left by an earlier version's index cache): the temp file of a write that was killed before "
        "its rename; the write itself did not land (or was rolled back), so the file holds nothing the memory "
        "lacks, but nothing else removes it",
        "--fix removes it once it is older than ten minutes (no write can still own it)", fixable=True),
    # what capture keeps (wikimem.lint.captures)
    "capture-unreadable": CodeInfo(
        "error", "a captures/*.capture.json that is not a readable Evidence Snapshot; it may be the only record of "
        "its sessions, so capture refuses to rewrite it", "repair it by hand (never delete it to make lint quiet)"),
    "capture-card-missing": CodeInfo(
        "warning", "a diary entry whose (capture: …) line names a snapshot or card that does not exist: its audit "
        "chain stops at the entry", "restore the snapshot from version control, or fix the line"),
    "capture-session-gone": CodeInfo(
        "info", "an Evidence Card whose original session log no longer exists (agents delete old sessions): the "
        "card is the only record left", "nothing: keep the snapshot"),
    "nested-file-ignored": CodeInfo(
        "info", "a folder inside wiki/ or diary/ (wiki/sub/*.md): memory reads only the files directly in wiki/ "
        "and diary/, so what it holds is never recalled, linted or written",
        "move its files up into wiki/ (each is a RecallFile) or out of the memory directory"),
    "secret-in-memory": CodeInfo(
        "error", "a secret-looking token (API key, private key, password assignment) in a wiki item, a diary "
        "entry or a snapshot: memory is recalled into prompts, synced and committed",
        "delete or redact it, and rotate the credential"),
}


# Mutable-by-construction but treated as values (hashable, compared by
# fields): a frozen dataclass costs five times as much to create, and a
# 100k-item store yields tens of thousands of findings per run.
@dataclass(slots=True, unsafe_hash=True)
class Location:
    """Where a finding is: ``path`` relative to the memory directory (``/``-separated).

    ``line`` is 1-based (``None`` for a whole file); ``item`` is the wiki
    item name or the diary ``HH:MM`` the line belongs to (``None`` outside
    any block). For a RecallFile ``recall_file`` gives its name, for a day
    file ``date`` gives the day, so the app can open the place directly.
    """

    path: str
    line: int | None = None
    item: str | None = None

    @property
    def recall_file(self) -> str | None:
        """The RecallFile name when the place is under ``wiki/``."""
        if self.path.startswith("wiki/") and self.path.endswith(".md"):
            return self.path[5:-3]
        return None

    @property
    def date(self) -> str | None:
        """The day (file stem) when the place is under ``diary/``."""
        if self.path.startswith("diary/") and self.path.endswith(".md"):
            return self.path[6:-3]
        return None

    def render(self) -> str:
        """``path:line`` (or just ``path``), as compilers print places."""
        return self.path if self.line is None else f"{self.path}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        """The JSON form: ``{"path", "line", "item"}``."""
        return {"path": self.path, "line": self.line, "item": self.item}


@dataclass(slots=True, unsafe_hash=True)
class Finding:
    """One problem: stable code, severity, location, complete message.

    ``related`` holds the other places involved (the other near-duplicate,
    the earlier duplicate heading). ``fixable`` is true when ``--fix`` can
    repair this very finding mechanically.
    """

    code: str
    severity: Severity
    location: Location
    message: str
    related: tuple[Location, ...] = ()
    fixable: bool = False

    def render(self) -> str:
        """One line: ``path:line: severity[code] item: message``."""
        item = f" {self.location.item}:" if self.location.item is not None else ""
        also = "".join(f" (also {where.render()})" for where in self.related)
        return f"{self.location.render()}: {self.severity}[{self.code}]{item} {self.message}{also}"

    def to_json(self) -> dict[str, Any]:
        """The JSON form used by ``wikimem lint --json``."""
        return {
            "code": self.code,
            "severity": self.severity,
            "location": self.location.to_json(),
            "message": self.message,
            "related": [where.to_json() for where in self.related],
            "fixable": self.fixable,
        }


def make_finding(
    code: str,
    path: str,
    message: str,
    *,
    line: int | None = None,
    item: str | None = None,
    related: tuple[Location, ...] = (),
    fixable: bool | None = None,
) -> Finding:
    """A finding whose severity (and default fixability) come from ``CODES``."""
    info = CODES[code]
    return Finding(code, info.severity, Location(path, line, item), message, related,
                   info.fixable if fixable is None else fixable)


@dataclass
class LintReport:
    """The result of one lint run: findings sorted most severe first."""

    findings: list[Finding] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        """Findings per severity (every severity present, zero included)."""
        tally = Counter(f.severity for f in self.findings)
        return {severity: tally.get(severity, 0) for severity in SEVERITIES}

    def exit_code(self, *, strict: bool = False) -> int:
        """1 when there are errors (or, with ``strict``, warnings), else 0."""
        counts = self.counts
        return 1 if counts["error"] or (strict and counts["warning"]) else 0

    def to_json(self) -> dict[str, Any]:
        """``{"findings": [...], "counts": {"error", "warning", "info"}}``."""
        return {"findings": [f.to_json() for f in self.findings], "counts": self.counts}
