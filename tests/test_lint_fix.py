"""``--fix`` and ``--dry-run``: the exact bytes written, the exact diff shown, the journal."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path

import pytest

from tests.test_lint_fixtures import clean_store, found, plant, sha
from wikimem.cli import main
from wikimem.lint import Linter
from wikimem.lint.fixes import apply_fixes, plan_fixes

NOW = dt.datetime(2026, 7, 22, 8, 0, tzinfo=dt.timezone.utc)

WORK_BEFORE = (
    "# work\n\n## apollo\n\nProject Apollo ships in Q4. Lead is [[people:Alice]].\n\n"
    "<!-- wikimem owner=agent | ts=2026-07-20T11:00:00+02:00 -->\n"
)
WORK_AFTER = (
    "# work\n\n## apollo\n\nProject Apollo ships in Q4. Lead is [[people:Alice]].\n\n"
    "<!-- wikimem: owner=agent | ts=2026-07-20T09:00:00+00:00 -->\n"
)
DAY_BEFORE = "# 2026-07-21\n\n## 10:00\n\nlater\n\n## 09:00\n\nearlier\n\n## 09:00\n\nsame minute, second\n"
DAY_AFTER = "# 2026-07-21\n\n## 09:00\n\nearlier\n\n## 09:00\n\nsame minute, second\n\n## 10:00\n\nlater\n"

DIFF = """\
--- a/diary/2026-07-21.md
+++ b/diary/2026-07-21.md
@@ -1,8 +1,4 @@
 # 2026-07-21
-
-## 10:00
-
-later
 
 ## 09:00
 
@@ -11,3 +7,7 @@
 ## 09:00
 
 same minute, second
+
+## 10:00
+
+later
--- a/wiki/work.md
+++ b/wiki/work.md
@@ -4,4 +4,4 @@
 
 Project Apollo ships in Q4. Lead is [[people:Alice]].
 
-<!-- wikimem owner=agent | ts=2026-07-20T11:00:00+02:00 -->
+<!-- wikimem: owner=agent | ts=2026-07-20T09:00:00+00:00 -->
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    clean_store(tmp_path)
    plant(tmp_path, "wiki/work.md", WORK_BEFORE)
    plant(tmp_path, "diary/2026-07-21.md", DAY_BEFORE)
    return tmp_path


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_planted_store_has_exactly_the_fixable_findings(root: Path) -> None:
    rows = found(root)
    assert [(r[0], r[1]) for r in rows] == [("diary-order", "diary/2026-07-21.md"), ("malformed-meta", "wiki/work.md")]


def test_dry_run_prints_the_diff_and_writes_nothing(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _files(root)
    code = main(["-s", str(root), "lint", "--fix", "--dry-run"])
    assert code == 0
    assert capsys.readouterr().out == DIFF
    assert _files(root) == before


def test_fix_writes_exactly_the_dry_run_text_and_journals_each_fix(root: Path) -> None:
    linter = Linter(root)
    plan = plan_fixes(linter, linter.run(), clock=lambda: NOW)
    assert plan.diff() == DIFF
    journal_before = (root / "journal.jsonl").read_text("utf-8").splitlines()
    done, refused = apply_fixes(linter, plan)
    assert refused == []
    assert done == ["diary/2026-07-21.md: entries sorted by HH:MM",
                    "wiki/work.md: apollo: metadata comment rewritten as metadata"]
    assert (root / "wiki/work.md").read_text("utf-8") == WORK_AFTER
    assert (root / "diary/2026-07-21.md").read_text("utf-8") == DAY_AFTER
    new = [json.loads(line) for line in (root / "journal.jsonl").read_text("utf-8").splitlines()[len(journal_before):]]
    assert [{k: v for k, v in e.items() if k != "ts"} for e in new] == [
        {"action": "diary", "date": "2026-07-21", "time": "09:00", "detail": "lint fix: entries sorted by HH:MM"},
        {"action": "update", "file": "work", "item": "apollo", "owner": "agent",
         "detail": "lint fix: metadata comment rewritten as metadata", "by": "lint"},
    ]
    assert found(root) == []


def test_fix_accepts_drift_into_the_baseline(root: Path) -> None:
    path = root / "wiki" / "people.md"
    path.write_text(path.read_text("utf-8").replace("Colleague", "Friend"), "utf-8")
    stamp = time.time() + 60
    os.utime(path, (stamp, stamp))
    linter = Linter(root)
    plan = plan_fixes(linter, linter.run(), clock=lambda: NOW)
    assert plan.accepted == {"wiki/people.md": sha(path)}
    apply_fixes(linter, plan)
    baseline = json.loads((root / "lint-baseline.json").read_text("utf-8"))
    assert baseline["files"]["wiki/people.md"] == {"sha256": sha(path), "accepted": "2026-07-22T08:00:00+00:00",
                                                   "by": "lint"}
    assert found(root) == []


def test_a_file_changed_after_planning_is_not_written(root: Path) -> None:
    linter = Linter(root)
    plan = plan_fixes(linter, linter.run(), clock=lambda: NOW)
    (root / "diary/2026-07-21.md").write_text(DAY_BEFORE + "\n## 11:00\n\nnew\n", "utf-8")
    done, refused = apply_fixes(linter, plan)
    assert refused == ["diary/2026-07-21.md: changed on disk since the fix was planned; nothing written "
                       "(run lint again)"]
    assert (root / "diary/2026-07-21.md").read_text("utf-8").endswith("new\n")
    assert (root / "wiki/work.md").read_text("utf-8") == WORK_AFTER


def test_a_file_with_repeated_headings_is_not_rewritten(root: Path) -> None:
    plant(root, "wiki/work.md", WORK_BEFORE + "\n## apollo\n\nsecond copy [[people:Alice]]\n"
          "<!-- wikimem owner=x -->\n")
    linter = Linter(root)
    plan = plan_fixes(linter, linter.run(), clock=lambda: NOW)
    assert [f.path for f in plan.files] == ["diary/2026-07-21.md"]
    assert any("repeated headings" in note for note in plan.skipped)


def test_unfixable_metadata_is_left_alone(root: Path) -> None:
    plant(root, "wiki/work.md", WORK_BEFORE.replace("owner=agent", "tz=UTC"))
    linter = Linter(root)
    plan = plan_fixes(linter, linter.run(), clock=lambda: NOW)
    assert [f.path for f in plan.files] == ["diary/2026-07-21.md"]


def test_cli_fix_reports_and_relints(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["-s", str(root), "lint", "--fix"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines() == [
        "fixed diary/2026-07-21.md: entries sorted by HH:MM",
        "fixed wiki/work.md: apollo: metadata comment rewritten as metadata",
        "no problems found",
    ]


def test_dry_run_without_fix_is_a_usage_error(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-s", str(root), "lint", "--dry-run"]) == 2
    assert "--dry-run only makes sense with --fix" in capsys.readouterr().err


def test_fix_removes_a_stale_temp_file_of_a_retired_index_cache(root: Path) -> None:
    # Earlier versions wrote postings caches in the memory directory itself; a killed process left their temps.
    stale = root / ".postings.segments.k3j9x0q_.tmp"
    other = root / ".notes.txt.k3j9x0q_.tmp"  # not a temp of a retired cache: not the rule's
    for path in (stale, other):
        path.write_bytes(b"half a cache")
        old = NOW.timestamp() - 700
        os.utime(path, (old, old))
    assert ("stale-temp-file", stale.name, None, None) in found(root)
    linter = Linter(root)
    plan = plan_fixes(linter, linter.run(), clock=lambda: NOW)
    assert plan.temps == {stale.name: NOW.timestamp() - 700}
    done, refused = apply_fixes(linter, plan)
    assert refused == [] and done[-1] == f"{stale.name}: removed a stale temp file"
    assert not stale.exists() and other.exists()
