"""``wikimem recall`` (the agent text, hooks) and ``--json`` on every verb: always one valid JSON document."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from wikimem import DERIVED_MARKER, MemoryIndex, MemoryStore, agent_text
from test_cli_write import run

TS = "2026-07-20T09:00:00+00:00"


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    store = MemoryStore(root)
    store.add("people", "Alice", "Likes jasmine tea. See [[people:Bob]].", owner="agent", ts=TS)
    store.add("people", "Bob", "Drinks coffee.", ts=TS)
    store.diary.append("Tea with [[people:Alice]].", date="2026-07-20", time="15:00", ts=TS)
    return root


def test_recall_prints_the_librarys_agent_text(mem: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(mem), "recall", "jasmine tea")
    assert code == 0
    # The agent's surfaces search the whole diary (search_diary=True).
    assert out == agent_text(MemoryIndex(MemoryStore(mem)).retrieve("jasmine tea", budget_tokens=800, search_diary=True))
    assert out.startswith("## people:Alice\n") and "## people:Bob (linked from Alice)" in out
    assert "## diary 2026-07-20 15:00\nTea with [[people:Alice]]." in out
    assert out.endswith(f"\n{DERIVED_MARKER}\n")


def test_recall_nothing_is_exit_1_with_an_empty_stdout(mem: Path, capsys) -> None:
    code, out, err = run(capsys, "-s", str(mem), "recall", "zebra")
    assert (code, out) == (1, "") and "nothing recalled" in err


def test_recall_budget_limit_and_time_range(mem: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(mem), "recall", "tea", "--time-range", "2026-07-20", "--json")
    doc = json.loads(out)
    assert code == 0 and "diary 2026-07-20 15:00" in [row["label"] for row in doc["items"]]
    code, out, _ = run(capsys, "-s", str(mem), "recall", "jasmine tea", "--budget", "0", "--json")
    assert [row["name"] for row in json.loads(out)["items"]] == ["Alice"]
    code, out, err = run(capsys, "-s", str(mem), "recall", "tea", "--time-range", "someday", "--json")
    assert code == 2 and json.loads(out)["error"] == "bad_input" and "bad --time-range" in err


def test_recall_from_a_hook_reads_the_prompt(mem: Path, capsys, monkeypatch) -> None:
    hook = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "what tea?"})
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(hook.encode())))
    code, out, _ = run(capsys, "-s", str(mem), "recall", "--from-hook")
    assert code == 0 and out.startswith("## people:Alice\n")


@pytest.mark.parametrize("stdin", [b"not json", b'{"prompt": 3}', b"\xff\xfe", b"[]"])
def test_recall_from_a_broken_hook_input_fails_open(mem: Path, capsys, monkeypatch, stdin: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code, out, err = run(capsys, "-s", str(mem), "recall", "--from-hook", "--fail-open")
    assert (code, out) == (0, "") and "fail-open" in err


def test_recall_without_fail_open_reports_a_broken_hook_input(mem: Path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"nope")))
    assert run(capsys, "-s", str(mem), "recall", "--from-hook")[0] == 2


def test_recall_needs_a_query_or_the_hook(mem: Path, capsys) -> None:
    assert run(capsys, "-s", str(mem), "recall")[0] == 2


def test_recall_writes_no_file(mem: Path, capsys) -> None:
    before = sorted(p.relative_to(mem).as_posix() for p in mem.rglob("*"))
    run(capsys, "-s", str(mem), "recall", "tea")
    assert sorted(p.relative_to(mem).as_posix() for p in mem.rglob("*")) == before


@pytest.mark.parametrize("argv", [
    ["ls"], ["show", "people"], ["show", "people", "Alice"], ["show", "2026-07-20"], ["show", "2026-07-20", "15:00"],
    ["grep", "tea", "-i"], ["explain", "tea"], ["explain", "tea", "--why", "people:Bob"], ["graph"], ["lint"],
    ["recall", "tea"], ["add", "x", "y", "--content", "z"], ["diary", "append", "an event"],
    ["remove", "people", "Bob"], ["move", "people", "Alice", "--to", "friends"],
    # failures answer with JSON too
    ["show", "nowhere"], ["show", "people", "Nobody"], ["grep", "(unclosed"], ["explain", "zebra"],
    ["remove", "people", "Nobody"], ["add", "Bad Name", "y", "--content", "z"], ["add", "people"],
])
def test_every_verb_prints_one_json_document(mem: Path, capsys, argv: list[str]) -> None:
    code, out, _ = run(capsys, "-s", str(mem), *argv, "--json")
    doc = json.loads(out)
    assert isinstance(doc, dict)
    if code == 0:
        assert doc.get("ok", True) is True
    elif doc.get("ok") is True:  # a search that found nothing: the (empty) answer, exit 1
        assert code == 1 and not (doc.get("items") or doc.get("matches"))
    else:
        assert doc["ok"] is False and doc["message"]


def test_show_json_is_the_items_as_stored(mem: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(mem), "show", "people", "Alice", "--json")
    assert json.loads(out)["items"] == [{"file": "people", "name": "Alice", "content": "Likes jasmine tea. See "
                                         "[[people:Bob]].", "owner": "agent", "source_conv": None, "ts": TS}]


def test_grep_json_names_field_and_line(mem: Path, capsys) -> None:
    MemoryStore(mem).add("notes", "multi", "first line\nsecond tea line")
    code, out, _ = run(capsys, "-s", str(mem), "grep", "tea", "--json")
    matches = json.loads(out)["matches"]
    assert {"file": "notes", "name": "multi", "field": "content", "line": 2, "text": "second tea line"} in matches


def test_explain_json_carries_every_score(mem: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(mem), "explain", "jasmine", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["query_tokens"] and doc["items"][0]["bm25"] > 0
    assert doc["items"][1]["source"] == "link" and doc["items"][1]["via"] == "Alice"


def test_graph_json_is_the_format_json_document(mem: Path, capsys) -> None:
    _, as_json, _ = run(capsys, "-s", str(mem), "graph", "--json")
    _, as_format, _ = run(capsys, "-s", str(mem), "graph", "--format", "json")
    # --json carries the "ok" every verb's --json has; --format json is the reference's document as it is.
    assert json.loads(as_json) == {"ok": True, **json.loads(as_format)}
    assert "ok" not in json.loads(as_format)
