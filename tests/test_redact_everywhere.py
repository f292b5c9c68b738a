"""Every string capture writes is redacted, and lint sees a secret in every block as written.

The side doors: a token in the session's working directory or git branch
name reaches the diary entry's first line, the journal, the ``--json`` and
``--dry-run`` output unless each goes through the one redaction; a secret
in the first of two same-named wiki blocks is hidden from reads (the last
wins) but not from the file. Keys are made at run time from their shapes.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from wikimem.capture import capture
from wikimem.lint import lint

_RNG = random.Random(31)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
AWS = "AKIA" + "".join(_RNG.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16))
GITHUB = "ghp_" + "".join(_RNG.choice(_ALNUM) for _ in range(36))
SESSION = "9c1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"


def _log(root: Path, *, cwd: str, branch: str) -> Path:
    path = root / "logs" / "-home-ada-x" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    lines = [
        {"type": "user", "sessionId": SESSION, "cwd": cwd, "gitBranch": branch, "timestamp": "2026-07-13T09:14:03Z",
         "message": {"role": "user", "content": "Why does checkout fail?"}},
        {"type": "assistant", "timestamp": "2026-07-13T09:16:40Z",
         "message": {"id": "m1", "content": [{"type": "text", "text": "The fixture had a stale price; fixed."}]}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return path


def _everything(memory: Path) -> str:
    return "\n".join(p.read_text("utf-8") for p in memory.rglob("*") if p.is_file())


def test_a_token_in_the_cwd_or_the_branch_reaches_no_file_and_no_report(tmp_path: Path) -> None:
    log = _log(tmp_path, cwd=f"/home/ada/{AWS}", branch=f"fix/{GITHUB}")
    memory = tmp_path / "memory"
    dry = capture(memory, "claude-code", [log], tz="UTC", dry_run=True)
    report = capture(memory, "claude-code", [log], tz="UTC")
    for shown in (json.dumps(dry.as_dict()), json.dumps(report.as_dict()), _everything(memory)):
        assert AWS not in shown and GITHUB not in shown
        assert AWS[4:] not in shown and GITHUB[4:] not in shown
    (entry,) = report.entries
    head = entry.content.split("\n")[0]
    assert head.startswith("Claude Code session 9c1e2f3a in [REDACTED:aws-key] (fix/[REDACTED:github-token])")


def test_the_cli_json_and_dry_run_show_no_token_from_a_path(tmp_path: Path) -> None:
    log = _log(tmp_path, cwd=f"/home/ada/{AWS}", branch=f"fix/{GITHUB}")
    memory = tmp_path / "memory"
    subprocess.run([sys.executable, "-m", "wikimem", "-s", str(memory), "init"], check=True, capture_output=True)
    for flags in (["--dry-run"], ["--dry-run", "--json"], ["--json"]):  # the last one writes
        out = subprocess.run([sys.executable, "-m", "wikimem", "-s", str(memory), "capture", "claude-code", str(log),
                              "--tz", "UTC", *flags], capture_output=True, text=True, check=False)
        assert out.returncode == 0, out.stderr
        assert "REDACTED" in out.stdout and AWS not in out.stdout + out.stderr and GITHUB not in out.stdout, flags


def test_a_token_in_the_name_of_the_log_folder_is_redacted_in_the_report(tmp_path: Path) -> None:
    folder = tmp_path / f"logs-{GITHUB}"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a log", "utf-8")
    report = capture(tmp_path / "memory", "claude-code", [folder / "missing.jsonl"], tz="UTC")
    assert report.missing and GITHUB not in json.dumps(report.as_dict())


def test_lint_sees_a_secret_in_the_first_of_two_blocks_of_one_name(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    (memory / "wiki").mkdir(parents=True)
    (memory / "diary").mkdir()
    (memory / "wiki" / "ops.md").write_text(
        f"# ops\n\n## deploy\n\nUse {GITHUB} to pull.\n\n## deploy\n\nAsk Ada for access.\n", "utf-8")
    findings = [f for f in lint(memory).findings if f.code == "secret-in-memory"]
    assert [(f.location.path, f.location.line, f.location.item) for f in findings] == [("wiki/ops.md", 3, "deploy")]
    assert GITHUB[4:] not in findings[0].message


def test_lint_sees_a_secret_written_with_no_separator(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    (memory / "wiki").mkdir(parents=True)
    (memory / "diary").mkdir()
    key = "".join(_RNG.choice(_ALNUM + "/+") for _ in range(40))
    (memory / "wiki" / "ops.md").write_text(f"# ops\n\n## aws\n\nthe secret {key} is the prod one\n", "utf-8")
    findings = [f for f in lint(memory).findings if f.code == "secret-in-memory"]
    assert [(f.location.path, f.location.item) for f in findings] == [("wiki/ops.md", "aws")]
