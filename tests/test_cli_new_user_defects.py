"""What a new user met at the command line: hidden characters raw in ``show``, a JSON field missing, a lint message wrong.

Each test here failed before its fix.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import SAFETY_NET
from test_cli_write import mem, run  # noqa: F401  (mem: the fixture)
from wikimem import MemoryStore
from wikimem.cli.io import neutralize
from wikimem_tui.common.safe import clean

#: Bidi overrides and isolates, zero-width characters, the BOM and the word joiner.
HIDDEN = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f\ufeff\u2060"


def test_show_writes_bidi_overrides_and_zero_width_characters_as_escapes(mem: Path, capsys) -> None:  # noqa: F811
    content = "invoice for \u202egpj.exe\u202c and pay\u200bpal, \ufeffBOM, \u2066isolate\u2069"
    MemoryStore(mem).add("notes", "tricky", content)
    code, out, _ = run(capsys, "-s", str(mem), "show", "notes", "tricky")
    assert code == 0
    assert not any(char in out for char in HIDDEN), ascii(out)
    assert "\\u202egpj.exe\\u202c" in out and "pay\\u200bpal" in out and "\\ufeffBOM" in out


def test_json_output_keeps_the_exact_characters(mem: Path, capsys) -> None:  # noqa: F811
    content = "a \u202eb\u200bc"
    MemoryStore(mem).add("notes", "tricky", content)
    code, out, _ = run(capsys, "-s", str(mem), "show", "notes", "tricky", "--json")
    assert code == 0 and json.loads(out)["items"][0]["content"] == content


@pytest.mark.parametrize("text", [
    "plain", "中文 and emoji 👩\u200d💻", "pay\u200dpal", "\x1b[31mred\x07", "x\u202ey", "\u200b", "a\ufeffb",
    "tag\U000e0041", "soft\xadhyphen", "\u2028line", "فار\u200cسی",
])
def test_the_cli_and_the_app_hide_the_same_characters(text: str) -> None:
    """One rule: a character the app shows as an escape is one the CLI escapes, and no other."""
    cli, app = neutralize(text), clean(text)
    assert (cli == text) == (app == text)
    assert {char for char in text if char in cli} == {char for char in text if char in app}


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, identity: bool) -> None:
    """git's configuration is the test's own: an identity in a global file of its own, or none at all."""
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = New User\n\temail = new@example.invalid\n" if identity else "")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(var, raising=False)


@needs_git
def test_init_git_makes_the_first_commit_so_history_starts_at_once(tmp_path: Path, monkeypatch, capsys) -> None:
    _git_env(monkeypatch, tmp_path, identity=True)
    root = tmp_path / "memory"
    code, out, _ = run(capsys, "init", str(root), "--git")
    assert code == 0 and "first commit:" in out
    log = subprocess.run(["git", "-C", str(root), "log", "--format=%an %s", "--name-only"], capture_output=True,
                         text=True, check=True, timeout=SAFETY_NET).stdout
    assert log.startswith("New User wikimem init") and ".gitignore" in log and "journal.jsonl" in log


@needs_git
def test_init_git_without_an_identity_says_so_and_still_succeeds(tmp_path: Path, monkeypatch, capsys) -> None:
    _git_env(monkeypatch, tmp_path, identity=False)
    root = tmp_path / "memory"
    code, out, _ = run(capsys, "init", str(root), "--git", "--json")
    info = json.loads(out)["git"]
    assert code == 0 and info["commit"] is None and "user.name" in info["note"]
    assert (root / ".git").is_dir() and (root / "wiki").is_dir()


@pytest.mark.parametrize("argv", [["lint", "--json"], ["graph", "--json"], ["capture", "claude-code", "--json"]])
def test_every_json_verb_says_ok(mem: Path, argv: list[str], tmp_path: Path, capsys) -> None:  # noqa: F811
    if argv[0] == "capture":
        empty = tmp_path / "sessions"
        empty.mkdir()
        argv = ["capture", "claude-code", str(empty), "--json"]
    _code, out, err = run(capsys, "-s", str(mem), *argv)
    assert json.loads(out)["ok"] is True, err


def test_invalid_utf8_says_the_write_to_its_block_is_refused(mem: Path, capsys) -> None:  # noqa: F811
    path = mem / "wiki" / "notes.md"
    MemoryStore(mem).add("notes", "tea", "Jasmine.")
    path.write_bytes(path.read_bytes().replace(b"Jasmine", b"Jasm\xffne"))
    code, _, err = run(capsys, "-s", str(mem), "add", "notes", "tea", "Green.", "--expected", "Jasm\ufffdne.")
    assert code == 2 and b"\xff" in path.read_bytes()  # refused: the bytes stay
    _code, out, _ = run(capsys, "-s", str(mem), "lint")
    line = next(line for line in out.splitlines() if "invalid-utf8" in line)
    assert "refused" in line and "the next write replaces" not in line


def test_a_folder_inside_wiki_is_reported_not_silently_ignored(mem: Path, capsys) -> None:  # noqa: F811
    (mem / "wiki" / "sub").mkdir()
    (mem / "wiki" / "sub" / "notes.md").write_text("# notes\n\n## tea\n\nJasmine.\n", "utf-8")
    _code, out, _ = run(capsys, "-s", str(mem), "lint", "--json")
    found = [f for f in json.loads(out)["findings"] if f["code"] == "nested-file-ignored"]
    assert len(found) == 1 and found[0]["location"]["path"] == "wiki/sub/" and "notes.md" in found[0]["message"]
