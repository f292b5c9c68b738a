"""The type check is part of CI (issue 14): configured, run before the suite, and not switched off.

mypy itself runs in ``.ci/run`` (about 40 s on the library), not here;
these tests keep that step, its configuration and the code honest.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_README_TEST_LINE = re.compile(r"^python3 -m venv \.venv && .*pytest -q$", re.M)


def test_ci_type_checks_the_library_then_runs_exactly_the_readmes_test_line() -> None:
    ci = [line for line in (REPO / ".ci/run").read_text("utf-8").splitlines() if line and not line.startswith("#")]
    (readme_line,) = _README_TEST_LINE.findall((REPO / "README.md").read_text("utf-8"))
    assert ci[-1] == readme_line
    mypy = [i for i, line in enumerate(ci) if ".venv/bin/python -m mypy" in line]
    assert mypy and mypy[0] < len(ci) - 1


def test_mypy_is_configured_strict_on_the_library_and_installed_by_dev() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    config = project["tool"]["mypy"]
    assert config["strict"] is True and "wikimem" in config["files"]
    assert not config.get("ignore_errors") and not config.get("ignore_missing_imports")
    for override in config.get("overrides", []):
        assert not override.get("ignore_errors"), override
        assert all(not m.startswith("wikimem") for m in override["module"]), override
    assert any(dep.startswith("mypy") for dep in project["project"]["optional-dependencies"]["dev"])


def test_no_blanket_type_ignores_in_the_library() -> None:
    blanket = re.compile(r"#\s*type:\s*ignore(?!\[)")
    found = [f"{path.relative_to(REPO)}:{n}" for path in sorted((REPO / "wikimem").rglob("*.py"))
             for n, line in enumerate(path.read_text("utf-8").splitlines(), 1) if blanket.search(line)]
    assert found == []
    assert not any("# mypy: ignore-errors" in p.read_text("utf-8") for p in (REPO / "wikimem").rglob("*.py"))


def test_the_app_is_type_checked_too_without_blanket_ignores() -> None:
    """wikimem_tui/ is in the same strict check (issue 14: the app's half, clean when it was added)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["mypy"]
    assert "wikimem_tui" in config["files"]
    blanket = re.compile(r"#\s*type:\s*ignore(?!\[)")
    found = [f"{path.relative_to(REPO)}:{n}" for path in sorted((REPO / "wikimem_tui").rglob("*.py"))
             for n, line in enumerate(path.read_text("utf-8").splitlines(), 1) if blanket.search(line)]
    assert found == []
    assert not any("# mypy: ignore-errors" in p.read_text("utf-8") for p in (REPO / "wikimem_tui").rglob("*.py"))
