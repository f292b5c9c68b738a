"""The ``wikimem`` CLI: store resolution, ls, show, grep, graph and the process edge.

``explain`` has its own module (``test_cli_explain.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SAFETY_NET
from tests.test_cli_fixtures import run, store_dir  # noqa: F401 (store_dir is a fixture)
from wikimem import MemoryStore

REPO = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------- store choice


def test_store_option_before_the_command(store_dir: Path, capsys) -> None:
    assert run(capsys, "--store", str(store_dir), "ls")[0] == 0


def test_short_store_option(store_dir: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(store_dir), "ls")
    assert code == 0 and out.startswith("daily_life  1\n")


def test_store_option_is_also_accepted_after_the_command(store_dir: Path, capsys) -> None:
    code, out, _ = run(capsys, "ls", "-s", str(store_dir))
    assert code == 0 and "preferences  2" in out


def test_store_comes_from_the_environment(store_dir: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("WIKIMEM_STORE", str(store_dir))
    code, out, _ = run(capsys, "ls")
    assert code == 0 and "preferences  2" in out


def test_store_option_beats_the_environment(store_dir: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("WIKIMEM_STORE", str(tmp_path / "missing"))
    assert run(capsys, "-s", str(store_dir), "ls")[0] == 0


def test_store_defaults_to_the_current_directory(store_dir: Path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("WIKIMEM_STORE", raising=False)
    monkeypatch.chdir(store_dir)
    code, out, _ = run(capsys, "ls")
    assert code == 0 and "preferences  2" in out


def test_empty_environment_variable_falls_back_to_the_cwd(store_dir: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("WIKIMEM_STORE", "")
    monkeypatch.chdir(store_dir)
    assert "preferences  2" in run(capsys, "ls")[1]


def test_missing_store_is_exit_2_with_a_message(tmp_path: Path, capsys) -> None:
    code, out, err = run(capsys, "-s", str(tmp_path / "nope"), "ls")
    assert (code, out) == (2, "")
    assert "store directory not found" in err
    assert f"'wikimem init {tmp_path / 'nope'}' creates one" in err  # the way on, for a first import or append


def test_store_that_is_a_file_is_not_found(tmp_path: Path, capsys) -> None:
    (tmp_path / "file").write_text("x")
    code, _, err = run(capsys, "-s", str(tmp_path / "file"), "ls")
    assert code == 2 and "store directory not found" in err


def test_no_command_is_a_usage_error(store_dir: Path, capsys) -> None:
    code, _, err = run(capsys, "-s", str(store_dir))
    assert code == 2 and "usage:" in err


def test_unknown_command_is_a_usage_error(store_dir: Path, capsys) -> None:
    code, _, err = run(capsys, "-s", str(store_dir), "frobnicate")
    assert code == 2 and "invalid choice" in err


def test_help_exits_0(capsys) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "explain" in out


# ------------------------------------------------------------------------- ls


def test_ls_prints_file_and_count_separated_by_two_spaces(store_dir: Path, capsys) -> None:
    assert run(capsys, "-s", str(store_dir), "ls") == (0, "daily_life  1\npreferences  2\n", "")


def test_ls_on_an_empty_store_prints_nothing(tmp_path: Path, capsys) -> None:
    assert run(capsys, "-s", str(tmp_path), "ls") == (0, "", "")


def test_ls_counts_a_repeated_heading_once(tmp_path: Path, capsys) -> None:
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "notes.md").write_text("# notes\n\n## a\n\none\n\n## a\n\ntwo\n", encoding="utf-8")
    assert run(capsys, "-s", str(tmp_path), "ls")[1] == "notes  1\n"


# ----------------------------------------------------------------------- show


def test_show_file_prints_it_as_stored(store_dir: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(store_dir), "show", "preferences")
    on_disk = (store_dir / "wiki" / "preferences.md").read_text(encoding="utf-8")
    assert code == 0 and out == on_disk


def test_show_file_collapses_a_hand_edit_as_the_next_write_would(tmp_path: Path, capsys) -> None:
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "notes.md").write_text("## a\nold\n## a\nnew\n", encoding="utf-8")
    assert run(capsys, "-s", str(tmp_path), "show", "notes")[1] == "# notes\n\n## a\n\nnew\n"


def test_show_file_keeps_a_hand_written_preamble_like_the_writer(tmp_path: Path, capsys) -> None:
    (tmp_path / "wiki").mkdir()
    path = tmp_path / "wiki" / "notes.md"
    path.write_text("# My notes\nabout things\n\n## a\n\none\n", encoding="utf-8")
    shown = run(capsys, "-s", str(tmp_path), "show", "notes")[1]
    MemoryStore(tmp_path).add("notes", "a", "one")  # rewrites the file (metadata added)
    assert shown == "# My notes\nabout things\n\n## a\n\none\n"
    assert path.read_text(encoding="utf-8").startswith("# My notes\nabout things\n\n## a\n\none\n")


def test_show_item_uses_the_plain_title_even_with_a_preamble(tmp_path: Path, capsys) -> None:
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "notes.md").write_text("# My notes\n\n## a\n\none\n", encoding="utf-8")
    assert run(capsys, "-s", str(tmp_path), "show", "notes", "a")[1] == "# notes\n\n## a\n\none\n"


def test_show_item_prints_title_block_and_metadata(store_dir: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(store_dir), "show", "preferences", "likes-the-sea")
    assert code == 0
    assert out == (
        "# preferences\n\n## likes-the-sea\n\n"
        "喜欢海边，提到过想去海边玩。[[daily_life:beach-trip-plan]]\n\n"
        "<!-- wikimem: owner=user:xnne | source=conv_20260710 | ts=2026-07-10T03:00:00+00:00 -->\n"
    )


def test_show_item_name_is_whitespace_normalized(store_dir: Path, capsys) -> None:
    assert run(capsys, "-s", str(store_dir), "show", "preferences", "  coffee ")[0] == 0


def test_show_missing_item_is_exit_1(store_dir: Path, capsys) -> None:
    code, out, err = run(capsys, "-s", str(store_dir), "show", "preferences", "tea")
    assert (code, out) == (1, "") and err.startswith("no item")


def test_show_missing_file_is_exit_1(store_dir: Path, capsys) -> None:
    code, out, err = run(capsys, "-s", str(store_dir), "show", "nothing")
    assert (code, out) == (1, "") and err.startswith("no such file")


def test_show_a_diary_day(store_dir: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(store_dir), "show", "2026-07-22")
    assert code == 0
    assert out.startswith("# 2026-07-22\n\n## 06:10\n\n今天去海边散步")
    assert "## 21:00" in out


def test_show_one_diary_entry(store_dir: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(store_dir), "show", "2026-07-22", "21:00")
    assert code == 0 and "## 06:10" not in out and "## 21:00" in out


def test_show_makes_terminal_escapes_in_content_inert(tmp_path: Path, capsys) -> None:
    MemoryStore(tmp_path).add("evil", "x", "red \x1b[31mtext\x07 and\ttab")
    out = run(capsys, "-s", str(tmp_path), "show", "evil", "x")[1]
    assert "\x1b" not in out and "\x07" not in out
    assert "red \\x1b[31mtext\\x07 and\ttab" in out


# ----------------------------------------------------------------------- grep


def test_grep_prefixes_content_lines_with_file_and_name(store_dir: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(store_dir), "grep", "海边")
    assert code == 0
    assert out == (
        "daily_life:beach-trip-plan:计划夏天去海边旅行，看日出。\n"
        "preferences:likes-the-sea:喜欢海边，提到过想去海边玩。[[daily_life:beach-trip-plan]]\n"
    )


def test_grep_name_match_prints_the_heading(store_dir: Path, capsys) -> None:
    assert run(capsys, "-s", str(store_dir), "grep", "^cof")[1] == "preferences:coffee:## coffee\n"


def test_grep_is_case_sensitive_by_default(store_dir: Path, capsys) -> None:
    assert run(capsys, "-s", str(store_dir), "grep", "sunrise")[0] == 1


def test_grep_ignore_case(store_dir: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(store_dir), "grep", "sunrise", "-i")
    assert (code, out) == (0, "daily_life:beach-trip-plan:Sunrise at the beach.\n")


def test_grep_no_match_is_exit_1_and_silent(store_dir: Path, capsys) -> None:
    assert run(capsys, "-s", str(store_dir), "grep", "zzz") == (1, "", "")


def test_grep_bad_pattern_is_exit_2(store_dir: Path, capsys) -> None:
    code, out, err = run(capsys, "-s", str(store_dir), "grep", "(")
    assert (code, out) == (2, "") and err.startswith("bad pattern")


# ---------------------------------------------------------------------- graph


def test_graph_mermaid_layout(store_dir: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(store_dir), "graph")
    assert code == 0
    assert out.splitlines() == [
        "graph LR",
        'n0["daily_life:beach-trip-plan"]',
        'n1["preferences:likes-the-sea"]',
        'n2["preferences:coffee"]',
        'n3["work:old-job"]:::unresolved',
        "n1 --> n0",
        "n2 --> n3",
        "classDef unresolved stroke-dasharray: 5 5,stroke:#c33,color:#c33",
    ]


def test_graph_without_dangling_links_has_no_classdef(tmp_path: Path, capsys) -> None:
    MemoryStore(tmp_path).add("a", "x", "see [[a:y]]")
    MemoryStore(tmp_path).add("a", "y", "target")
    out = run(capsys, "-s", str(tmp_path), "graph")[1]
    assert ":::unresolved" not in out and "classDef" not in out


def test_graph_escapes_quotes_in_mermaid_labels(tmp_path: Path, capsys) -> None:
    MemoryStore(tmp_path).add("a", 'say "hi" <b>', "text")
    out = run(capsys, "-s", str(tmp_path), "graph")[1]
    assert 'n0["a:say #quot;hi#quot; #lt;b#gt;"]' in out


def test_graph_json(store_dir: Path, capsys) -> None:
    code, out, _ = run(capsys, "-s", str(store_dir), "graph", "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert data["nodes"][3] == {"id": "work:old-job", "file": "work", "name": "old-job", "unresolved": True}
    assert {"source": "preferences:likes-the-sea", "target": "daily_life:beach-trip-plan"} in data["edges"]
    assert len(data["nodes"]) == 4 and len(data["edges"]) == 2


def test_graph_json_keeps_chinese_readable(tmp_path: Path, capsys) -> None:
    MemoryStore(tmp_path).add("zh", "手冲咖啡", "只喝手冲咖啡")
    assert '"id": "zh:手冲咖啡"' in run(capsys, "-s", str(tmp_path), "graph", "--format", "json")[1]


def test_graph_of_an_empty_store(tmp_path: Path, capsys) -> None:
    assert run(capsys, "-s", str(tmp_path), "graph") == (0, "graph LR\n", "")


# ------------------------------------------------------------ process boundary


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This environment minus store/encoding overrides, with the repo importable."""
    env = {k: v for k, v in os.environ.items() if k not in ("WIKIMEM_STORE", "PYTHONIOENCODING")}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra or {})
    return env


def _cli(*args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "wikimem", *args], capture_output=True,
                          env=_env(env_extra), timeout=SAFETY_NET)


def test_python_dash_m_runs_the_cli(store_dir: Path) -> None:
    proc = _cli("-s", str(store_dir), "ls")
    assert (proc.returncode, proc.stdout) == (0, b"daily_life  1\npreferences  2\n")


def test_python_dash_m_reports_exit_codes(tmp_path: Path) -> None:
    proc = _cli("-s", str(tmp_path / "missing"), "ls")
    assert proc.returncode == 2 and b"store directory not found" in proc.stderr


def test_chinese_prints_as_utf8_under_an_ascii_locale(store_dir: Path) -> None:
    proc = _cli("-s", str(store_dir), "grep", "海边",
                env_extra={"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "ascii", "PYTHONUTF8": "0"})
    assert proc.returncode == 0
    assert "计划夏天去海边旅行" in proc.stdout.decode("utf-8")


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("big", "lines", "\n".join(f"海边 line {i}" for i in range(20000)))
    proc = subprocess.Popen([sys.executable, "-m", "wikimem", "-s", str(tmp_path), "grep", "海边"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith("big:lines:海边".encode())
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=SAFETY_NET) == 0
    assert b"Traceback" not in stderr and b"BrokenPipe" not in stderr


def test_explain_without_embed_imports_no_optional_dependency(store_dir: Path) -> None:
    code = (
        "import sys\n"
        "from wikimem.cli import main\n"
        f"main(['-s', {str(store_dir)!r}, 'explain', 'coffee', '--no-jieba'])\n"
        "print(sorted(m for m in ('numpy', 'httpx', 'jieba', 'textual', 'wikimem.vectors')"
        " if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, env=_env(), timeout=SAFETY_NET)
    assert proc.stdout.decode().splitlines()[-1] == "[]"
