"""What the distribution says about itself: license, version, and what the sdist carries.

The sdist is built from a copy of the source tree with the installed
setuptools (the build backend's own code path, no network), so the test
checks the real MANIFEST.in and pyproject.toml, not a description of them.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from contextlib import redirect_stdout
from importlib.metadata import version
from pathlib import Path

import pytest

import wikimem
from conftest import SAFETY_NET
from wikimem.cli import main as wikimem_main

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]


def test_the_license_file_is_the_apache_2_text_the_metadata_declares() -> None:
    text = (REPO / "LICENSE").read_text("utf-8")
    assert text.lstrip().startswith("Apache License\n                           Version 2.0, January 2004")
    assert "END OF TERMS AND CONDITIONS" in text
    assert "APPENDIX: How to apply the Apache License to your work." in text
    assert (PYPROJECT["license"], PYPROJECT["license-files"]) == ("Apache-2.0", ["LICENSE"])
    assert not [c for c in PYPROJECT["classifiers"] if c.startswith("License ::")]  # PEP 639: one place


def test_the_package_version_is_the_distribution_version() -> None:
    assert wikimem.__version__ == version("wikimem") == PYPROJECT["version"]


def test_wikimem_version_prints_the_version_and_exits_0() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        code = wikimem_main(["--version"])
    assert (code, out.getvalue()) == (0, f"wikimem {wikimem.__version__}\n")


def test_wikimem_version_needs_no_command_and_no_store(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "wikimem", "--version"], cwd=tmp_path, capture_output=True, text=True,
        timeout=SAFETY_NET,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"wikimem {wikimem.__version__}\n", "")


def test_wikimem_tui_version_prints_the_version_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    from wikimem_tui.__main__ import main as tui_main

    with pytest.raises(SystemExit) as stop:
        tui_main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"wikimem-tui {wikimem.__version__}\n"


def _build_sdist(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", ".pytest_cache", ".cache",
    ))
    out = tmp_path / "dist"
    proc = subprocess.run(
        [sys.executable, "-c", f"from setuptools import build_meta; print(build_meta.build_sdist({str(out)!r}))"],
        cwd=src, capture_output=True, text=True, timeout=SAFETY_NET,
    )
    assert proc.returncode == 0, proc.stderr
    return out / proc.stdout.strip().splitlines()[-1]


def test_the_sdist_carries_the_snapshots_the_docs_and_the_license(tmp_path: Path) -> None:
    sdist = _build_sdist(tmp_path)
    with tarfile.open(sdist) as tar:
        names = {name.partition("/")[2] for name in tar.getnames()}
        pkg_info = tar.extractfile(f"{sdist.name.removesuffix('.tar.gz')}/PKG-INFO").read().decode()
    snapshots = {p.relative_to(REPO).as_posix() for p in (REPO / "tests" / "__snapshots__").rglob("*.svg")}
    docs = {p.relative_to(REPO).as_posix() for p in (REPO / "docs").rglob("*.md")}
    assert snapshots and snapshots <= names
    assert docs and docs <= names
    assert {"LICENSE", "README.md", "tests/conftest.py", "tests/test_docs.py"} <= names
    assert not [n for n in names if n.endswith(".pyc") or "/__pycache__/" in n]
    assert "License-Expression: Apache-2.0" in pkg_info.splitlines()
    assert "License-File: LICENSE" in pkg_info.splitlines()
    assert re.search(r"^Classifier: Programming Language :: Python :: 3\.11$", pkg_info, re.M)


def test_the_repository_tracks_no_built_archives() -> None:
    """A fresh clone carried pyflakes-4.1.0-py2.py3-none-any.whl at its root (committed by
    accident with the cli/ move): a stranger's binary in the tree is noise at best. Built
    archives belong in a package index, never in git."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout (an sdist has no history to check)")
    tracked = subprocess.run(
        ["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True, check=True, timeout=SAFETY_NET,
    ).stdout.splitlines()
    archives = [p for p in tracked if p.endswith((".whl", ".tar.gz", ".zip", ".egg"))]
    assert archives == []
