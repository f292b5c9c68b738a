"""Driving the real ``wikimem mcp`` process with the SDK's own client (issue 15's tests and bench).

``stdio_client`` starts ``python -m wikimem -s DIR mcp`` as the agent would;
``http_server`` starts ``--transport http --port 0`` and learns the port
from the line the server prints once it listens (an event, not a sleep).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SAFETY_NET = 120.0
_SERVING_RE = re.compile(r"serving .* on (http://\S+/mcp)")


def alice_memory(tmp_path: Path) -> Path:
    """A memory of one item (people:Alice), for tests about processes rather than retrieval."""
    from wikimem import MemoryStore

    root = tmp_path / "memory"
    MemoryStore(root).add("people", "Alice", "Likes jasmine tea.")
    return root


def server_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "PYTHONIOENCODING": "utf-8"}


@asynccontextmanager
async def stdio_client(root: Path, *extra: str) -> AsyncIterator[Any]:
    """A connected SDK ``Client`` talking to a fresh server process over stdio."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "wikimem", "-s", str(root), "mcp", *extra],
                                   env=server_env(), cwd=str(REPO))
    async with Client(params, read_timeout_seconds=SAFETY_NET) as client:
        yield client


@contextmanager
def http_server(root: Path, *extra: str) -> Iterator[tuple[str, list[str]]]:
    """A server process on a free loopback port: ``(url, its stderr lines so far)``; stopped at exit."""
    proc = subprocess.Popen([sys.executable, "-m", "wikimem", "-s", str(root), "mcp", "--transport", "http",
                             "--port", "0", *extra], env=server_env(), cwd=str(REPO), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, encoding="utf-8")
    lines: list[str] = []
    found = threading.Event()
    url: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            match = _SERVING_RE.search(line)
            if match and not url:
                url.append(match.group(1))
                found.set()
        found.set()  # the process ended: stop waiting

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert found.wait(SAFETY_NET), "the server never said where it listens"
        assert url, f"the server ended without listening: {''.join(lines)}"
        yield url[0], lines
    finally:
        proc.terminate()
        try:
            proc.wait(SAFETY_NET)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(SAFETY_NET)
        reader.join(SAFETY_NET)


@asynccontextmanager
async def http_client(url: str) -> AsyncIterator[Any]:
    from mcp import Client

    async with Client(url, read_timeout_seconds=SAFETY_NET) as client:
        yield client


def payload(result: Any) -> Any:
    """A tool result's text block parsed as JSON (every tool but recall answers in JSON)."""
    return json.loads(result.content[0].text)


def error_text(result: Any) -> str:
    assert result.is_error, f"expected a tool error, got {result.content[0].text[:200]}"
    return str(result.content[0].text)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (the lock included: read-only must not create even that)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(root.rglob("*"))}


class TextOut:
    """An async text stream that keeps what is written (what the stdio drain's writer writes to, in tests)."""

    def __init__(self) -> None:
        self.text = ""

    async def write(self, text: str) -> int:
        self.text += text
        return len(text)

    async def flush(self) -> None:
        return None
