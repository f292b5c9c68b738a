"""The app's shape (issue 9): no import circle through app.py, no reach into the App for the backend.

These read the source (``ast``), so they fail the moment someone adds the
import or the lookup back, whatever the tests of behaviour happen to cover.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "wikimem_tui"


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_only_main_imports_the_app_module() -> None:
    importers = [p.relative_to(PACKAGE).as_posix() for p in _modules()
                 if "wikimem_tui.app" in _imports(p) or "wikimem_tui.app.WikimemApp" in _imports(p)]
    assert importers == ["__main__.py"]


def test_the_flow_modules_are_gone() -> None:
    assert not (PACKAGE / "flows.py").exists() and not (PACKAGE / "flows_open.py").exists()


def test_no_widget_or_screen_fetches_the_backend_from_the_app() -> None:
    offenders = [p.relative_to(PACKAGE).as_posix() for p in _modules() if "app.backend" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_threads_are_textual_workers_not_asyncio_to_thread() -> None:
    offenders = [p.relative_to(PACKAGE).as_posix() for p in _modules() if "to_thread" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_only_the_backend_calls_the_stores_write_methods() -> None:
    writes = (".add(", ".remove(", ".move(", ".append(")
    offenders = []
    for path in _modules():
        if path.name == "backend.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                target = ast.unparse(node.func.value)
                if f".{node.func.attr}(" in writes and ("store" in target or "diary" in target):
                    offenders.append(f"{path.name}: {ast.unparse(node)[:60]}")
    assert offenders == []
