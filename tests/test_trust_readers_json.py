"""Tolerant readers stay tolerant of hostile JSON: deep nesting is "not JSON", never RecursionError.

``json.loads`` raises ``RecursionError`` (not ``ValueError``) on a thousand
``[``; every reader of untrusted text goes through ``wikimem.disk.tolerant``.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from wikimem import MemoryStore, handle_diary_tool, memorize
from wikimem.disk.baseline import load_baseline
from wikimem.lint import lint
from wikimem.memorize import parse_diary_entries
from wikimem.disk.reviewed import damage, load_dismissed
from wikimem.disk.tolerant import loads_tolerant, parse_json

DEEP = "[" * 100_000
DEEP_OBJECT = '{"a":' * 100_000


class _Reply:
    def __init__(self, text: str) -> None:
        self.text = text

    def chat(self, messages: object) -> str:
        return self.text


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    store.add("notes", "a", "hello")
    return store


def codes(root: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for finding in lint(root).findings:
        out.setdefault(finding.code, []).append(finding.message)
    return out


@pytest.mark.parametrize("text", [DEEP, DEEP_OBJECT, "]" * 10, "1" * 5000], ids=["array", "object", "close", "digits"])
def test_parse_json_raises_value_error_only(text: str) -> None:
    with pytest.raises(ValueError):
        parse_json(text)
    assert loads_tolerant(text, "dflt") == "dflt"


@pytest.mark.parametrize("reply", [DEEP, f"```json\n{DEEP}\n```", DEEP_OBJECT], ids=["array", "fenced", "object"])
def test_memorize_with_a_deeply_nested_reply_appends_nothing(store: MemoryStore, reply: str) -> None:
    assert parse_diary_entries(reply) == []
    assert memorize(store.diary, "hi", llm=_Reply(reply)) == []
    assert store.diary.dates() == []


def test_diary_tool_call_with_deep_nesting_is_a_value_error(store: MemoryStore) -> None:
    with pytest.raises(ValueError, match="not valid JSON"):
        handle_diary_tool(store.diary, DEEP)


def test_journal_entries_skip_a_deeply_nested_line(store: MemoryStore) -> None:
    with open(store.journal.path, "a", encoding="utf-8") as fh:
        fh.write(DEEP + "\n")
    store.add("notes", "b", "after")
    assert [e.get("item") for e in store.journal.entries()] == ["a", "b"]


@pytest.mark.parametrize("torn", [False, True])
def test_lint_reports_a_deeply_nested_journal_line(store: MemoryStore, torn: bool) -> None:
    with open(store.journal.path, "a", encoding="utf-8") as fh:
        fh.write(DEEP + ("" if torn else "\n"))
    found = codes(store.root)
    assert len(found["journal-bad-line"]) == 1


def test_lint_reports_a_deeply_nested_baseline_as_damaged(store: MemoryStore) -> None:
    (store.root / "lint-baseline.json").write_text(DEEP, encoding="utf-8")
    assert load_baseline(store.root).damaged
    assert any("lint-baseline.json" in m for m in codes(store.root)["drift"])


def test_a_deeply_nested_reviewed_file_is_damaged_not_a_crash(store: MemoryStore) -> None:
    (store.root / "reviewed.json").write_text(DEEP, encoding="utf-8")
    assert damage(store.root) is not None
    assert load_dismissed(store.root) == []
    assert "reviewed-damaged" in codes(store.root)


@pytest.mark.parametrize("header_first", [True, False])
def test_vector_cache_keys_with_deep_nesting_are_a_torn_cache(store: MemoryStore, header_first: bool) -> None:
    pytest.importorskip("numpy")
    from wikimem.vectors import VectorCache

    header = json.dumps({"vectors_file": "vectors-000001.npy", "dim": 2})
    lines = [header, DEEP] if header_first else [DEEP]
    (store.root / "vectors.keys.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert VectorCache(store.root).load() == ([], None)
    assert VectorCache(store.root).header() == {}
    assert "vector-cache-torn" in codes(store.root)


def _npy(path: Path, header: bytes) -> None:
    header += b" " * ((64 - (10 + len(header) + 1) % 64) % 64) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + b"\0" * 64)


@pytest.mark.parametrize("header", [b"-" * 9000 + b"1", b"(" * 5000,
                                    b"{'descr': '<f4', 'fortran_order': False, 'shape': (" + b"-" * 8000 + b"1, 2)}"],
                         ids=["unary", "parens", "shape"])
def test_a_hostile_npy_header_is_a_torn_cache(store: MemoryStore, header: bytes) -> None:
    pytest.importorskip("numpy")
    from wikimem.vectors import VectorCache

    keys = [json.dumps({"vectors_file": "vectors-000001.npy", "dim": 2}),
            json.dumps({"file": "notes", "name": "a", "hash": "0" * 64})]
    (store.root / "vectors.keys.jsonl").write_text("\n".join(keys) + "\n", encoding="utf-8")
    _npy(store.root / "vectors-000001.npy", header)
    assert VectorCache(store.root).load() == ([], None)
    assert "vector-cache-torn" in codes(store.root)
