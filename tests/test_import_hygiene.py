"""Import hygiene (SPEC §2, STYLE.md): the core is importable without its extras.

``import wikimem`` must never import textual, numpy, httpx or jieba, and
``wikimem.vectors`` is not re-exported. Each check runs in a fresh
interpreter, because this test process has long since imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAFETY_NET
from test_api_surface import SPEC_NAMES  # the SPEC's list of top-level names

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("textual", "rich", "numpy", "httpx", "jieba", "snowballstemmer", "Stemmer", "wikimem.vectors", "mcp")



def loaded_after(code: str) -> list[str]:
    """Run ``code`` in a fresh interpreter; which heavy modules did it load?"""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=SAFETY_NET
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_wikimem_loads_no_optional_dependency() -> None:
    assert loaded_after("import wikimem") == []


@pytest.mark.parametrize("module", ["disk.blocks", "disk.names", "links", "models", "journal", "store", "diary"])
def test_storage_modules_load_no_optional_dependency(module: str) -> None:
    assert loaded_after(f"import wikimem.{module}") == []


def test_using_the_storage_layer_loads_no_optional_dependency(tmp_path: Path) -> None:
    code = (
        "from wikimem import MemoryStore\n"
        f"store = MemoryStore({str(tmp_path)!r})\n"
        "store.add('notes', '中文 item', '内容 [[a:b]]')\n"
        "store.diary.append('event', tz='UTC')\n"
        "store.items(); store.journal.entries()\n"
    )
    assert loaded_after(code) == []


def test_star_import_works_and_binds_every_spec_name() -> None:
    code = (
        "from wikimem import *\n"
        f"missing = [n for n in {SPEC_NAMES!r} if n not in globals()]\n"
        "assert not missing, missing\n"
    )
    assert "wikimem.vectors" not in loaded_after(code)


def test_star_import_loads_no_ui_or_embedding_dependency() -> None:
    assert set(loaded_after("from wikimem import *")).isdisjoint({"textual", "rich", "numpy", "httpx"})


def test_vectors_is_not_re_exported() -> None:
    code = (
        "import wikimem\n"
        "assert 'vectors' not in wikimem.__all__\n"
        "assert not hasattr(wikimem, 'vectors')\n"
        "from wikimem import *\n"
        "assert 'vectors' not in globals() and 'HttpEmbedder' not in globals()\n"
    )
    assert "wikimem.vectors" not in loaded_after(code)


def test_the_stemmer_is_loaded_by_the_first_index_build_not_before(tmp_path: Path) -> None:
    pytest.importorskip("snowballstemmer")
    setup = (
        "from wikimem import MemoryIndex, MemoryStore\n"
        f"store = MemoryStore({str(tmp_path)!r})\n"
        "store.add('notes', 'jog', 'she runs')\n"
        "index = MemoryIndex(store, use_jieba=False, analyzer='en')\n"
    )
    assert "snowballstemmer" not in loaded_after(setup)
    assert "snowballstemmer" in loaded_after(setup + "assert index.retrieve('running').items\n")
