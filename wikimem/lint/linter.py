"""The lint run: one full pass, or an incremental re-run after some files changed.

``lint(root)`` reads and never writes (``--fix`` is ``wikimem.lint.fixes``).
An app keeps one :class:`Linter` and calls :meth:`Linter.run` after each
change, and a re-run costs the change, not the store: unchanged files are
not re-read, the journal is read from where it ended, and cross-file
findings are recomputed only for the files the change can affect. Findings
are kept sorted per file and severity, so the report is a concatenation.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterable
from operator import attrgetter
from pathlib import Path

from wikimem.disk.atomic import STALE_TEMP_SECONDS
from wikimem.disk.loader import gc_paused
from wikimem.disk.baseline import BASELINE_FILE, Baseline, load_baseline
from wikimem.disk.settings import SETTINGS_FILE, read_settings
from wikimem.lint.drift import DriftState, judge
from wikimem.lint.crossref import dangling_findings, evidence_findings, orphan_findings
from wikimem.lint.dupes import DuplicateIndex
from wikimem.lint.findings import SEVERITIES, Finding, LintReport, make_finding
from wikimem.lint.journal_scan import JournalFacts, scan_journal
from wikimem.store import path_stat
from wikimem.lint.scan import FileFacts
from wikimem.lint.snapshot import Snapshot
from wikimem.lint.vector_cache import VectorCheck
from wikimem.lint.captures import CaptureCheck
from wikimem.lint.boundary import boundary_findings
from wikimem.disk.names import validate_date, validate_file
from wikimem.disk.reviewed import REVIEWED_FILE, damage

__all__ = ["Linter", "lint"]

_RANK = {severity: rank for rank, severity in enumerate(SEVERITIES)}
_ORDER = attrgetter("location.line", "code", "message")
Check = Callable[[FileFacts, Snapshot], list[Finding]]
Signature = tuple[int, int] | None


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


def _sorted(findings: list[Finding]) -> list[Finding]:
    """By line, code and message (the report's order within one file and severity)."""
    try:
        findings.sort(key=_ORDER)  # C-level key; fails only when lines and no lines mix
    except TypeError:
        findings.sort(key=lambda f: (f.location.line or 0, f.code, f.message))
    return findings


class Linter:
    """Lint of the memory directory ``root``, kept warm for re-runs.

    ``model`` is the embedding model in use and ``dim`` the width of its
    vectors (for the vector cache check); without them, only a disagreement
    between the wiki and the diary cache can be reported.
    """

    def __init__(self, root: str | os.PathLike[str], *, model: str | None = None, dim: int | None = None) -> None:
        self.root = Path(root)
        self.model = model
        self.dim = dim
        self.snapshot = Snapshot(self.root)
        self.journal: JournalFacts | None = None
        self.baseline = Baseline({}, {})
        #: Drifted paths of the last run -> their current sha256 (None: gone).
        self.drifted: dict[str, str | None] = {}
        self._baseline_seen: tuple[bool, Signature] = (False, None)
        self._reviewed_seen: tuple[bool, Signature] = (False, None)
        self._reviewed: list[Finding] = []
        self._dangling: dict[str, list[Finding]] = {}
        self._orphans: dict[str, list[Finding]] = {}
        self._evidence: dict[str, list[Finding]] = {}
        self._drift: dict[str, Finding] = {}
        self._dupes = DuplicateIndex()
        self._vectors = VectorCheck()
        self._captures = CaptureCheck()
        #: path -> its findings, one sorted list per severity.
        self._placed: dict[str, tuple[list[Finding], ...]] = {}

    def run(self, changed: Iterable[str | os.PathLike[str]] = ()) -> LintReport:
        """Lint now; ``changed`` names files to re-read even if their stat looks the same."""
        # Everything a run creates survives it or dies without cycles, so the
        # cyclic GC would only traverse the facts again and again (a quarter of
        # a cold run at 100k items).
        with gc_paused():
            return self._run(changed)

    def _run(self, changed: Iterable[str | os.PathLike[str]]) -> LintReport:
        snapshot = self.snapshot
        changes = snapshot.refresh(changed)
        touched = set(changes.files)
        wiki_touched = {path for path in touched if path.startswith("wiki/")}
        if touched.issuperset(snapshot.files):  # a first run: every file is to be checked anyway
            linking = owners = citing = set()
        else:
            linking = self._linking(changes.named)
            owners = {f"wiki/{file}.md" for file, _ in changes.linked}
            citing = {f"wiki/{file}.md" for file, _ in changes.supported}
        dirty = self._redo(self._dangling, touched | linking, dangling_findings)
        dirty |= self._redo(self._orphans, wiki_touched | owners, orphan_findings)
        dirty |= self._redo(self._evidence, wiki_touched | citing, evidence_findings)
        olds = [pair[0] for pair in changes.files.values() if pair[0] is not None]
        news = [pair[1] for pair in changes.files.values() if pair[1] is not None]
        dirty |= self._dupes.update(olds, news)
        dirty |= self._redo_drift(touched)
        for path in dirty:
            self._place(path)
        return self._report(self._other_findings(touched))

    def _linking(self, named: set[tuple[str, str]]) -> set[str]:
        """The files linking to any of the ``named`` items (which appeared or vanished)."""
        into = self.snapshot.links.into
        if len(named) > len(into):  # a big change: walk the (smaller) index instead
            return {source[0] for target, sources in into.items() if target in named for source in sources}
        return {source[0] for target in named for source in into.get(target, ())}

    def _redo(self, store: dict[str, list[Finding]], paths: set[str], check: Check) -> set[str]:
        files, snapshot = self.snapshot.files, self.snapshot
        for path in paths:
            facts = files.get(path)
            found = check(facts, snapshot) if facts is not None else []
            if found:
                store[path] = found
            else:
                store.pop(path, None)
        return paths

    def _place(self, path: str) -> None:
        facts = self.snapshot.files.get(path)
        others = list(facts.findings) if facts is not None else []
        for store in (self._dangling, self._evidence):
            others += store.get(path, ())
        others += self._dupes.findings(path)
        if path in self._drift:
            others.append(self._drift[path])
        orphans = self._orphans.get(path, [])
        if not others and not orphans:
            self._placed.pop(path, None)
            return
        buckets: tuple[list[Finding], ...] = ([], [], [])
        for finding in others:
            buckets[_RANK[finding.severity]].append(finding)
        infos = buckets[-1]
        # Orphans come in item order, which is line order unless headings repeat.
        if infos or (facts is not None and facts.duplicates):
            infos += orphans
            _sorted(infos)
        else:
            infos = list(orphans)
        self._placed[path] = (_sorted(buckets[0]), _sorted(buckets[1]), infos)

    def _report(self, others: dict[str, list[Finding]]) -> LintReport:
        placed = dict(self._placed)
        for path, found in others.items():
            mine = placed.get(path, ([], [], []))
            buckets: tuple[list[Finding], ...] = ([], [], [])
            for finding in found:
                buckets[_RANK[finding.severity]].append(finding)
            placed[path] = tuple(_sorted(list(a) + b) for a, b in zip(mine, buckets))
        order = sorted(placed)
        findings: list[Finding] = []
        for rank in range(len(SEVERITIES)):
            for path in order:
                findings += placed[path][rank]
        return LintReport(findings)

    # -- drift ----------------------------------------------------------------

    def _redo_drift(self, touched: set[str]) -> set[str]:
        """Re-judge drift where the files, the journal or the baseline changed."""
        self.journal = scan_journal(self.root, self.journal)
        signature = path_stat(self.root / BASELINE_FILE)
        baseline_changed = self._baseline_seen != (True, signature)
        if baseline_changed:
            self._baseline_seen = (True, signature)
            self.baseline = load_baseline(self.root)
        files = self.snapshot.files
        if baseline_changed or self.journal.fresh:
            paths = set(files) | set(self._drift)
            paths.update(p for p in (*self.journal.last, *self.baseline.files) if _memory_path(p))
        else:
            paths = touched | {p for p in self.journal.changed if p in files or _memory_path(p)}
        for path in paths:
            finding = self._judge_drift(path, files.get(path))
            if finding is None:
                self._drift.pop(path, None)
            else:
                self._drift[path] = finding
        return paths

    def _judge_drift(self, path: str, facts: FileFacts | None) -> Finding | None:
        assert self.journal is not None
        if (facts is not None and facts.unreadable is not None) or self.journal.unreadable is not None:
            # Not read is not deleted, and without the journal nothing can be
            # judged: the ``unreadable`` finding says so, and --fix accepts nothing.
            self.drifted.pop(path, None)
            return None
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
            self.drifted.pop(path, None)
            return None
        if facts is not None and facts.conflicted:  # never accepted: a person resolves it first
            self.drifted.pop(path, None)
            return make_finding("drift", path, f"{why}; it holds git conflict markers: resolve them first, "
                                "--fix does not accept it", fixable=False)
        self.drifted[path] = state.sha256
        detail = ""
        if state.mtime is not None:
            detail = f" (file {_when(state.mtime)}"
            detail += f", journal {_when(state.logged)})" if state.logged is not None else ")"
        return make_finding("drift", path, f"{why}{detail}; review it, --fix accepts it")

    # -- files that are not memory ---------------------------------------------

    def _other_findings(self, touched: set[str]) -> dict[str, list[Finding]]:
        """The journal's, the vector caches', the baseline's and reviewed.json's findings."""
        assert self.journal is not None
        out: dict[str, list[Finding]] = {}
        found = list(self.journal.findings)
        found += self._vectors.run(self.snapshot, touched, model=self.model, dim=self.dim)
        found += self._captures.run(self.snapshot, touched)
        found += _temp_findings(self.snapshot)
        if self.baseline.damaged:
            found.append(make_finding(
                "drift", BASELINE_FILE, f"{self.baseline.damaged}: drift is judged from the journal alone",
                fixable=False))
        signature = path_stat(self.root / REVIEWED_FILE)
        if self._reviewed_seen != (True, signature):
            self._reviewed_seen = (True, signature)
            problem = damage(self.root)
            self._reviewed = [] if problem is None else [make_finding(
                "reviewed-damaged", REVIEWED_FILE, f"{REVIEWED_FILE} is not valid ({problem}): the entries "
                "dismissed in it are back in the reconcile queue, and dismissing more is refused until it "
                "is repaired or deleted")]
        found += self._reviewed
        problem = read_settings(self.root)[1]
        if problem is not None:
            found.append(make_finding("bad-settings", SETTINGS_FILE, problem))
        found += boundary_findings(self.root)
        found += [nested_finding(self.root, folder) for folder in self.snapshot.folders]
        for finding in found:
            out.setdefault(finding.location.path, []).append(finding)
        return out


def _temp_findings(snapshot: Snapshot) -> list[Finding]:
    """``stale-temp-file`` for each temp file a killed write left in wiki/ or diary/."""
    now = dt.datetime.now(dt.timezone.utc).timestamp()
    found = []
    for path, mtime in sorted(snapshot.temps.items()):
        when = "--fix removes it" if now - mtime > STALE_TEMP_SECONDS else \
            "--fix removes it once it is ten minutes old (a write may still own it)"
        found.append(make_finding("stale-temp-file", path, f"the temp file of a write killed before its rename "
                                  f"(modified {_when(mtime)}); the write did not land; {when}"))
    return found


def nested_finding(root: Path, folder: str) -> Finding:
    """The ``nested-file-ignored`` finding of a folder inside wiki/ or diary/ (the library never reads into one)."""
    names: list[str] = []
    for _top, _dirs, files in os.walk(root / folder):  # symlinked folders are not followed
        names += [name for name in files if name.endswith(".md") and not name.startswith(".")]
        if len(names) > 3:
            break
    what = (f"holds {', '.join(sorted(names)[:3])}{', …' if len(names) > 3 else ''}" if names
            else "is a folder")
    top = folder.partition("/")[0]
    return make_finding("nested-file-ignored", folder + "/", f"{what}: memory reads only the files directly in "
                        f"{top}/, so nothing in {folder}/ is recalled, linted or written")


def lint(root: str | os.PathLike[str], *, model: str | None = None, dim: int | None = None) -> LintReport:
    """Lint the memory directory ``root`` once (read-only)."""
    return Linter(root, model=model, dim=dim).run()
