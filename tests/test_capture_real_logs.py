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


# -- a folder of logs not named like sessions -------------------------------------------------------------------


def _cx(ts: str, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


def _codex_lines(sid: str, ask: str, reply: str) -> str:
    return _cc_lines([
        _cx("2026-07-02T08:00:00Z", "session_meta", {"id": sid, "cwd": "/home/bo/api", "source": "cli"}),
        _cx("2026-07-02T08:00:05Z", "response_item", {"type": "message", "role": "user",
                                                       "content": [{"type": "input_text", "text": ask}]}),
        _cx("2026-07-02T08:01:00Z", "response_item", {"type": "message", "role": "assistant",
                                                       "content": [{"type": "output_text", "text": reply}]})])


def _claude_lines(sid: str, ask: str, reply: str, minute: int = 1) -> str:
    first = {"type": "summary", "summary": "x", "leafUuid": "u2"}
    return _cc_lines([first, {**_cc("user", ask, minute), "sessionId": sid},
                      {**_cc("assistant", [{"type": "text", "text": reply}], minute, mid="m1"), "sessionId": sid}])


def test_a_folder_capture_reads_sessions_by_content_and_says_what_it_passed_over(tmp_path: Path) -> None:
    """Logs renamed, exported or copied are still sessions; every other file is named with a reason."""
    logs = tmp_path / "logs"
    logs.mkdir()
    sids = [f"aaaaaaaa-0000-4000-8000-00000000000{n}" for n in range(5)]
    (logs / "export-monday.jsonl").write_text(_claude_lines(sids[0], "Add retries to the fetcher.", "Retries added."))
    (logs / "2026-07-01 chat.jsonl").write_text(_claude_lines(sids[1], "Why is the cache cold?", "It was never warmed.", 5))
    (logs / "backup").mkdir()
    (logs / "backup" / "session.jsonl").write_text(_claude_lines(sids[2], "Rename the module.", "Renamed.", 9))
    (logs / "copy of old.jsonl").write_text(_claude_lines(sids[3], "Bump the version.", "Bumped to 2.1.", 13))
    big = json.dumps({"type": "file-history-snapshot", "messageId": "u1", "snapshot": {"f": "y" * (2 << 20)}})
    (logs / "renamed.jsonl").write_text(big + "\n" + _claude_lines(sids[4], "Trim the logs.", "Trimmed.", 17))
    (logs / "workflow.jsonl").write_text('{"step": 1, "status": "ok"}\n')
    (logs / "rollout-like.jsonl").write_text(_codex_lines("bbbbbbbb-0000-4000-8000-000000000000", "a", "b"))
    (logs / "notes.txt").write_text("not a log")
    report = capture(tmp_path / "memory", "claude-code", [logs], tz="UTC")
    assert sorted(e.session_id for e in report.entries) == sorted(sids)
    skipped = dict(report.skipped)
    assert "not a Claude Code transcript" in skipped[str(logs / "workflow.jsonl")]
    assert "capture codex reads it" in skipped[str(logs / "rollout-like.jsonl")]
    assert "1 other file" in skipped[str(logs)]
    codex = capture(tmp_path / "memory2", "codex", [logs], tz="UTC")  # the Codex log, by its content
    assert [e.session_id for e in codex.entries] == ["bbbbbbbb-0000-4000-8000-000000000000"]


# -- Codex rollouts in the shapes real ones have ---------------------------------------------------------------

CODEX_SID = "0198a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b"


def _rollout(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    path = tmp_path / "sessions" / "2026" / "07" / "02" / f"rollout-2026-07-02T08-00-00-{CODEX_SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(_cc_lines([_cx("2026-07-02T08:00:00Z", "session_meta", {"id": CODEX_SID, "cwd": "/home/bo/api"}),
                               *lines]), "utf-8")
    return path


def test_codex_keeps_the_request_in_a_message_that_also_holds_codex_context(tmp_path: Path) -> None:
    path = _rollout(tmp_path, [
        _cx("2026-07-02T08:00:01Z", "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "# AGENTS.md instructions for /home/bo/api\n\n<INSTRUCTIONS>\nRun make test.\n"
                                           "</INSTRUCTIONS>"},
            {"type": "input_text", "text": "<environment_context>\n  <cwd>/home/bo/api</cwd>\n</environment_context>"},
            {"type": "input_text", "text": "Make the fetcher retry on 503."}]}),
        _cx("2026-07-02T08:03:00Z", "response_item", {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Retries added."}]})])
    from wikimem.capture import read_codex, summarize

    session = read_codex(path)
    assert [(e.role, e.text) for e in session.events] == [("user", "Make the fetcher retry on 503."),
                                                          ("assistant", "Retries added.")]
    summary = summarize(session)
    assert summary.goal == "Make the fetcher retry on 503." and summary.unresolved is None


def test_codex_reads_a_reply_that_exists_only_in_event_messages(tmp_path: Path) -> None:
    path = _rollout(tmp_path, [
        _cx("2026-07-02T08:00:01Z", "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "Make the fetcher retry on 503."}]}),
        _cx("2026-07-02T08:00:01Z", "event_msg", {"type": "user_message", "message": "Make the fetcher retry on 503.",
                                                   "images": []}),
        _cx("2026-07-02T08:00:02Z", "event_msg", {"type": "task_started", "model_context_window": 272000}),
        _cx("2026-07-02T08:01:00Z", "event_msg", {"type": "agent_message", "message": "Looking at the fetcher."}),
        _cx("2026-07-02T08:02:00Z", "response_item", {"type": "function_call", "name": "shell", "arguments": "{}",
                                                       "call_id": "c1"}),
        _cx("2026-07-02T08:03:00Z", "event_msg", {"type": "agent_message", "message": "Retries added."}),
        _cx("2026-07-02T08:03:01Z", "event_msg", {"type": "task_complete", "last_agent_message": "Retries added."}),
        # a second turn whose only reply is task_complete's
        _cx("2026-07-02T08:05:00Z", "event_msg", {"type": "user_message", "message": "And a test?"}),
        _cx("2026-07-02T08:05:00Z", "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "And a test?"}]}),
        _cx("2026-07-02T08:06:00Z", "event_msg", {"type": "task_complete", "last_agent_message": "Test added too."})])
    from wikimem.capture import read_codex, summarize

    session = read_codex(path)
    assert [(e.role, e.text) for e in session.events if e.role != "tool"] == [
        ("user", "Make the fetcher retry on 503."), ("assistant", "Looking at the fetcher."),
        ("assistant", "Retries added."), ("user", "And a test?"), ("assistant", "Test added too.")]
    summary = summarize(session)
    assert summary.outcome == "Test added too." and summary.unresolved is None


def test_codex_event_replies_do_not_repeat_a_reply_the_response_items_hold(tmp_path: Path) -> None:
    path = _rollout(tmp_path, [
        _cx("2026-07-02T08:00:01Z", "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "Make the fetcher retry on 503."}]}),
        _cx("2026-07-02T08:03:00Z", "response_item", {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Retries added, with backoff."}]}),
        _cx("2026-07-02T08:03:00Z", "event_msg", {"type": "agent_message", "message": "Retries added."}),
        _cx("2026-07-02T08:03:01Z", "event_msg", {"type": "task_complete", "last_agent_message": "Retries added."})])
    from wikimem.capture import read_codex

    assert [e.text for e in read_codex(path).events if e.role == "assistant"] == ["Retries added, with backoff."]


# -- unresolved items in the middle of a line -------------------------------------------------------------------


@pytest.mark.parametrize("text, open_item", [
    ("The fixture had a stale price; fixed it. TODO: the CI retry.", "TODO: the CI retry."),
    ("Shipped the fix. Next steps: tag the release and tell Bo.", "Next steps: tag the release and tell Bo."),
    ("Done, and FIXME: the log level is still debug.", "FIXME: the log level is still debug."),
    ("All the remaining tests pass.", None),
    ("Retries added.", None),
])
def test_an_open_item_in_the_middle_of_a_line_is_unresolved(text: str, open_item: str | None) -> None:
    from wikimem.capture.card import _unresolved
    from wikimem.capture.session import Event

    talk = [Event("user", "Fix it.", None, 0), Event("assistant", text, None, 1)]
    assert _unresolved(talk, text) == open_item


# -- capture's diary entries are Diary.append's ------------------------------------------------------------------


def test_captured_entries_journal_their_ordinal_like_diary_append(tmp_path: Path) -> None:
    """Two sessions starting in the same minute: the journal names each entry, not the first one twice."""
    from wikimem import Diary
    from wikimem.journal import Journal
    from wikimem.journal.log import logged_entry_id

    logs = tmp_path / "logs"
    logs.mkdir()
    for n, ask in enumerate(["Add retries.", "Add a test."]):
        sid = f"cccccccc-0000-4000-8000-00000000000{n}"
        (logs / f"{sid}.jsonl").write_text(_claude_lines(sid, ask, "Done."))
    memory = tmp_path / "memory"
    Diary(memory).append("By hand, same minute.", date="2026-07-01", time="10:01")
    report = capture(memory, "claude-code", [logs], tz="UTC")
    assert sorted(e.ordinal for e in report.entries) == [2, 3]
    lines = [e for e in Journal(memory / "journal.jsonl").entries() if e.get("action") == "diary"]
    assert [line.get("ordinal") for line in lines] == [1, 2, 3]
    day = {item.ordinal: item.content for item in Diary(memory).day("2026-07-01")}
    for line in lines[1:]:
        entry_id = logged_entry_id(line)
        assert entry_id is not None and "Add" in day[entry_id.ordinal]
