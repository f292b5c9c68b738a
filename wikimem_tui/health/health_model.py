"""What the Health pane shows, without the widgets: filtering, grouping, where enter goes, the text.

Kept apart from ``health.py`` because none of it needs Textual: the filter
grammar, the severity/code grouping with counts, the decision of what a
finding's place is (a wiki item, a RecallFile, a diary day, a journal line,
or something the app cannot open, which it then says) and the finding's
text (a one-line label, and the whole of it for the detail line; memory
text through ``safe``) are plain functions over ``wikimem.lint`` findings,
tested directly.

Filter grammar: whitespace-separated terms, all of which must match
(case-insensitive). ``sev:``/``severity:``, ``code:`` and ``path:`` terms
match that field (severity and code exactly, path as a substring; ``sev:``
also takes a prefix, so ``sev:err`` works); any other term is a substring of
the whole finding as printed (severity, code, place, item, message, the
related places).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Literal

from rich.text import Text

from wikimem import sanitize_item_name
from wikimem.lint import CODES, SEVERITIES, Finding
from wikimem_tui.common.safe import safe_line, safe_text

__all__ = [
    "PLURAL", "SEVERITY_STYLES", "FindingFilter", "Group", "Jump", "code_detail", "count_of", "finding_detail",
    "finding_label", "group_findings", "grouped", "haystack", "jump_for",
]

SEVERITY_STYLES = {"error": "bold red", "warning": "yellow", "info": "blue"}
PLURAL = {"error": "errors", "warning": "warnings", "info": "infos"}

_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME_RE = re.compile(r"(?:[01]\d|2[0-3]):[0-5]\d")
_FIELDS = {"sev": "severity", "severity": "severity", "code": "code", "path": "path"}


def haystack(finding: Finding) -> str:
    """The finding as one casefolded line, what plain filter terms search."""
    return f"{finding.render()}".casefold()


@dataclass(frozen=True)
class FindingFilter:
    """A parsed filter; ``error`` explains a term that can never match (the pane shows it)."""

    severities: frozenset[str] = frozenset()
    codes: frozenset[str] = frozenset()
    paths: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    error: str = ""

    @classmethod
    def parse(cls, text: str) -> FindingFilter:
        """Read the filter box; unknown severities or codes are reported, not silently empty."""
        severities: set[str] = set()
        codes: set[str] = set()
        paths: list[str] = []
        words: list[str] = []
        problems: list[str] = []
        for term in text.split():
            key, sep, value = term.partition(":")
            field = _FIELDS.get(key.casefold()) if sep else None
            if field is None:
                words.append(term.casefold())
                continue
            value = value.casefold()
            if field == "severity":
                found = [s for s in SEVERITIES if s.startswith(value)] if value else []
                if not found:
                    problems.append(f"no severity {value!r} (error, warning, info)")
                severities.update(found)
            elif field == "code":
                if value not in CODES:
                    close = [c for c in CODES if value and value in c]
                    hint = f" (did you mean {', '.join(close[:3])}?)" if close else ""
                    problems.append(f"no code {value!r}{hint}")
                codes.add(value)
            else:
                paths.append(value)
        return cls(frozenset(severities), frozenset(codes), tuple(paths), tuple(words), "; ".join(problems))

    @property
    def active(self) -> bool:
        """True when the filter narrows anything."""
        return bool(self.severities or self.codes or self.paths or self.words)

    def __call__(self, finding: Finding, text: str | None = None) -> bool:
        """Whether ``finding`` passes; ``text`` is its precomputed :func:`haystack`."""
        if self.severities and finding.severity not in self.severities:
            return False
        if self.codes and finding.code not in self.codes:
            return False
        if self.paths and not all(p in finding.location.path.casefold() for p in self.paths):
            return False
        if self.words:
            text = haystack(finding) if text is None else text
            return all(word in text for word in self.words)
        return True


@dataclass
class Group:
    """The findings of one code, as shown: ``total`` before the filter, ``shown`` after it."""

    severity: str
    code: str
    total: int
    shown: list[Finding]


def group_findings(findings: list[Finding], keep: list[bool] | None = None) -> dict[str, list[Group]]:
    """Severity -> its code groups (``CODES`` order), counting all and keeping what passes.

    ``keep[i]`` says whether ``findings[i]`` passes the filter (all pass
    without it). Every severity is present, possibly with no groups. A
    group with nothing left after the filter is dropped.
    """
    order = {code: i for i, code in enumerate(CODES)}
    by_code: dict[tuple[str, str], Group] = {}
    for i, finding in enumerate(findings):
        key = (finding.severity, finding.code)
        group = by_code.get(key)
        if group is None:
            group = by_code[key] = Group(finding.severity, finding.code, 0, [])
        group.total += 1
        if keep is None or keep[i]:
            group.shown.append(finding)
    out: dict[str, list[Group]] = {severity: [] for severity in SEVERITIES}
    for (severity, code), group in sorted(by_code.items(), key=lambda kv: order.get(kv[0][1], len(order))):
        if group.shown:
            out.setdefault(severity, []).append(group)
    return out


def grouped(findings: list[Finding], haystacks: list[str], flt: FindingFilter) -> dict[str, list[Group]]:
    """``group_findings`` under ``flt`` (``haystacks[i]`` is ``haystack(findings[i])``)."""
    keep = [flt(f, h) for f, h in zip(findings, haystacks)] if flt.active else None
    return group_findings(findings, keep)


JumpKind = Literal["item", "file", "day", "journal", "none"]


@dataclass(frozen=True)
class Jump:
    """Where enter on a finding goes; ``kind == "none"`` carries the reason in ``note``."""

    kind: JumpKind
    file: str = ""
    name: str = ""
    date: str = ""
    time: str | None = None
    line: int = 0
    note: str = ""

    def describe(self) -> str:
        """What enter does, for the detail line."""
        if self.kind == "item":
            return f"enter opens the item {self.file}:{self.name}"
        if self.kind == "file":
            return f"enter opens the RecallFile {self.file}"
        if self.kind == "day":
            return f"enter opens diary {self.date}" + (f" at {self.time}" if self.time else "")
        if self.kind == "journal":
            return f"enter shows the journal pane (line {self.line})"
        return self.note


def _real_date(text: str) -> bool:
    if not _DATE_RE.fullmatch(text):
        return False
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def jump_for(finding: Finding) -> Jump:
    """The place of ``finding`` as the app can show it, or why it cannot."""
    loc = finding.location
    path = loc.path
    fix = CODES[finding.code].fix if finding.code in CODES else ""
    file = loc.recall_file
    if file is not None and "/" not in file:
        if loc.item is not None:
            try:
                if sanitize_item_name(loc.item) == loc.item:
                    return Jump("item", file=file, name=loc.item)
            except ValueError:
                pass  # a heading the store cannot address: show the whole file instead
        return Jump("file", file=file)
    date = loc.date
    if date is not None and "/" not in date:
        if not _real_date(date):
            return Jump("none", note=f"{path} is not a real date, so the app cannot open it: {fix}")
        time = loc.item if loc.item is not None and _TIME_RE.fullmatch(loc.item) else None
        return Jump("day", date=date, time=time)
    if path == "journal.jsonl":
        return Jump("journal", line=loc.line or 0)
    if path.rpartition("/")[2].startswith("vectors"):
        return Jump("none", note=f"{path} is the vector cache, derived state the app does not open: {fix}")
    if path == "lint-baseline.json":
        return Jump("none", note=f"{path} is lint's drift baseline, not memory: {fix}")
    return Jump("none", note=f"{path} is not a memory file the app opens" + (f": {fix}" if fix else ""))


def count_of(n: int, severity: str) -> str:
    """``1 error``, ``3 warnings``."""
    return f"{n} {severity if n == 1 else PLURAL[severity]}"


def finding_label(finding: Finding) -> Text:
    loc = finding.location
    label = safe_line(loc.render(), "cyan")
    if loc.item is not None:
        label.append(" ")
        label.append_text(safe_line(loc.item, "bold"))
    label.append(": ")
    label.append_text(safe_line(finding.message))
    return label


def finding_detail(finding: Finding) -> Text:
    """The finding whole: severity, code, place, message, other places, what it means, the fix, where enter goes."""
    loc = finding.location
    text = Text.assemble((finding.severity, SEVERITY_STYLES.get(finding.severity, "")), " ",
                         (finding.code, "bold"), " · ")
    text.append_text(safe_line(loc.render(), "cyan"))
    if loc.item is not None:
        text.append(" · ")
        text.append_text(safe_line(loc.item, "bold"))
    text.append("\n")
    text.append_text(safe_text(finding.message))
    for where in finding.related:
        text.append("\nalso ", style="dim")
        text.append_text(safe_line(where.render(), "cyan"))
        if where.item is not None:
            text.append(" ")
            text.append_text(safe_line(where.item, "bold"))
    info = CODES.get(finding.code)
    if info is not None:
        text.append(f"\nfix: {info.fix}", style="dim")
        if finding.fixable:
            text.append(" (wikimem lint --fix repairs this one)", style="dim")
    text.append(f"\n{jump_for(finding).describe()}", style="italic dim")
    return text


def code_detail(code: str, group: Group | None) -> Text:
    """What a code means and how to fix it, for a highlighted group."""
    info = CODES.get(code)
    text = Text(code, style="bold")
    if group is not None:
        text.append(f" · {len(group.shown)} shown of {group.total}")
    if info is not None:
        text.append(f"\n{info.what}\nfix: {info.fix}")
    text.append("\nenter opens or closes the group", style="italic dim")
    return text
