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
import zipfile
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


def _build(tmp_path: Path, kind: str = "sdist") -> Path:
    """The sdist or the wheel (``kind``) setuptools builds from a copy of the tree."""
    src = tmp_path / "src"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", ".pytest_cache", ".cache",
    ))
    out = tmp_path / "dist"
    proc = subprocess.run(
        [sys.executable, "-c", f"from setuptools import build_meta; print(build_meta.build_{kind}({str(out)!r}))"],
        cwd=src, capture_output=True, text=True, timeout=SAFETY_NET,
    )
    assert proc.returncode == 0, proc.stderr
    return out / proc.stdout.strip().splitlines()[-1]


def test_the_sdist_carries_the_snapshots_the_docs_and_the_license(tmp_path: Path) -> None:
    sdist = _build(tmp_path)
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


def test_the_wheel_marks_both_packages_typed(tmp_path: Path) -> None:
    """PEP 561: without py.typed in the wheel, a user's type checker ignores the hints mypy checks here."""
    with zipfile.ZipFile(_build(tmp_path, "wheel")) as wheel:
        names = set(wheel.namelist())
    assert {"wikimem/py.typed", "wikimem_tui/py.typed"} <= names


def _extra_names(requirements: list[str]) -> set[str]:
    """The extras a list of requirements pulls in by naming ``wikimem[...]``."""
    found: set[str] = set()
    for requirement in requirements:
        match = re.fullmatch(r"wikimem\[([^\]]+)\]", requirement.strip())
        if match:
            found |= {name.strip() for name in match.group(1).split(",")}
    return found


def _closure(extras: dict[str, list[str]], name: str) -> set[str]:
    """``name`` and every extra it brings, transitively."""
    seen, todo = set(), [name]
    while todo:
        extra = todo.pop()
        if extra not in seen:
            seen.add(extra)
            todo += _extra_names(extras[extra])
    return seen


def test_all_brings_every_extra_but_the_developers_and_dev_brings_all() -> None:
    extras = PYPROJECT["optional-dependencies"]
    assert {"zh", "en", "embed", "local", "local-e5", "tui", "mcp", "fast"} <= set(extras)
    assert _closure(extras, "all") >= set(extras) - {"dev", "bench"}
    assert "all" in _closure(extras, "dev")  # the e5 path's tests run in CI instead of being skipped


def test_textual_and_its_snapshot_plugin_are_bounded_below_their_next_major() -> None:
    """The app and its tests use Textual's internals and its SVG output: a new major is a decision, not an upgrade."""
    extras = PYPROJECT["optional-dependencies"]
    textual = next(r for r in extras["tui"] if r.startswith("textual"))
    snapshot = next(r for r in extras["dev"] if r.startswith("pytest-textual-snapshot"))
    for requirement, package in ((textual, "textual"), (snapshot, "pytest-textual-snapshot")):
        bound = re.search(r"<(\d+)\b", requirement)
        assert bound, requirement
        assert int(version(package).split(".")[0]) < int(bound.group(1))


def test_wikimem_tui_without_the_tui_extra_names_the_extra_and_exits_1(tmp_path: Path) -> None:
    """The console script's entry point, run where textual cannot be imported (marked absent before it loads)."""
    (tmp_path / "wiki").mkdir()  # a memory directory, so only the missing extra can stop the app
    code = ("import sys; sys.modules['textual'] = None; "
            "from wikimem_tui.__main__ import main; sys.exit(main([sys.argv[1]]))")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                          timeout=SAFETY_NET, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1, proc.stderr
    assert "pip install 'wikimem[tui]'" in proc.stderr
    assert "textual" in proc.stderr and "Traceback" not in proc.stderr
