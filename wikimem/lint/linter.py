"""The lint run: one full pass, or a cheap re-run after some files changed.

``lint(root)`` is a pure function of the directory: it reads, it never
writes (``--fix`` is a separate, explicit step in ``wikimem.lint.fixes``).
An app keeps one :class:`Linter` and calls :meth:`Linter.run` after each
change: files whose ``(mtime_ns, size)`` did not change are not re-read,
the journal is read from where it ended, and only the cross-file checks
(dictionary passes over facts already in memory) run over everything.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable
from pathlib import Path

from wikimem.drift import BASELINE_FILE, Baseline, DriftState, judge, load_baseline
from wikimem.lint.crossref import evidence_findings, link_findings
from wikimem.lint.dupes import duplicate_findings
from wikimem.lint.findings import Finding, LintReport, make_finding
from wikimem.lint.journal_scan import JournalFacts, scan_journal
from wikimem.lint.snapshot import Snapshot
from wikimem.lint.vectors import vector_findings
from wikimem.names import validate_date, validate_file

__all__ = ["Linter", "lint"]


def _memory_path(path: str) -> bool:
    """True for ``wiki/<valid name>.md`` and ``diary/<real date>.md``."""
    folder, _, name = path.partition("/")
    if not name.endswith(".md") or "/" in name:
        return False
    try:
        validate_file(name[:-3]) if folder == "wiki" else validate_date(name[:-3]) if folder == "diary" else None
    except ValueError:
        return False
    return folder in ("wiki", "diary")


def _when(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).replace(microsecond=0).isoformat()


class Linter:
    """Lint of the memory directory ``root``, kept warm for re-runs.

    ``model`` is the embedding model in use (for the vector cache check);
    without it, only a disagreement between the wiki and the diary cache
    can be reported.
    """

    def __init__(self, root: str | os.PathLike[str], *, model: str | None = None) -> None:
        self.root = Path(root)
        self.model = model
        self.snapshot = Snapshot(self.root)
        self.journal = JournalFacts()
        self.baseline = Baseline({}, {})
        #: Drifted paths of the last run -> their current sha256 (None: gone).
        self.drifted: dict[str, str | None] = {}
        self._dupes: list[Finding] | None = None

    def run(self, changed: Iterable[str | os.PathLike[str]] = ()) -> LintReport:
        """Lint now; ``changed`` names files to re-read even if their stat looks the same."""
        touched = self.snapshot.refresh(changed)
        if self._dupes is None or any(path.startswith("wiki/") for path in touched):
            self._dupes = None  # only the wiki takes part in the duplicate check
        self.journal = scan_journal(self.root, self.journal)
        self.baseline = load_baseline(self.root)
        snapshot = self.snapshot
        findings: list[Finding] = []
        for facts in snapshot.files.values():
            findings.extend(facts.findings)
        findings += link_findings(snapshot)
        findings += evidence_findings(snapshot)
        if self._dupes is None:
            self._dupes = duplicate_findings(snapshot)
        findings += self._dupes
        findings += self.journal.findings
        findings += vector_findings(snapshot, model=self.model)
        findings += self._drift()
        findings.sort(key=Finding.sort_key)
        return LintReport(findings)

    def _drift(self) -> list[Finding]:
        findings: list[Finding] = []
        self.drifted = {}
        if self.baseline.damaged:
            findings.append(make_finding(
                "drift", BASELINE_FILE, f"{self.baseline.damaged}: drift is judged from the journal alone",
                fixable=False))
        files = self.snapshot.files
        candidates = set(files) | {p for p in (*self.journal.last, *self.baseline.files) if _memory_path(p)}
        for path in candidates:
            facts = files.get(path)
            logged = self.journal.logged(path)
            state = DriftState(
                path,
                facts.sha256 if facts is not None else None,
                facts.signature[0] / 1e9 if facts is not None else None,
                logged[0] if logged else None,
                logged[1] if logged else None,
            )
            why = judge(state, self.baseline)
            if why is None:
                continue
            self.drifted[path] = state.sha256
            detail = ""
            if state.mtime is not None:
                detail = f" (file {_when(state.mtime)}"
                detail += f", journal {_when(state.logged)})" if state.logged is not None else ")"
            findings.append(make_finding(
                "drift", path, f"{why}{detail}; review it, --fix accepts it"))
        return findings


def lint(root: str | os.PathLike[str], *, model: str | None = None) -> LintReport:
    """Lint the memory directory ``root`` once (read-only)."""
    return Linter(root, model=model).run()
