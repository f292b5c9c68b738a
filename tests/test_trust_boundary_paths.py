"""Paths named inside a memory (the lint baseline, evidence lines) never lead a read out of it."""

from __future__ import annotations

import json
from pathlib import Path

from wikimem import MemoryStore
from wikimem.disk.baseline import BASELINE_FILE, load_baseline


def _memory(tmp_path: Path) -> tuple[Path, Path]:
    memory, outside = tmp_path / "memory", tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("## key\nthe outside file\n")
    MemoryStore(memory).add("notes", "a", "first")
    return memory, outside


def test_baseline_keys_outside_the_memory_are_dropped_not_carried(tmp_path: Path) -> None:
    from wikimem.lint.drift import accept_current_state

    memory, outside = _memory(tmp_path)
    planted = {"version": 1, "files": {
        "../outside/secret.md": {"sha256": None, "accepted": "2026-01-01T00:00:00+00:00", "by": "lint"},
        str(outside / "secret.md"): {"sha256": None, "accepted": "2026-01-01T00:00:00+00:00", "by": "lint"},
        "wiki/notes.md": {"sha256": "0" * 64, "accepted": "2026-01-01T00:00:00+00:00", "by": "lint"}}}
    (memory / BASELINE_FILE).write_text(json.dumps(planted))
    assert set(load_baseline(memory).files) == {"wiki/notes.md"}
    accept_current_state(memory)
    assert set(json.loads((memory / BASELINE_FILE).read_text())["files"]) == {"wiki/notes.md"}


def test_an_evidence_line_cannot_cite_a_file_outside(tmp_path: Path) -> None:
    from wikimem.lint import lint

    memory, _ = _memory(tmp_path)
    store = MemoryStore(memory)
    store.add("notes", "claim", "A claim.\n(evidence: [[../outside/secret:key]])")
    assert store.get("../outside/secret", "key") is None
    findings = [f for f in lint(memory).findings if f.location.item == "claim"]
    assert any(f.code in ("evidence-missing", "evidence-malformed") for f in findings), findings
