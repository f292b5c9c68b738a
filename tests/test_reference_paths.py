"""Every import path the reference library documents keeps working (SPEC §2, §6).

The project moved its own modules into subpackages (issue 14); the
reference's public modules stay where its documentation names them. Each
path is imported in a fresh interpreter, so one module's import cannot make
another's work by accident (a submodule imported earlier is an attribute
of its package).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAFETY_NET
from test_api_surface import SPEC_NAMES

REPO = Path(__file__).resolve().parents[1]

#: ``from MODULE import NAMES`` as the reference's documentation writes them.
REFERENCE_PATHS: list[tuple[str, list[str]]] = [
    ("wikimem", SPEC_NAMES),
    ("wikimem.retrieval", ["MemoryIndex", "RetrievalResult", "RetrievedItem"]),
    ("wikimem.store", ["MemoryStore"]),
    ("wikimem.diary", ["Diary"]),
    ("wikimem.journal", ["Journal"]),
    ("wikimem.links", ["WikiLink", "parse_wiki_links"]),
    ("wikimem.models", ["RecallItem", "DiaryItem", "TimeRange", "as_recall_item"]),
    ("wikimem.tokenize", ["tokenize", "est_tokens"]),
    ("wikimem.timeparse", ["parse_time_range"]),
    ("wikimem.memorize", ["memorize", "diary_tool", "handle_diary_tool", "DIARY_PROMPT",
                          "DIARY_TOOL_DESCRIPTION", "LLM"]),
    ("wikimem.vectors", ["HttpEmbedder", "VectorCache", "MemmapVectorIndex", "Embedder", "VectorIndex",
                         "content_hash", "model_id", "cache_mismatch"]),
    ("wikimem.cli", ["main"]),
]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=SAFETY_NET)


@pytest.mark.parametrize(("module", "names"), REFERENCE_PATHS, ids=[m for m, _ in REFERENCE_PATHS])
def test_a_documented_path_imports(module: str, names: list[str]) -> None:
    if module == "wikimem.vectors":
        pytest.importorskip("numpy")  # the embedding extra
    done = _run("-c", f"from {module} import {', '.join(names)}\nprint('ok')")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_reference_names_are_the_same_objects_as_the_package_faces() -> None:
    import wikimem  # noqa: PLC0415
    import wikimem.models  # noqa: PLC0415
    import wikimem.retrieval  # noqa: PLC0415

    assert wikimem.retrieval.RetrievedItem is wikimem.models.RetrievedItem is wikimem.RetrievedItem
    assert wikimem.retrieval.RetrievalResult is wikimem.RetrievalResult
    assert wikimem.retrieval.MemoryIndex is wikimem.MemoryIndex


def test_python_dash_m_wikimem_is_the_cli() -> None:
    done = _run("-m", "wikimem", "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: wikimem")
    assert "lint" in done.stdout and "explain" in done.stdout


def test_the_console_script_points_at_wikimem_cli_main() -> None:
    import tomllib  # noqa: PLC0415

    from wikimem.cli import main  # noqa: PLC0415

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]
    assert scripts["wikimem"] == "wikimem.cli:main"
    assert callable(main)
