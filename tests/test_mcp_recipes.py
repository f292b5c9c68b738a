"""The agent recipes of docs/guide/agents.md work: each snippet is parsed and the command it names is run.

Claude Code's ``claude mcp add``, its hooks (``settings.json``), Codex's
``config.toml`` and the ``mcpServers`` JSON of Cursor / Claude Desktop name
a command line; the test runs exactly that command (``wikimem`` resolved to
this environment's console script, ``~`` to a scratch home) the way the
agent would: an MCP server is driven with the SDK's client, a hook gets the
hook's JSON on stdin through a shell.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from conftest import SAFETY_NET
from wikimem import DERIVED_MARKER, MemoryStore

pytest.importorskip("mcp")

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "docs" / "guide" / "agents.md"
_FENCE_RE = re.compile(r"^```([\w-]*)\n(.*?)^```[ \t]*$", re.S | re.M)
BIN = Path(sys.executable).parent


def blocks(lang: str) -> list[str]:
    return [body for kind, body in _FENCE_RE.findall(GUIDE.read_text("utf-8")) if kind == lang]


def console_script() -> str:
    script = shutil.which("wikimem", path=str(BIN))
    if script is None:
        pytest.skip("the wikimem console script is not installed in this environment")
    return script


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home with the memory the recipes name (``~/memory``), made by the recipe's own ``init`` line."""
    home = tmp_path / "home"
    home.mkdir()
    [init] = [line for body in blocks("sh") for line in body.splitlines() if line.startswith("wikimem init ")]
    argv = [console_script(), *shlex.split(init)[1:]]
    done = subprocess.run(argv, env=_env(home), capture_output=True, text=True, timeout=SAFETY_NET, cwd=home)
    assert done.returncode == 0, done.stderr
    store = MemoryStore(home / "memory")
    store.add("prefs", "tea", "Jasmine tea in the afternoon. [[prefs:cups]]")
    store.add("prefs", "cups", "The blue cup.")
    return home


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "WIKIMEM_STORE"}
    return {**env, "HOME": str(home), "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
            "PYTHONPATH": str(REPO), "GIT_CONFIG_NOSYSTEM": "1"}


async def serves_the_memory(command: str, args: list[str], home: Path) -> None:
    """Start the server as an MCP client would (no shell) and use it."""
    from mcp import Client, StdioServerParameters

    assert command == "wikimem", command
    params = StdioServerParameters(command=console_script(), args=args, env=_env(home), cwd=str(home))
    async with Client(params, read_timeout_seconds=SAFETY_NET) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        result = await client.call_tool("recall", {"query": "jasmine tea"})
    assert {"recall", "remember", "read_item"} <= names
    assert result.content[0].text.startswith("## prefs:tea\n")
    assert result.content[0].text.endswith(DERIVED_MARKER + "\n")


async def test_claude_mcp_add_names_a_working_server(home: Path) -> None:
    [line] = [line for body in blocks("sh") for line in body.splitlines() if line.startswith("claude mcp add ")]
    words = shlex.split(line)
    command = words[words.index("--") + 1:]
    await serves_the_memory(command[0], command[1:], home)


async def test_the_codex_config_names_a_working_server(home: Path) -> None:
    [config] = [tomllib.loads(body) for body in blocks("toml") if "[mcp_servers.wikimem]" in body]
    server = config["mcp_servers"]["wikimem"]
    await serves_the_memory(server["command"], server["args"], home)


async def test_the_mcp_servers_json_names_a_working_server(home: Path) -> None:
    [config] = [json.loads(body) for body in blocks("json") if '"mcpServers"' in body]
    server = config["mcpServers"]["wikimem"]
    await serves_the_memory(server["command"], server["args"], home)


def hooks() -> dict[str, Any]:
    [config] = [json.loads(body) for body in blocks("json") if '"hooks"' in body]
    return config["hooks"]


def run_hook(event: str, home: Path, stdin: str) -> subprocess.CompletedProcess[str]:
    [entry] = hooks()[event]
    [hook] = entry["hooks"]
    assert hook["type"] == "command"
    return subprocess.run(["sh", "-c", hook["command"]], input=stdin, env=_env(home), cwd=home,
                          capture_output=True, text=True, encoding="utf-8", timeout=SAFETY_NET)


def test_the_prompt_hook_adds_the_recall_text(home: Path) -> None:
    hook_input = json.dumps({"session_id": "s1", "hook_event_name": "UserPromptSubmit",
                             "prompt": "what tea do I like?", "cwd": str(home)})
    done = run_hook("UserPromptSubmit", home, hook_input)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## prefs:tea\nJasmine tea") and done.stdout.endswith(DERIVED_MARKER + "\n")


@pytest.mark.parametrize("stdin", ["not json", json.dumps({"no": "prompt"}), json.dumps({"prompt": "zzz qqq"})])
def test_the_prompt_hook_fails_open(home: Path, stdin: str) -> None:
    done = run_hook("UserPromptSubmit", home, stdin)
    assert (done.returncode, done.stdout) == (0, "")


def test_the_prompt_hook_fails_open_without_a_memory(home: Path) -> None:
    shutil.rmtree(home / "memory")
    done = run_hook("UserPromptSubmit", home, json.dumps({"prompt": "tea"}))
    assert (done.returncode, done.stdout) == (0, "")
    assert "store directory not found" in done.stderr


@pytest.mark.parametrize("event", ["Stop", "PreCompact"])
def test_the_session_hooks_name_the_capture_verb(home: Path, event: str) -> None:
    [entry] = hooks()[event]
    command = shlex.split(entry["hooks"][0]["command"])
    assert command[:1] == ["wikimem"] and "capture" in command
    from wikimem.cli import build_parser

    verbs = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert "capture" in verbs  # the verb the recipe names exists (issue 16)
    done = subprocess.run([console_script(), *command[1:], "--help"], env=_env(home), capture_output=True,
                          text=True, timeout=SAFETY_NET)
    assert done.returncode == 0, done.stderr
