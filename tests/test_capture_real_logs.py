"""Capture on logs as agents really write them: long streamed replies, odd file names, Codex's own shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wikimem.capture import capture
from wikimem.capture import session as session_module
from wikimem.capture.claude_code import read_claude_code
from wikimem.capture.session import TEXT_CAP

SID = "11111111-2222-4333-8444-555555555555"


def _cc_lines(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def _cc(kind: str, content: object, minute: int = 1, mid: str | None = None, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if mid is not None:
        message["id"] = mid
    return {"type": kind, "sessionId": SID, "cwd": "/home/ada/shop",
            "timestamp": f"2026-07-01T10:{minute:02d}:00Z", "message": message, **extra}


def test_a_reply_streamed_over_many_lines_is_joined_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Joining (and redacting) the whole reply on every line of it made a long reply quadratic to read."""
    calls: list[int] = []
    real = session_module.redact_joined

    def counted(parts: Any, sep: str = "\n") -> str:
        calls.append(len(parts))
        return real(parts, sep)

    monkeypatch.setattr(session_module, "redact_joined", counted)
    lines = [_cc("user", "Explain the build.")]
    lines += [_cc("assistant", [{"type": "text", "text": f"Step {n}: compile module {n}."}], mid="msg_1")
              for n in range(3000)]
    lines += [_cc("user", "Thanks.", minute=2)]
    path = tmp_path / f"{SID}.jsonl"
    path.write_text(_cc_lines(lines), "utf-8")
    session = read_claude_code(path)
    assert len(calls) == 1  # one join for the whole reply, not one per line
    [reply] = [e for e in session.events if e.role == "assistant"]
    assert reply.text.startswith("Step 0: compile module 0.\n\nStep 1: compile module 1.")
    assert TEXT_CAP // 2 < len(reply.text) <= TEXT_CAP
    assert [e.role for e in session.events] == ["user", "assistant", "user"]


def test_a_secret_split_over_two_lines_of_one_reply_is_still_redacted(tmp_path: Path) -> None:
    lines = [_cc("user", "Show me the config."),
             _cc("assistant", [{"type": "text", "text": "The token is ghp_Zq8vN2xK4mR7tY1w"}], mid="m"),
             _cc("assistant", [{"type": "text", "text": "B5cD9fH3jL6pS0aE2gU4 in the file."}], mid="m")]
    path = tmp_path / f"{SID}.jsonl"
    path.write_text(_cc_lines(lines), "utf-8")
    report = capture(tmp_path / "memory", "claude-code", [path], tz="UTC", dry_run=True)
    text = json.dumps(report.as_dict())
    assert "B5cD9fH3jL6pS0aE2gU4" not in text and "ghp_Zq8vN2xK4mR7tY1w" not in text
