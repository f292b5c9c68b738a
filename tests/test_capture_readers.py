"""The session readers: what they take from Claude Code's and Codex's logs, and what they survive."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from capture_logs import CC_ONE, CC_TWO, CODEX_ONE, CODEX_SUB, DERIVED, fake_home, write_tree  # noqa: F401
from wikimem.capture import read_claude_code, read_codex, session_files
from wikimem.capture.jsonl import MAX_LINE


@pytest.fixture
def logs(tmp_path: Path) -> dict[str, Path]:
    return write_tree(tmp_path / "logs")


def _talk(session):  # type: ignore[no-untyped-def]
    return [(e.role, e.text) for e in session.events if e.role != "tool"]


def test_claude_code_session_identity_place_and_times(logs: dict[str, Path]) -> None:
    s = read_claude_code(logs["cc_one"])
    assert (s.agent, s.session_id, s.cwd, s.branch) == ("claude-code", CC_ONE, "/home/ada/shop", "fix-checkout")
    # The meta caveat at 09:13:58 is no request: the session starts with the first real one.
    assert (s.first_ts, s.last_ts) == ("2026-07-13T09:14:03+00:00", "2026-07-13T09:16:40+00:00")
    assert s.parent_id is None and not s.derived


def test_claude_code_requests_are_only_what_the_person_asked(logs: dict[str, Path]) -> None:
    talk = _talk(read_claude_code(logs["cc_one"]))
    users = [text for role, text in talk if role == "user"]
    assert len(users) == 1 and users[0].startswith("The checkout test fails since yesterday.")
    assert [role for role, _ in talk] == ["user", "assistant", "assistant", "assistant"]


def test_claude_code_keeps_tool_names_and_counts_never_inputs_or_outputs(logs: dict[str, Path]) -> None:
    s = read_claude_code(logs["cc_one"])
    assert dict(s.tools) == {"Bash": 1, "Edit": 1} and s.tool_results == 2
    everything = " ".join(e.text for e in s.events)
    assert "pytest tests/test_checkout.py" not in everything and "FAILED test_total" not in everything
    assert "old_string" not in everything


def test_one_assistant_message_over_several_lines_is_one_event(logs: dict[str, Path]) -> None:
    talk = _talk(read_claude_code(logs["cc_one"]))
    assert talk[1] == ("assistant", "Let me run the test to see the failure.")


def test_what_a_reader_skipped_is_counted_with_its_reason(logs: dict[str, Path]) -> None:
    skipped = read_claude_code(logs["cc_one"]).skipped
    assert skipped["torn last line (still being written: read whole next time)"] == 1
    assert skipped["'summary' lines"] == 1 and skipped["'system' lines"] == 1
    assert skipped["thinking blocks (not copied)"] == 1
    two = read_claude_code(logs["cc_two"]).skipped
    assert two["lines of unknown type 'future-kind'"] == 1
    assert two["command output and slash commands without arguments"] == 1


def test_a_torn_last_line_is_not_counted_as_read(logs: dict[str, Path]) -> None:
    s = read_claude_code(logs["cc_one"])
    data = logs["cc_one"].read_bytes()
    assert s.size == data.rindex(b"\n") + 1 < len(data)


def test_a_recall_result_with_the_derived_marker_makes_the_session_derived(logs: dict[str, Path]) -> None:
    s = read_claude_code(logs["cc_two"])
    assert s.derived
    assert all(DERIVED not in e.text for e in s.events)


def test_a_slash_command_with_arguments_is_a_request_without_none(tmp_path: Path) -> None:
    path = tmp_path / f"{CC_TWO}.jsonl"
    lines = [{"type": "user", "sessionId": CC_TWO, "timestamp": f"2026-07-13T10:0{i}:00Z", "message": {
        "role": "user", "content": text}} for i, text in enumerate([
            "<command-name>/fix-issue</command-name>\n<command-args>123</command-args>",
            "<command-name>/clear</command-name>\n<command-args></command-args>",
            "<local-command-stdout>cleared</local-command-stdout>",
            "<system-reminder>be brief</system-reminder>really do it",
            "[Request interrupted by user for tool use]"])]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    assert _talk(read_claude_code(path)) == [("user", "/fix-issue 123"), ("user", "really do it"), ("interrupt", "")]


def test_a_subagent_file_belongs_to_its_parent(logs: dict[str, Path]) -> None:
    sub = read_claude_code(logs["cc_sub"])
    assert sub.parent_id == CC_ONE and sub.session_id == f"{CC_ONE}/a1b2c3"
    legacy = logs["cc_sub"].parents[2] / "agent-9f8e7d.jsonl"  # older versions: beside the session
    legacy.write_bytes(logs["cc_sub"].read_bytes())
    assert read_claude_code(legacy).parent_id == CC_ONE


def test_sidechain_lines_in_a_main_file_are_not_its_conversation_but_count_for_anti_echo(tmp_path: Path) -> None:
    path = tmp_path / f"{CC_ONE}.jsonl"
    lines = [
        {"type": "user", "sessionId": CC_ONE, "timestamp": "2026-07-13T10:00:00Z",
         "message": {"role": "user", "content": "main request"}},
        {"type": "assistant", "isSidechain": True, "sessionId": CC_ONE, "timestamp": "2026-07-13T10:00:05Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": f"from memory\n{DERIVED}"}]}},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    s = read_claude_code(path)
    assert _talk(s) == [("user", "main request")] and s.derived


def test_codex_session_meta_turn_context_and_messages(logs: dict[str, Path]) -> None:
    s = read_codex(logs["codex_one"])
    assert (s.agent, s.session_id, s.cwd, s.branch) == ("codex", CODEX_ONE, "/home/ada/shop", "main")
    talk = _talk(s)
    assert talk[0][0] == "user" and talk[0][1].startswith("Add a --dry-run flag to the import script.")
    assert [role for role, _ in talk] == ["user", "assistant", "assistant"]  # no injected context, no event dups
    assert dict(s.tools) == {"shell": 1, "apply_patch": 1} and s.tool_results == 2
    assert s.skipped["reasoning items (not copied)"] == 1
    assert s.skipped["lines of unknown type 'world_state'"] == 1
    assert not any("s3cr3t" in e.text for e in s.events)


def test_a_codex_subagent_rollout_names_its_parent(logs: dict[str, Path]) -> None:
    sub = read_codex(logs["codex_sub"])
    assert (sub.session_id, sub.parent_id) == (CODEX_SUB, CODEX_ONE)


def test_a_codex_tool_output_with_the_marker_makes_the_session_derived(tmp_path: Path) -> None:
    path = tmp_path / f"rollout-2026-07-13T10-00-00-{CODEX_ONE}.jsonl"
    lines = [
        {"timestamp": "2026-07-13T10:00:00Z", "type": "session_meta", "payload": {"id": CODEX_ONE, "cwd": "/x"}},
        {"timestamp": "2026-07-13T10:00:01Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": "what did we decide?"}]}},
        {"timestamp": "2026-07-13T10:00:02Z", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "c",
            "output": json.dumps({"output": f"pricing:rounding\nhalf up\n{DERIVED}", "metadata": {"exit_code": 0}})}},
        {"timestamp": "2026-07-13T10:00:03Z", "type": "response_item", "payload": {
            "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Half up."}]}},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    assert read_codex(path).derived


def test_codex_logs_from_before_the_envelope_are_read(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2025-04-01-legacy.jsonl"
    lines = [{"id": CODEX_ONE, "timestamp": "2025-04-01T08:00:00Z", "instructions": None},
             {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "rename the module"}]},
             {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Renamed."}]}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    s = read_codex(path)
    assert s.session_id == CODEX_ONE and _talk(s) == [("user", "rename the module"), ("assistant", "Renamed.")]


def test_codex_falls_back_to_event_messages_when_there_are_no_response_items(tmp_path: Path) -> None:
    path = tmp_path / f"rollout-x-{CODEX_ONE}.jsonl"
    lines = [{"timestamp": "2026-07-13T10:00:00Z", "type": "session_meta", "payload": {"id": CODEX_ONE}},
             {"timestamp": "2026-07-13T10:00:01Z", "type": "event_msg", "payload": {"type": "user_message",
                                                                                    "message": "hello"}},
             {"timestamp": "2026-07-13T10:00:02Z", "type": "event_msg", "payload": {"type": "agent_message",
                                                                                    "message": "hi"}},
             {"timestamp": "2026-07-13T10:00:03Z", "type": "event_msg", "payload": {"type": "turn_aborted"}}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    assert _talk(read_codex(path)) == [("user", "hello"), ("assistant", "hi"), ("interrupt", "")]


def test_bad_lines_invalid_utf8_and_non_objects_are_skipped_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / f"{CC_ONE}.jsonl"
    good = json.dumps({"type": "user", "timestamp": "2026-07-13T10:00:00Z",
                       "message": {"role": "user", "content": "caf\u00e9 please"}})
    path.write_bytes(b"not json at all\n[1, 2]\n\n" + good.encode() + b"\n" +
                     b'{"type":"assistant","message":{"content":[{"type":"text","text":"ok \xff"}]}}\n')
    s = read_claude_code(path)
    assert s.skipped["lines that are not a JSON object"] == 2
    assert _talk(s) == [("user", "caf\u00e9 please"), ("assistant", "ok \ufffd")]


def test_a_huge_line_is_skipped_unparsed_but_hashed_and_searched_for_the_marker(tmp_path: Path) -> None:
    path = tmp_path / f"{CC_ONE}.jsonl"
    huge = json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "content": "x" * (MAX_LINE + 10) + "\n" + DERIVED}]}})
    ask = json.dumps({"type": "user", "timestamp": "2026-07-13T10:00:00Z",
                      "message": {"role": "user", "content": "after the huge one"}})
    path.write_text(huge + "\n" + ask + "\n", "utf-8")
    s = read_claude_code(path)
    assert s.skipped[f"lines over {MAX_LINE >> 20} MiB (not parsed)"] == 1
    assert s.derived and s.size == path.stat().st_size and s.lines == 2
    assert _talk(s) == [("user", "after the huge one")]


def test_a_torn_huge_last_line_is_left_for_the_next_capture(tmp_path: Path) -> None:
    path = tmp_path / f"{CC_ONE}.jsonl"
    ask = json.dumps({"type": "user", "timestamp": "2026-07-13T10:00:00Z",
                      "message": {"role": "user", "content": "first"}}) + "\n"
    path.write_text(ask + '{"type":"user","message":"' + "y" * (MAX_LINE + 5), "utf-8")
    s = read_claude_code(path)
    assert s.size == len(ask.encode()) and s.lines == 1


def test_an_empty_file_reads_as_a_session_with_nothing_in_it(tmp_path: Path) -> None:
    path = tmp_path / f"{CC_ONE}.jsonl"
    path.write_bytes(b"")
    s = read_claude_code(path)
    assert s.events == [] and s.size == 0


def test_session_files_finds_logs_and_leaves_other_files(logs: dict[str, Path], tmp_path: Path) -> None:
    project = logs["cc_one"].parent
    (project / CC_ONE / "tool-results").mkdir(parents=True)
    (project / CC_ONE / "tool-results" / "out.txt").write_text("x")
    (project / "notes.jsonl").write_text("{}\n")  # not a session name
    found, problems = session_files("claude-code", [tmp_path / "logs" / "claude-code"])
    assert found == sorted([logs["cc_one"], logs["cc_sub"], logs["cc_two"]]) and problems == []
    found, _ = session_files("codex", [tmp_path / "logs" / "codex"])
    assert found == sorted([logs["codex_one"], logs["codex_sub"]])
    one, _ = session_files("claude-code", [project / "notes.jsonl"])  # a file named explicitly is taken
    assert one == [project / "notes.jsonl"]
    assert session_files("codex", [tmp_path / "nowhere"])[1] == [(str(tmp_path / "nowhere"), "no such file or directory")]


def test_the_default_folders_come_from_home_and_the_agents_own_variables(fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from wikimem.capture import default_roots

    assert default_roots("claude-code") == [fake_home / ".claude" / "projects"]
    assert default_roots("codex") == [fake_home / ".codex" / "sessions"]
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(fake_home / "cc"))
    assert default_roots("claude-code") == [fake_home / "cc" / "projects"]
    assert session_files("codex") == ([], [])  # a missing default folder is no problem


def test_the_fixture_files_in_the_repository_are_the_ones_the_tests_write(tmp_path: Path) -> None:
    fixtures = Path(__file__).resolve().parent / "fixtures" / "capture"
    write_tree(tmp_path / "fresh")
    fresh = {p.relative_to(tmp_path / "fresh"): p.read_bytes() for p in (tmp_path / "fresh").rglob("*.jsonl")}
    kept = {p.relative_to(fixtures): p.read_bytes() for p in fixtures.rglob("*.jsonl")}
    assert kept == fresh  # the docs' transcript runs on the kept ones


def test_a_claude_code_mcp_result_holding_json_with_the_marker_is_derived(tmp_path: Path) -> None:
    path = tmp_path / f"{CC_ONE}.jsonl"
    result = json.dumps({"result": f"pricing:rounding\nhalf up\n{DERIVED}"})
    lines = [{"type": "user", "timestamp": "2026-07-13T10:00:00Z", "message": {"role": "user", "content": "ask"}},
             {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "content": result}]}}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    assert read_claude_code(path).derived
    lines[1]["message"]["content"][0]["content"] = json.dumps({"result": "mentions wikimem-derived in prose"})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    assert not read_claude_code(path).derived
