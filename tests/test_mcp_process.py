"""The memory process behind ``wikimem mcp``: it answers for the server, ends with it, and its death is said.

Real processes and real signals: the server is killed with SIGKILL (no
handler runs, so only the end of the child's input can tell it), and the
child is killed under a running server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest

from app_waits import wait_until
from mcp_support import REPO, SAFETY_NET, alice_memory, server_env

pytest.importorskip("mcp")
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads process parents from /proc")

from wikimem.server.memory_process import PROCESSES_ENV, MemoryProcess  # noqa: E402

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
READY = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            state, ppid = stat.rpartition(")")[2].split()[:2]
            if int(ppid) == pid and state != "Z":
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def _send(proc: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()


def _answer(out: IO[str], ident: int) -> dict[str, Any]:
    for line in out:
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == ident:
            return message
    raise AssertionError(f"the server ended without answering {ident}")


def _recall(proc: subprocess.Popen[str], ident: int) -> dict[str, Any]:
    _send(proc, {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                 "params": {"name": "recall", "arguments": {"query": "jasmine"}}})
    assert proc.stdout is not None
    result: dict[str, Any] = _answer(proc.stdout, ident)["result"]
    return result


@contextmanager
def _server(root: Path, env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    """``wikimem mcp`` over raw stdio pipes, initialized; killed (and its child with it) if a test fails."""
    proc = subprocess.Popen([sys.executable, "-m", "wikimem", "-s", str(root), "mcp"], env=env, cwd=REPO,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            encoding="utf-8")
    try:
        _send(proc, INIT)
        assert proc.stdout is not None
        _answer(proc.stdout, 1)
        _send(proc, READY)
        yield proc
    finally:
        children = _children(proc.pid)
        proc.kill()
        proc.wait(SAFETY_NET)
        wait_until(lambda: not any(_alive(child) for child in children), "the memory process to end with its server")


def test_the_index_lives_in_one_memory_process_that_ends_when_the_server_is_killed(tmp_path: Path) -> None:
    with _server(alice_memory(tmp_path), server_env()) as proc:
        assert "jasmine" in _recall(proc, 2)["content"][0]["text"].lower()
        children = _children(proc.pid)
        assert len(children) == 1
        cmdline = (Path("/proc") / str(children[0]) / "cmdline").read_bytes().split(b"\0")
        assert b"wikimem.server.memory_process" in cmdline
        proc.send_signal(signal.SIGKILL)  # no handler, no cleanup: the child sees only the end of its input
        proc.wait(SAFETY_NET)
        wait_until(lambda: not _alive(children[0]), "the memory process to end after its server was killed")


def test_a_killed_memory_process_is_a_tool_error_naming_it_and_the_server_answers_on(tmp_path: Path) -> None:
    with _server(alice_memory(tmp_path), server_env()) as proc:
        assert not _recall(proc, 2)["isError"]
        (child,) = _children(proc.pid)
        os.kill(child, signal.SIGKILL)
        wait_until(lambda: not _alive(child), "the memory process to die")
        for ident in (3, 4):  # every later call says it, and the server goes on answering
            result = _recall(proc, ident)
            assert result["isError"]
            text = result["content"][0]["text"]
            assert "memory process" in text and "SIGKILL" in text and "restart" in text, text
            assert result["structuredContent"] == {"error": "unavailable", "message": text}
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(SAFETY_NET) == 0


def test_one_process_when_asked(tmp_path: Path) -> None:
    with _server(alice_memory(tmp_path), {**server_env(), PROCESSES_ENV: "1"}) as proc:
        assert "jasmine" in _recall(proc, 2)["content"][0]["text"].lower()
        assert _children(proc.pid) == []


def test_an_unexpected_failure_is_raised_to_the_caller_with_its_traceback_logged_and_calls_go_on(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    memory = MemoryProcess(alice_memory(tmp_path))
    try:
        with pytest.raises(RuntimeError, match="memory process failed: TypeError"):
            memory.call("recall", {"no_such_argument": 1})
        assert memory.call("recall", {"query": "jasmine"})["payload"]["items"][0]["name"] == "Alice"
        refused = memory.call("read_item", {"file": "people", "name": "Nobody"})["refused"]
        assert refused["error"] == "not_found"
    finally:
        memory.close()
    assert "Traceback" in capfd.readouterr().err
    gone = memory.call("list_files", {})["refused"]
    assert gone["error"] == "unavailable" and "exit code 0" in gone["message"]


def test_a_call_in_flight_when_the_memory_process_dies_is_answered_with_its_death(tmp_path: Path) -> None:
    memory = MemoryProcess(alice_memory(tmp_path))
    try:
        assert "payload" in memory.call("list_files", {})
        os.kill(memory.pid, signal.SIGSTOP)  # it reads no more: the next call stays in flight
        replies: list[dict[str, Any]] = []
        caller = threading.Thread(target=lambda: replies.append(memory.call("recall", {"query": "jasmine"})))
        caller.start()
        wait_until(lambda: memory.in_flight() == 1, "the call to be sent")
        os.kill(memory.pid, signal.SIGKILL)
        caller.join(SAFETY_NET)
        assert replies and replies[0]["refused"]["error"] == "unavailable"
        assert "SIGKILL" in replies[0]["refused"]["message"]
    finally:
        memory.close()


def test_the_child_finds_this_wikimem_and_an_installed_one_adds_nothing_to_its_path() -> None:
    import site

    from wikimem.server.memory_process import child_env

    checkout = child_env("/src/checkout", {"PYTHONPATH": "/elsewhere", "HOME": "/h"})
    assert checkout == {"PYTHONPATH": f"/src/checkout{os.pathsep}/elsewhere", "HOME": "/h"}
    assert child_env("/src/checkout", {})["PYTHONPATH"] == "/src/checkout"
    installed = str(Path(site.getsitepackages()[0]).resolve())
    assert child_env(installed, {"HOME": "/h"}) == {"HOME": "/h"}  # never site-packages before the stdlib
