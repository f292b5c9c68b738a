"""CLI output that programs parse is valid JSON, byte-exact for memory text; a non-store says so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SAFETY_NET
from wikimem.cli import main

#: C0, DEL, C1 (U+009B is the 8-bit CSI), a bidi override and plain CJK.
HOSTILE = "csi \x9b31m, esc \x1b[2J, bell \x07, del \x7f, nel \x85, rlo \u202e, 中文"
#: The same in a name or a link target (no brackets; NEL is whitespace there, collapsed by the parser).
NAME = "csi \x9b31m esc \x1b7 bell \x07 del \x7f rlo \u202e 中文"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    # Hand-written (the API refuses control characters in names): what a hostile agent or a sync leaves.
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "notes.md").write_text(
        f"# notes\n\n## name {NAME}\n\ncontent {HOSTILE}\nsee [[notes:gone {NAME}]]\n\n"
        "<!-- wikimem: owner=x | ts=2026-07-01 -->\n", "utf-8")
    (tmp_path / "wiki" / "fixme.md").write_text(
        f"# fixme\n\n## plain\n\n{HOSTILE}\n\n<!-- wikimem: owner=x | ts=2026-07-01 -->\n", "utf-8")
    return tmp_path


def test_lint_json_is_valid_and_keeps_memory_text_exact(hostile: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(hostile), "lint", "--json")
    data = json.loads(out)
    items = {f["location"]["item"] for f in data["findings"]}
    assert f"name {NAME}" in items
    assert any(NAME in f["message"] for f in data["findings"] if f["code"] == "dangling-link")
    assert not any(ch in out for ch in "\x9b\x1b\x07\x7f\x85")  # nothing raw reaches the terminal


def test_lint_fix_dry_run_json_is_valid(hostile: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(hostile), "lint", "--fix", "--dry-run", "--json")
    data = json.loads(out)
    assert HOSTILE in data["diff"]


def test_graph_json_is_valid_and_keeps_names_exact(hostile: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(hostile), "graph", "--format", "json")
    data = json.loads(out)
    assert {node["name"] for node in data["nodes"]} == {f"name {NAME}", f"gone {NAME}", "plain"}
    assert not any(ch in out for ch in "\x9b\x1b\x07\x7f\x85")


def test_text_output_still_neutralizes_controls(hostile: Path, capsys) -> None:
    out = run(capsys, "-s", str(hostile), "show", "notes")[1]
    assert "\\x9b31m" in out and "\x9b" not in out


def test_json_with_an_undecodable_file_name_is_valid(tmp_path: Path) -> None:
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "a.md").write_text("# a\n\n## x\n\nsee [[b:y]]\n", "utf-8")
    (tmp_path / "wiki").joinpath(b"bad\xff.md".decode("utf-8", "surrogateescape")).write_text(
        "# bad\n\n## z\n\nz\n", "utf-8")
    proc = subprocess.run([sys.executable, "-m", "wikimem", "-s", str(tmp_path), "graph", "--format", "json"],
                          capture_output=True, timeout=SAFETY_NET)
    assert proc.returncode == 0, proc.stderr
    names = {node["file"] for node in json.loads(proc.stdout)["nodes"]}
    assert "a" in names and "b" in names


@pytest.mark.parametrize("command", [["ls"], ["grep", "x"], ["graph"], ["lint"], ["explain", "x"]])
def test_a_directory_that_is_no_memory_store_is_a_store_error(tmp_path: Path, capsys, command) -> None:
    (tmp_path / "passwd").write_text("root:x:0:0\n", "utf-8")
    (tmp_path / "hosts.d").mkdir()
    code, out, err = run(capsys, "-s", str(tmp_path), *command)
    assert (code, out) == (2, "")
    assert f"not a memory directory: {tmp_path}" in err


def test_an_empty_directory_is_an_empty_store(tmp_path: Path, capsys) -> None:
    (tmp_path / ".git").mkdir()
    assert run(capsys, "-s", str(tmp_path), "ls") == (0, "", "")


@pytest.mark.parametrize("marker", ["wiki", "diary", "journal.jsonl"])
def test_any_memory_part_makes_a_store(tmp_path: Path, capsys, marker: str) -> None:
    (tmp_path / "README.txt").write_text("notes\n", "utf-8")
    (tmp_path / marker).mkdir() if "." not in marker else (tmp_path / marker).write_text("", "utf-8")
    assert run(capsys, "-s", str(tmp_path), "ls")[0] == 0
