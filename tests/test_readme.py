"""The README's examples are part of the contract: every Python block runs.

Each ```python block is executed in a fresh temporary working directory (the
examples write to ``memory/`` relative to it), in order, sharing nothing.
Shell examples that call the ``wikimem`` CLI are run against a scratch copy
of the bundled demo memory and must exit 0.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from conftest import SAFETY_NET

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK_RE = re.compile(r"```(python|sh)\n(.*?)```", re.S)


def _blocks(lang: str) -> list[str]:
    return [body for kind, body in _BLOCK_RE.findall(README.read_text("utf-8")) if kind == lang]


@pytest.mark.parametrize("code", _blocks("python"), ids=lambda c: c.splitlines()[0][:40])
def test_readme_python_example_runs(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(README), "exec"), {"__name__": "__readme__"})


def _cli_lines() -> list[str]:
    lines = []
    for body in _blocks("sh"):
        for line in body.splitlines():
            line = line.split("  #", 1)[0].strip()
            if line.startswith("wikimem ") and " -s memory/" in line:
                lines.append(line)
    return lines


@pytest.mark.parametrize("line", _cli_lines())
def test_readme_cli_example_succeeds_on_the_demo_memory(line: str, tmp_path: Path) -> None:
    demo = tmp_path / "memory"
    shutil.copytree(Path(str(resources.files("wikimem") / "demo")), demo)
    argv = shlex.split(line)[1:]
    env = {**os.environ, "PYTHONPATH": str(README.parent)}
    proc = subprocess.run(
        [sys.executable, "-m", "wikimem", *argv], cwd=tmp_path, env=env,
        capture_output=True, text=True, encoding="utf-8", timeout=SAFETY_NET,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()


def _transcripts() -> list[tuple[str, str]]:
    """```text blocks that start with ``$ wikimem …``: the command and its exact output."""
    out = []
    for kind, body in re.findall(r"```(text)\n(.*?)```", README.read_text("utf-8"), re.S):
        first, _, rest = body.partition("\n")
        if first.startswith("$ wikimem "):
            out.append((first[2:], rest))
    return out


@pytest.mark.parametrize("command,expected", _transcripts())
def test_readme_cli_transcript_matches_the_real_output(command: str, expected: str) -> None:
    argv = shlex.split(command)[1:]
    env = {**os.environ, "PYTHONPATH": str(README.parent)}
    proc = subprocess.run(
        [sys.executable, "-m", "wikimem", *argv], cwd=README.parent, env=env,
        capture_output=True, text=True, encoding="utf-8", timeout=SAFETY_NET,
    )
    assert proc.stdout == expected
