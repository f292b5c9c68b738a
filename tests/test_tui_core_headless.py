"""``wikimem_tui.core`` works without Textual: a script, a bench or another front end can use it.

Run in a fresh interpreter (this one has Textual loaded by other tests):
import every module under ``wikimem_tui/core/`` and look at what came in.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import wikimem_tui.core

from conftest import SAFETY_NET

CORE = Path(wikimem_tui.core.__file__).parent

PROBE = """
import importlib, json, pkgutil, sys
import wikimem_tui.core as core
names = sorted(f"wikimem_tui.core.{m.name}" for m in pkgutil.walk_packages(core.__path__))
for name in names:
    importlib.import_module(name)
gui = sorted(m for m in sys.modules if m.split(".")[0] == "textual")
print(json.dumps({"imported": names, "textual": gui}))
"""


def test_every_core_module_imports_without_textual() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=SAFETY_NET,
                          check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    on_disk = sorted(f"wikimem_tui.core.{p.stem}" for p in CORE.glob("*.py") if p.stem != "__init__")
    assert set(on_disk) <= set(seen["imported"])  # the walk saw every file, so the check below covers them
    assert {"wikimem_tui.core.backend", "wikimem_tui.core.catalogue", "wikimem_tui.core.writes"} <= set(on_disk)
    assert seen["textual"] == [], f"importing wikimem_tui.core pulled in {seen['textual'][:5]}"


def test_the_probe_sees_textual_when_a_module_imports_it() -> None:
    """The probe itself can fail: an import of Textual shows up in what it reports."""
    probe = PROBE.replace("for name in names:", "import textual.widgets\nfor name in names:")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=SAFETY_NET,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "textual.widgets" in json.loads(done.stdout)["textual"]
