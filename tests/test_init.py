"""``wikimem init [DIR] [--git]``: the layout, the repository, and never a byte of an existing file."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import SAFETY_NET
from wikimem import MemoryStore
from wikimem.cli import main

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=SAFETY_NET,
                          check=True)
    return done.stdout


def test_init_creates_the_layout_the_other_verbs_accept(tmp_path: Path, capsys) -> None:
    root = tmp_path / "new" / "memory"
    assert main(["init", str(root)]) == 0
    assert (root / "wiki").is_dir() and (root / "diary").is_dir() and (root / "journal.jsonl").read_bytes() == b""
    capsys.readouterr()
    assert main(["-s", str(root), "add", "notes", "a", "--content", "b"]) == 0
    assert MemoryStore(root).get("notes", "a").content == "b"


def test_init_twice_changes_nothing(tmp_path: Path, capsys) -> None:
    root = tmp_path / "memory"
    assert main(["init", str(root)]) == 0
    MemoryStore(root).add("notes", "a", "b")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert main(["init", str(root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["created"] == []
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_init_uses_the_store_option_when_no_dir_is_given(tmp_path: Path) -> None:
    root = tmp_path / "via-store"
    assert main(["-s", str(root), "init"]) == 0
    assert (root / "wiki").is_dir()


def test_init_on_a_file_is_exit_2(tmp_path: Path, capsys) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    assert main(["init", str(target), "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"] == "bad_input"


@needs_git
def test_init_git_ignores_derived_files_but_keeps_records(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    assert main(["init", str(root), "--git"]) == 0
    assert (root / ".git").is_dir()
    store = MemoryStore(root)
    store.add("notes", "a", "b")  # leaves the lock behind
    for derived in ("vectors-000001.npy", "vectors.keys.jsonl", "diary-vectors/x.npy",
                    ".wikimem-intent/record.json", "wiki/.notes.md.abc.tmp"):
        (root / derived).parent.mkdir(parents=True, exist_ok=True)
        (root / derived).write_bytes(b"derived")
    (root / "captures").mkdir()
    (root / "captures" / "2026-07-21.capture.json").write_text("{}")
    (root / "reviewed.json").write_text("{}")
    git(root, "add", "-A")
    tracked = set(git(root, "ls-files").split())
    assert tracked == {".gitattributes", ".gitignore", "journal.jsonl", "wiki/notes.md",
                       "captures/2026-07-21.capture.json", "reviewed.json"}


@needs_git
def test_init_git_merges_the_journal_by_union(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    assert main(["init", str(root), "--git"]) == 0
    assert git(root, "check-attr", "merge", "journal.jsonl").strip() == "journal.jsonl: merge: union"


@needs_git
def test_init_git_inside_a_repository_adds_no_nested_one_and_keeps_existing_lines(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    root = project / "memory"
    root.mkdir()
    (root / ".gitignore").write_bytes(b"my-own-line\r\n")
    assert main(["init", str(root), "--git"]) == 0
    assert not (root / ".git").exists()
    ignore = (root / ".gitignore").read_bytes()
    assert ignore.startswith(b"my-own-line\r\n") and b"/vectors.keys.jsonl\n" in ignore
    assert main(["init", str(root), "--git"]) == 0
    assert (root / ".gitignore").read_bytes() == ignore  # nothing appended twice
