"""The CLI write verbs (issue 15): add, remove, move, diary append -- bytes on disk and exit codes.

Exit codes: 0 done, 1 not found, 2 bad input or store error, 3 conflict
(current content on stderr, nothing written). ``--json`` prints one JSON
document whatever happens, memory text byte-exact.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SAFETY_NET
from wikimem import MemoryStore
from wikimem.cli import main

REPO = Path(__file__).resolve().parents[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    store = MemoryStore(root)
    store.add("people", "Alice", "Colleague. Likes [[people:Bob]].", owner="agent", ts="2026-07-20T09:00:00+00:00")
    store.add("people", "Bob", "Drinks coffee.", ts="2026-07-20T09:00:00+00:00")
    return root


def tree(root: Path) -> dict[str, bytes]:
    """Every memory file's bytes (the lock excluded: it holds nothing)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".wikimem.lock"}


def test_add_writes_the_block_and_one_journal_line(mem: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(mem), "add", "notes", "tea", "--content", "Jasmine.", "--owner", "agent:x",
                       "--source", "conv-1")
    assert (code, out) == (0, "wrote notes:tea\n")
    text = (mem / "wiki" / "notes.md").read_text("utf-8")
    assert text.startswith("# notes\n\n## tea\n\nJasmine.\n\n<!-- wikimem: owner=agent:x | source=conv-1 | ts=")
    last = json.loads((mem / "journal.jsonl").read_text("utf-8").splitlines()[-1])
    assert (last["action"], last["file"], last["item"], last["owner"], last["source_conv"]) == (
        "add", "notes", "tea", "agent:x", "conv-1")


def test_add_with_the_content_last_read_replaces_it(mem: Path, capsys) -> None:
    code, _, _ = run(capsys, "-s", str(mem), "add", "people", "Bob", "--content", "Drinks tea now.",
                     "--expected", "Drinks coffee.")
    assert code == 0
    assert MemoryStore(mem).get("people", "Bob").content == "Drinks tea now."


def test_a_stale_expected_is_exit_3_with_the_current_content_on_stderr_and_nothing_written(mem: Path, capsys) -> None:
    before = tree(mem)
    code, out, err = run(capsys, "-s", str(mem), "add", "people", "Bob", "--content", "x", "--expected", "stale")
    assert code == 3 and out == ""
    assert "conflict" in err and "Drinks coffee." in err
    assert tree(mem) == before


def test_new_refuses_an_existing_item_with_exit_3(mem: Path, capsys) -> None:
    before = tree(mem)
    code, out, err = run(capsys, "-s", str(mem), "add", "people", "Alice", "--content", "x", "--new", "--json")
    assert code == 3
    doc = json.loads(out)
    assert doc["ok"] is False and doc["error"] == "conflict"
    assert doc["current"] == "Colleague. Likes [[people:Bob]]."
    assert tree(mem) == before


def test_expected_file_and_content_file_from_stdin(mem: Path, capsys, monkeypatch, tmp_path: Path) -> None:
    expected = tmp_path / "expected.txt"
    expected.write_bytes(b"Drinks coffee.\n")  # a read's trailing newline is no conflict
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("中文 内容\nline 2".encode())))
    code, _, err = run(capsys, "-s", str(mem), "add", "people", "Bob", "--content-file", "-",
                       "--expected-file", str(expected))
    assert code == 0, err
    assert MemoryStore(mem).get("people", "Bob").content == "中文 内容\nline 2"


def test_content_file_that_is_not_utf8_is_refused(mem: Path, capsys, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("café".encode("latin-1"))
    before = tree(mem)
    code, _, err = run(capsys, "-s", str(mem), "add", "people", "Carol", "--content-file", str(bad))
    assert code == 2 and "not UTF-8" in err
    assert tree(mem) == before


@pytest.mark.parametrize("file,name,content", [
    ("Bad File", "x", "y"),           # invalid RecallFile name
    ("people", "a:b", "y"),           # invalid item name
    ("people", "bell\x07", "y"),      # a control character in a name
    ("people", "Carol", "## heading\nbody"),  # content that would start a block
    ("people", "Carol", "   "),       # empty content
])
def test_bad_input_is_exit_2_and_writes_nothing(mem: Path, capsys, file: str, name: str, content: str) -> None:
    before = tree(mem)
    code, out, err = run(capsys, "-s", str(mem), "add", file, name, "--content", content, "--json")
    assert code == 2
    doc = json.loads(out)
    assert doc == {"ok": False, "error": "bad_input", "message": doc["message"]} and doc["message"]
    assert tree(mem) == before


def test_remove_deletes_and_a_missing_item_is_exit_1(mem: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(mem), "remove", "people", "Bob", "--expected", "Drinks coffee.")
    assert (code, out) == (0, "removed people:Bob\n")
    assert MemoryStore(mem).get("people", "Bob") is None
    code, out, err = run(capsys, "-s", str(mem), "remove", "people", "Bob", "--json")
    assert code == 1 and json.loads(out)["error"] == "not_found" and "no item" in err


def test_remove_with_a_stale_expected_is_exit_3(mem: Path, capsys) -> None:
    before = tree(mem)
    code, _, err = run(capsys, "-s", str(mem), "remove", "people", "Bob", "--expected", "old text")
    assert code == 3 and "Drinks coffee." in err
    assert tree(mem) == before


def test_move_to_another_file_rewrites_links_when_asked(mem: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(mem), "move", "people", "Bob", "--to", "friends:Bobby", "--rewrite-links")
    assert (code, out) == (0, "moved people:Bob to friends:Bobby\n")
    store = MemoryStore(mem)
    assert store.get("friends", "Bobby").content == "Drinks coffee."
    assert store.get("people", "Alice").content == "Colleague. Likes [[friends:Bobby]]."


def test_move_without_rewrite_links_leaves_links_alone(mem: Path, capsys) -> None:
    assert run(capsys, "-s", str(mem), "move", "people", "Bob", "--to", "friends")[0] == 0
    store = MemoryStore(mem)
    assert store.get("friends", "Bob") is not None
    assert store.get("people", "Alice").content == "Colleague. Likes [[people:Bob]]."


def test_move_of_a_missing_item_is_exit_1_and_onto_an_existing_one_exit_2(mem: Path, capsys) -> None:
    assert run(capsys, "-s", str(mem), "move", "people", "Nobody", "--to", "friends")[0] == 1
    before = tree(mem)
    code, _, err = run(capsys, "-s", str(mem), "move", "people", "Bob", "--to", "people:Alice")
    assert code == 2 and "already exists" in err
    assert tree(mem) == before


def test_diary_append_writes_the_entry_and_reports_its_id(mem: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(mem), "diary", "append", "Met Bob.", "--date", "2026-07-21",
                       "--time", "14:30", "--owner", "agent:x", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["entry"]["date"] == "2026-07-21" and doc["entry"]["entry"] == "14:30"
    code, out, _ = run(capsys, "-s", str(mem), "diary", "append", "Again.", "--date", "2026-07-21", "--time", "14:30")
    assert (code, out) == (0, "appended diary 2026-07-21 14:30#2\n")
    text = (mem / "diary" / "2026-07-21.md").read_text("utf-8")
    assert text.count("## 14:30\n") == 2 and "Met Bob." in text


def test_diary_append_for_another_day_is_dated_then(mem: Path, capsys) -> None:
    import datetime as dt

    code, out, _ = run(capsys, "-s", str(mem), "diary", "append", "Dentist.", "--date", "2024-01-09",
                       "--time", "14:30", "--json")
    assert code == 0
    ts = json.loads(out)["entry"]["ts"]
    assert dt.datetime.fromisoformat(ts).astimezone().strftime("%Y-%m-%d %H:%M") == "2024-01-09 14:30"


def test_diary_append_with_a_bad_time_is_exit_2(mem: Path, capsys) -> None:
    before = tree(mem)
    assert run(capsys, "-s", str(mem), "diary", "append", "x", "--time", "25:00")[0] == 2
    assert tree(mem) == before


def test_json_keeps_memory_text_byte_exact(mem: Path, capsys) -> None:
    tricky = 'esc \x1b[31m bell \x07 del \x7f c1 \x9b quote " backslash \\u00zz \\n 中文 ✓'
    code, out, _ = run(capsys, "-s", str(mem), "add", "notes", "tricky", "--content", tricky, "--json")
    assert code == 0
    assert json.loads(out)["item"]["content"] == tricky
    assert "\x1b" not in out and "\x07" not in out  # escaped as \\uXXXX, inert on a terminal
    code, out, _ = run(capsys, "-s", str(mem), "show", "notes", "tricky", "--json")
    assert code == 0 and json.loads(out)["items"][0]["content"] == tricky
    assert MemoryStore(mem).get("notes", "tricky").content == tricky


def test_text_output_neutralizes_control_characters(mem: Path, capsys) -> None:
    MemoryStore(mem).add("notes", "esc", "red \x1b[31m text")
    code, out, _ = run(capsys, "-s", str(mem), "recall", "red text")
    assert code == 0 and "\x1b" not in out and "\\x1b[31m" in out


def test_a_missing_store_is_exit_2_and_still_json(tmp_path: Path, capsys) -> None:
    code, out, err = run(capsys, "-s", str(tmp_path / "nope"), "add", "a", "b", "--content", "c", "--json")
    assert code == 2 and "store directory not found" in err
    assert json.loads(out)["error"] == "store_error"


def test_the_console_script_exits_with_the_conflict_code(mem: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "wikimem", "-s", str(mem), "add", "people", "Bob", "--content", "x",
                           "--new"], capture_output=True, text=True, encoding="utf-8", timeout=SAFETY_NET,
                          cwd=REPO)
    assert done.returncode == 3 and "Drinks coffee." in done.stderr and done.stdout == ""
