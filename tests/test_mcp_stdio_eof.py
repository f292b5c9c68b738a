"""A one-shot stdio client (requests piped in, stdin closed at once) gets every answer it asked for."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from mcp_support import REPO, SAFETY_NET, TextOut, alice_memory, server_env

pytest.importorskip("mcp")

from wikimem.server.stdio_drain import AnswerWriter, DrainingLines, Pending  # noqa: E402


def _line(message: dict[str, object]) -> str:
    return json.dumps(message) + "\n"


INIT = _line({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "pipe", "version": "0"}}})
READY = _line({"jsonrpc": "2.0", "method": "notifications/initialized"})


def _call(ident: object, tool: str, arguments: dict[str, object]) -> str:
    return _line({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                  "params": {"name": tool, "arguments": arguments}})


def _answers(stdout: str) -> dict[object, dict[str, object]]:
    rows = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return {row["id"]: row for row in rows if "id" in row}


def test_the_last_requests_before_end_of_input_are_answered(tmp_path: Path) -> None:
    root = alice_memory(tmp_path)
    requests = INIT + READY + _call(2, "recall", {"query": "jasmine tea"}) + _call("three", "list_files", {})
    done = subprocess.run([sys.executable, "-m", "wikimem", "-s", str(root), "mcp"], input=requests,
                          capture_output=True, text=True, env=server_env(), cwd=REPO, timeout=SAFETY_NET)
    assert done.returncode == 0, done.stderr
    answers = _answers(done.stdout)
    assert set(answers) == {1, 2, "three"}, done.stdout
    assert "jasmine" in json.dumps(answers[2]["result"]).lower()
    assert not answers[2]["result"]["isError"]  # type: ignore[index]
    # The wire is only protocol: every line of stdout is one JSON-RPC message.
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in done.stdout.splitlines())


def test_empty_input_ends_the_server_with_nothing_written(tmp_path: Path) -> None:
    root = alice_memory(tmp_path)
    done = subprocess.run([sys.executable, "-m", "wikimem", "-s", str(root), "mcp"], input="",
                          capture_output=True, text=True, env=server_env(), cwd=REPO, timeout=SAFETY_NET)
    assert (done.returncode, done.stdout) == (0, "")


class _Lines:
    def __init__(self, lines: list[str]) -> None:
        self._lines = lines

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        if not self._lines:
            raise StopAsyncIteration
        return self._lines.pop(0)


class _Watched(Pending):
    """A Pending that says when end of input started waiting for the answers owed."""

    def __init__(self) -> None:
        super().__init__()
        self.draining = anyio.Event()

    async def drained(self, seconds: float = SAFETY_NET) -> bool:
        self.draining.set()
        return await super().drained(seconds)


async def test_end_of_input_waits_for_the_answer_owed_then_ends() -> None:
    pending = _Watched()
    out = TextOut()
    writer = AnswerWriter(out, pending)
    read: list[str] = []
    ended = anyio.Event()

    async def server() -> None:
        async for line in DrainingLines(_Lines([_call(7, "recall", {}), READY]), pending, seconds=SAFETY_NET):
            read.append(line)
        ended.set()

    with anyio.fail_after(SAFETY_NET):
        async with anyio.create_task_group() as group:
            group.start_soon(server)
            await pending.draining.wait()
            # The input is over, but the answer to request 7 is owed: the end is held back (an end
            # that did not wait would have run on to ended.set() before this task woke).
            assert len(read) == 2 and not ended.is_set()
            await writer.write(_line({"jsonrpc": "2.0", "id": 7, "result": {}}))
            await ended.wait()
    assert json.loads(out.text)["id"] == 7


async def test_a_cancelled_request_is_not_waited_for_and_notifications_owe_nothing() -> None:
    pending = Pending()
    pending.read(_call(5, "recall", {}))
    pending.read(READY)
    pending.read("not json at all")
    pending.read(_line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}))
    assert await pending.drained(seconds=SAFETY_NET)


async def test_a_hung_request_lets_the_end_through_when_the_bound_runs_out() -> None:
    pending = Pending()
    pending.read(_call(9, "recall", {}))
    pending.written(_line({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}))  # no id: no answer
    assert not await pending.drained(seconds=0)  # a bound already reached: no answer will come
