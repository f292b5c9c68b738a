"""``wikimem capture``: the verb, its output, its exit codes, and Claude Code's Stop hook."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from capture_logs import CC_ONE, CC_TWO, fake_home, tree_hash, write_tree  # noqa: F401
from conftest import SAFETY_NET
from wikimem.cli import main

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    path = tmp_path / "memory"
    path.mkdir()
    write_tree(tmp_path / "logs")
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_capture_prints_what_it_added_and_wrote(memory: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "-s", str(memory), "capture", "claude-code", str(tmp_path / "logs" / "claude-code"),
                          "--tz", "UTC")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "claude-code: added 2 diary entries (2 new cards, 0 follow-up), 0 unchanged"
    assert lines[1] == f"+ diary 2026-07-13 09:14  new  claude-code-{CC_ONE}"
    assert lines[2] == f"+ diary 2026-07-13 15:02  new  claude-code-{CC_TWO}  derived"
    assert any(line.startswith("skipped ") and "sub-agent transcript" in line for line in lines)
    assert any(line.startswith("skipped while reading: ") and "torn last line" in line for line in lines)
    assert lines[-1] == "wrote captures/2026-07-13.capture.json, diary/2026-07-13.md"


def test_a_dry_run_prints_the_entries_it_would_write_and_writes_nothing(
        memory: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "-s", str(memory), "capture", "codex", str(tmp_path / "logs" / "codex"), "--tz", "UTC",
                        "--dry-run")
    assert code == 0 and list(memory.iterdir()) == []
    assert "would add 1 diary entry" in out and "    -> Added --dry-run: it prints the rows" in out
    assert out.splitlines()[-1] == "would write captures/2026-07-13.capture.json, diary/2026-07-13.md"


def test_json_output_is_the_report(memory: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "-s", str(memory), "capture", "claude-code", str(tmp_path / "logs" / "claude-code"),
                        "--tz", "UTC", "--json")
    report = json.loads(out)
    assert code == 0 and [e["entry"] for e in report["entries"]] == ["2026-07-13 09:14", "2026-07-13 15:02"]
    assert report["written"] == ["captures/2026-07-13.capture.json", "diary/2026-07-13.md"]
    assert report["skipped"][0]["reason"].startswith("sub-agent transcript")


def test_a_second_run_changes_nothing_and_says_so(memory: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("-s", str(memory), "capture", "claude-code", str(tmp_path / "logs" / "claude-code"), "--tz", "UTC")
    _run(capsys, *args)
    before = tree_hash(memory)
    code, out, _ = _run(capsys, *args)
    assert code == 0 and tree_hash(memory) == before
    assert out.splitlines()[0] == "claude-code: added 0 diary entries (0 new cards, 0 follow-up), 2 unchanged"


def test_the_default_folder_is_under_home(memory: Path, tmp_path: Path, fake_home: Path,  # noqa: F811
                                          capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(tmp_path / "logs" / "codex", fake_home / ".codex" / "sessions")
    code, out, _ = _run(capsys, "-s", str(memory), "capture", "codex", "--tz", "UTC")
    assert code == 0 and "added 1 diary entry" in out


@pytest.mark.parametrize("args,message", [
    (["--since", "yesterday"], "bad --since 'yesterday'"),
    (["--tz", "Mars/Olympus"], "bad --tz 'Mars/Olympus'"),
])
def test_bad_options_are_usage_errors(memory: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                      message: str) -> None:
    code, _, err = _run(capsys, "-s", str(memory), "capture", "codex", *args)
    assert code == 2 and message in err


def test_a_named_path_that_does_not_exist_is_an_error(memory: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "-s", str(memory), "capture", "codex", str(tmp_path / "nowhere"))
    assert code == 2 and f"{tmp_path / 'nowhere'}: no such file or directory" in err


def test_a_refused_session_is_an_error_naming_the_damaged_file(memory: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    (memory / "captures").mkdir()
    (memory / "diary").mkdir()
    (memory / "captures" / "2026-07-13.capture.json").write_text("{", "utf-8")
    code, _, err = _run(capsys, "-s", str(memory), "capture", "codex", str(tmp_path / "logs" / "codex"), "--tz", "UTC")
    assert code == 2 and "not captured: captures/2026-07-13.capture.json is not a readable Evidence Snapshot" in err


def test_the_hook_captures_the_transcript_claude_code_names(memory: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    transcript = tmp_path / "logs" / "claude-code" / "-home-ada-shop" / f"{CC_TWO}.jsonl"
    hook_input = {"session_id": CC_TWO, "transcript_path": str(transcript), "cwd": "/home/ada/shop",
                  "hook_event_name": "Stop", "stop_hook_active": False}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(hook_input)))
    code, out, _ = _run(capsys, "-s", str(memory), "capture", "claude-code", "--hook", "--tz", "UTC")
    assert code == 0 and "added 1 diary entry" in out and CC_ONE not in out


def test_a_hook_failure_never_exits_2(memory: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    # Exit code 2 from a Stop hook makes Claude Code go on working with stderr as its instruction.
    for stdin in ("not json", "{}", json.dumps({"transcript_path": "/nowhere/x.jsonl"})):
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code, _, err = _run(capsys, "-s", str(memory), "capture", "claude-code", "--hook")
        assert code == 1 and "wikimem capture: error:" in err


def test_capture_runs_as_a_process_with_home_in_tmp(memory: Path, tmp_path: Path, fake_home: Path) -> None:  # noqa: F811
    shutil.copytree(tmp_path / "logs" / "claude-code", fake_home / ".claude" / "projects")
    env = {"HOME": str(fake_home), "CODEX_HOME": str(fake_home / ".codex"), "PYTHONPATH": str(REPO), "TZ": "UTC",
           "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "wikimem", "-s", str(memory), "capture", "claude-code", "--json"],
                          env=env, capture_output=True, text=True, timeout=SAFETY_NET)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["entries"]) == 2


def test_the_gitignore_wikimem_init_writes_keeps_the_snapshots(tmp_path: Path) -> None:
    """Snapshots are kept, not a cache: ``wikimem init --git``'s ignore list must not leave them out of git."""
    from wikimem.cli import init

    if shutil.which("git") is None:
        pytest.skip("needs git")
    repo = tmp_path / "memory"
    (repo / "captures").mkdir(parents=True)
    snapshot = repo / "captures" / "2026-07-13.capture.json"
    snapshot.write_text("{}\n", "utf-8")
    (repo / "captures" / ".2026-07-13.capture.json.abc.tmp").write_text("", "utf-8")
    (repo / ".gitignore").write_text("\n".join(init.GITIGNORE) + "\n", "utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=SAFETY_NET)
    ignored = subprocess.run(["git", "-C", str(repo), "check-ignore", "captures/2026-07-13.capture.json",
                              "captures/.2026-07-13.capture.json.abc.tmp"], capture_output=True, text=True,
                             timeout=SAFETY_NET).stdout.split()
    assert ignored == ["captures/.2026-07-13.capture.json.abc.tmp"]  # the temp goes, the snapshot stays


def test_the_hooks_input_is_held_to_the_size_recall_holds_it_to(memory: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    huge = json.dumps({"transcript_path": "/nowhere/x.jsonl", "pad": "a" * (2 << 20)})
    monkeypatch.setattr(sys, "stdin", io.StringIO(huge))
    code, _, err = _run(capsys, "-s", str(memory), "capture", "claude-code", "--hook")
    assert code == 1 and "hook input is larger than 1 MiB" in err
