"""``wikimem install``: the agents' configs on a scratch home, in the shapes their documentation gives.

Every test runs with ``HOME`` (and ``CODEX_HOME``, ``XDG_CONFIG_HOME``)
pointing into a temporary directory, so no real config is touched.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

from wikimem.cli import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("APPDATA", str(home / "AppData"))
    return home


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    (root / "wiki").mkdir(parents=True)
    return root


def _install(store: Path, *argv: str) -> int:
    return main(["-s", str(store), "install", *argv])


def _backups(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.wikimem-backup-*"))


def _server_args(entry: dict[str, object], store: Path) -> None:
    args = entry["args"]
    assert isinstance(args, list) and args[-3:] == ["-s", str(store.resolve()), "mcp"]
    assert Path(str(entry["command"])).is_file()  # this Python's wikimem, or this Python with -m wikimem


def test_claude_code_gets_the_server_and_the_recall_and_capture_hooks(home: Path, store: Path) -> None:
    (home / ".claude.json").write_text(json.dumps({"numStartups": 4, "mcpServers": {"git": {"command": "g"}}}))
    assert _install(store, "claude-code") == 0
    config = json.loads((home / ".claude.json").read_text("utf-8"))
    assert config["numStartups"] == 4 and config["mcpServers"]["git"] == {"command": "g"}
    entry = config["mcpServers"]["wikimem"]
    assert entry["type"] == "stdio" and entry["env"] == {}
    _server_args(entry, store)
    settings = json.loads((home / ".claude" / "settings.json").read_text("utf-8"))
    hooks = settings["hooks"]
    assert set(hooks) == {"UserPromptSubmit", "Stop", "PreCompact"}
    for event, words in (("UserPromptSubmit", "recall --from-hook --fail-open"),
                         ("Stop", "capture claude-code --hook"), ("PreCompact", "capture claude-code --hook")):
        (group,) = hooks[event]
        (hook,) = group["hooks"]
        assert hook["type"] == "command" and isinstance(hook["timeout"], int)
        assert f"-s {store.resolve()} {words}" in hook["command"]
    assert len(_backups(home)) == 1  # ~/.claude.json existed; settings.json did not


def test_a_second_install_writes_nothing(home: Path, store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _install(store, "claude-code") == 0
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert _install(store, "claude-code") == 0
    assert "already installed" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file()} == before


def test_dry_run_prints_the_diff_and_writes_nothing(home: Path, store: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert _install(store, "cursor", "--dry-run") == 0
    out = capsys.readouterr().out
    assert f"+++ {home / '.cursor' / 'mcp.json'}" in out and '+    "wikimem": {' in out
    assert not any(home.rglob("*.json"))


def test_uninstall_removes_exactly_what_install_added(home: Path, store: Path) -> None:
    original = {"mcpServers": {"git": {"command": "g"}}, "theme": "dark"}
    (home / ".claude.json").write_text(json.dumps(original))
    (home / ".claude").mkdir()
    own_hooks = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}
    (home / ".claude" / "settings.json").write_text(json.dumps(own_hooks))
    assert _install(store, "claude-code") == 0
    assert len(json.loads((home / ".claude" / "settings.json").read_text())["hooks"]["Stop"]) == 2
    assert _install(store, "claude-code", "--uninstall") == 0
    assert json.loads((home / ".claude.json").read_text()) == original
    assert json.loads((home / ".claude" / "settings.json").read_text()) == own_hooks
    assert _install(store, "claude-code", "--uninstall") == 1  # nothing left to remove


def test_uninstall_refuses_an_entry_for_another_store(home: Path, store: Path, tmp_path: Path) -> None:
    assert _install(store, "cursor") == 0
    other = tmp_path / "other"
    (other / "wiki").mkdir(parents=True)
    before = (home / ".cursor" / "mcp.json").read_bytes()
    assert _install(other, "cursor", "--uninstall") == 2
    assert (home / ".cursor" / "mcp.json").read_bytes() == before


@pytest.mark.parametrize("text", ['{"mcpServers": {', '[1, 2]', '{"mcpServers": []}'])
def test_a_malformed_config_is_refused_and_left_alone(home: Path, store: Path, text: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (home / ".claude.json").write_text(text)
    assert _install(store, "claude-code") == 2
    assert "not changed" in capsys.readouterr().err
    assert (home / ".claude.json").read_text() == text
    assert not _backups(home)


CODEX = '''# my settings
model = "o3"  # the good one

[profiles.fast]
model = "gpt-5"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
'''


def test_codex_gets_a_table_and_keeps_the_rest_of_the_file_byte_for_byte(home: Path, store: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX, "utf-8")
    assert _install(store, "codex") == 0
    text = config.read_text("utf-8")
    assert text.startswith(CODEX)
    parsed = tomllib.loads(text)
    assert parsed["model"] == "o3" and parsed["mcp_servers"]["docs"]["command"] == "npx"
    _server_args(parsed["mcp_servers"]["wikimem"], store)
    assert set(parsed["mcp_servers"]["wikimem"]) == {"command", "args"}
    assert _install(store, "codex") == 0 and config.read_text("utf-8") == text
    assert _install(store, "codex", "--uninstall") == 0
    assert config.read_text("utf-8") == CODEX


def test_codex_home_is_honoured_and_a_table_in_the_middle_is_replaced_in_place(
        home: Path, store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    old = '[mcp_servers.wikimem]\ncommand = "wikimem"\nargs = ["-s", "/old", "mcp"]\n\n[tui]\nnotifications = true\n'
    (codex_home / "config.toml").write_text(old, "utf-8")
    assert _install(store, "codex") == 0
    text = (codex_home / "config.toml").read_text("utf-8")
    assert text.endswith("\n\n[tui]\nnotifications = true\n")
    assert tomllib.loads(text)["tui"] == {"notifications": True}
    assert str(store.resolve()) in tomllib.loads(text)["mcp_servers"]["wikimem"]["args"]


@pytest.mark.parametrize("text", ['model = "o3\n', 'mcp_servers = { wikimem = { command = "x" } }\n'])
def test_codex_refuses_a_file_it_cannot_edit_safely(home: Path, store: Path, text: str) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(text, "utf-8")
    assert _install(store, "codex") == 2
    assert config.read_text("utf-8") == text


def test_claude_desktop_and_a_config_override(home: Path, store: Path, tmp_path: Path) -> None:
    assert _install(store, "claude-desktop") == 0
    if sys.platform == "darwin":
        path = home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    elif sys.platform == "win32":
        path = home / "AppData" / "Claude" / "claude_desktop_config.json"
    else:
        path = home / ".config" / "Claude" / "claude_desktop_config.json"
    entry = json.loads(path.read_text("utf-8"))["mcpServers"]["wikimem"]
    assert set(entry) == {"command", "args"}
    _server_args(entry, store)
    custom = tmp_path / "elsewhere.json"
    assert _install(store, "claude-desktop", "--config", str(custom)) == 0
    assert "wikimem" in json.loads(custom.read_text("utf-8"))["mcpServers"]


def test_a_symlinked_config_is_edited_where_it_leads_and_stays_a_link(home: Path, store: Path,
                                                                      tmp_path: Path) -> None:
    # Dotfile managers keep agent configs in a repository and link them into $HOME: the edit belongs there.
    kept = tmp_path / "dotfiles" / "mcp.json"
    kept.parent.mkdir()
    kept.write_text(json.dumps({"mcpServers": {"git": {"command": "g"}}}), "utf-8")
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").symlink_to(kept)
    assert _install(store, "cursor") == 0
    assert (home / ".cursor" / "mcp.json").is_symlink()
    assert set(json.loads(kept.read_text("utf-8"))["mcpServers"]) == {"git", "wikimem"}
    assert _install(store, "cursor", "--uninstall") == 0
    assert (home / ".cursor" / "mcp.json").is_symlink()
    assert set(json.loads(kept.read_text("utf-8"))["mcpServers"]) == {"git"}


def test_a_write_that_fails_half_way_takes_back_the_files_it_wrote(home: Path, store: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # Claude Code is two files: a server entry without its hooks (or the reverse) is no install.
    from wikimem.interop import install

    (home / ".claude.json").write_text('{"numStartups": 4}', "utf-8")
    written = install.atomic_write

    def fail_on_settings(path: Path, text: str) -> None:
        if path.name == "settings.json":
            raise OSError(28, "No space left on device")
        written(path, text)

    monkeypatch.setattr(install, "atomic_write", fail_on_settings)
    assert _install(store, "claude-code") == 2
    assert (home / ".claude.json").read_text("utf-8") == '{"numStartups": 4}'
    assert _backups(home) == [] and not (home / ".claude" / "settings.json").exists()
