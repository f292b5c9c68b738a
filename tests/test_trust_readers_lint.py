"""Lint sees what the parser swallows: git conflict markers, and metadata fields joined by ';'."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from wikimem import MemoryStore
from wikimem.cli import main
from wikimem.disk.baseline import BASELINE_FILE
from wikimem.lint.drift import accept_current_state
from wikimem.lint import Linter, lint
from wikimem.lint.fixes import plan_fixes
from wikimem.disk.markers import conflict_lines, has_conflict_markers

CONFLICT = "<<<<<<< HEAD\nOat milk.\n=======\nSoy milk.\n>>>>>>> phone\n"


def findings(root: Path, code: str) -> list:
    return [f for f in lint(root).findings if f.code == code]


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    store.add("prefs", "milk", "Oat milk.")
    store.add("prefs", "tea", "Jasmine.")
    store.diary.append("Bought milk.", date="2026-07-20", time="09:00")
    return store


def conflict_in(path: Path) -> None:
    """What ``git merge`` leaves: both sides of the block, and a newer mtime than the journal's."""
    text = path.read_text("utf-8").replace("Oat milk.\n", CONFLICT).replace("Bought milk.\n", CONFLICT)
    path.write_text(text, "utf-8")
    later = path.stat().st_mtime + 600
    os.utime(path, (later, later))


@pytest.mark.parametrize("text, lines", [
    (CONFLICT, [1, 3, 5]),
    ("a\n<<<<<<<\nb\n>>>>>>>\n", [2, 4]),
    ("diff3\n<<<<<<< ours\nx\n||||||| base\ny\n=======\nz\n>>>>>>> theirs\n", [2, 4, 6, 8]),
    ("<<<<<<< HEAD\r\nx\r\n=======\r\ny\r\n>>>>>>> b\r\n", [1, 3, 5]),
])
def test_the_detector_finds_git_markers(text: str, lines: list[int]) -> None:
    assert has_conflict_markers(text) and has_conflict_markers(text.encode())
    assert conflict_lines(text) == lines


@pytest.mark.parametrize("text", [
    "Title\n=======\n\nsetext heading, not a conflict\n",
    "| a | b |\n|||||||\n",
    "quote: >>>>>>>> eight, inline <<<<<<< not at the start\n",
    "<<<<<<<<< nine\n",
])
def test_the_detector_ignores_ordinary_markdown(text: str) -> None:
    assert not has_conflict_markers(text) and conflict_lines(text) == []


@pytest.mark.parametrize("path", ["wiki/prefs.md", "diary/2026-07-20.md"])
def test_conflict_markers_are_an_error(store: MemoryStore, path: str) -> None:
    conflict_in(store.root / path)
    found = findings(store.root, "conflict-markers")
    assert [(f.severity, f.location.path) for f in found] == [("error", path)]
    assert found[0].location.line == (5 if path.startswith("wiki") else 5)
    assert "lines 5, 7, 9" in found[0].message
    assert lint(store.root).exit_code() == 1


def test_lint_fix_never_accepts_a_conflicted_file_as_drift(store: MemoryStore, capsys) -> None:
    conflict_in(store.file_path("prefs"))
    drift = findings(store.root, "drift")
    assert [(f.location.path, f.fixable) for f in drift] == [("wiki/prefs.md", False)]
    assert "conflict markers" in drift[0].message
    main(["-s", str(store.root), "lint", "--fix"])
    capsys.readouterr()
    baseline = store.root / BASELINE_FILE
    assert not baseline.exists() or "wiki/prefs.md" not in json.loads(baseline.read_text("utf-8"))["files"]
    assert [f.location.path for f in findings(store.root, "drift")] == ["wiki/prefs.md"]


def test_lint_fix_leaves_other_fixes_in_a_conflicted_file_alone(store: MemoryStore) -> None:
    path = store.file_path("prefs")
    path.write_text(f"# prefs\n\n## milk\n\n{CONFLICT}\n## tea\n\nJasmine.\n\n<!-- wikimem owner=me -->\n", "utf-8")
    linter = Linter(store.root)
    plan = plan_fixes(linter, linter.run())
    assert not [fix for fix in plan.files if fix.path == "wiki/prefs.md"]
    assert any("conflict" in note for note in plan.skipped)


def test_accepting_the_whole_state_skips_a_conflicted_file(store: MemoryStore) -> None:
    accept_current_state(store.root)
    before = json.loads((store.root / BASELINE_FILE).read_text("utf-8"))["files"]["wiki/prefs.md"]
    conflict_in(store.file_path("prefs"))
    accept_current_state(store.root)
    after = json.loads((store.root / BASELINE_FILE).read_text("utf-8"))["files"]["wiki/prefs.md"]
    assert after == before
    assert [f.location.path for f in findings(store.root, "drift")] == ["wiki/prefs.md"]


# -- metadata fields separated by ';' ------------------------------------------------


@pytest.mark.parametrize("comment, swallowed", [
    ("<!-- wikimem: owner=a; source=b -->", "owner"),
    ("<!-- wikimem: owner=a ; ts=2026-07-01T00:00:00+00:00 -->", "owner"),
    ("<!-- wikimem: source=c1;owner=a -->", "source"),
    ("<!-- wikimem: owner=a | source=b; ts=2026-07-01T00:00:00+00:00 -->", "source"),
])
def test_semicolon_separated_metadata_is_malformed(tmp_path: Path, comment: str, swallowed: str) -> None:
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "a.md").write_text(f"# a\n\n## x\n\ntext\n\n{comment}\n", "utf-8")
    found = findings(tmp_path, "malformed-meta")
    assert [(f.location.line, f.location.item) for f in found] == [(7, "x")]
    assert "separated by ';'" in found[0].message and f"{swallowed} reads as" in found[0].message


def test_semicolon_separated_ts_says_why(tmp_path: Path) -> None:
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "a.md").write_text(
        "# a\n\n## x\n\ntext\n\n<!-- wikimem: ts=2026-07-01T00:00:00+00:00; owner=a -->\n", "utf-8")
    found = findings(tmp_path, "malformed-meta")
    assert len(found) == 1 and "separated by ';'" in found[0].message


@pytest.mark.parametrize("owner", ["Smith; Jones", "a;b", "agent:x"])
def test_a_semicolon_in_a_value_alone_is_fine(tmp_path: Path, owner: str) -> None:
    MemoryStore(tmp_path).add("a", "x", "text", owner=owner)
    assert findings(tmp_path, "malformed-meta") == []
