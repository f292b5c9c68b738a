"""A capture run end to end: entries and snapshots on disk, secrets kept out, idempotent, incremental, safe."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from capture_logs import (  # noqa: F401
    CC_ONE, CC_TWO, CODEX_ONE, DERIVED, SECRETS, UTC, all_text, fake_home, tree_hash, write_tree,
)
from wikimem import Diary
from wikimem.capture import CARD_CAP, capture, find_card_refs, read_snapshot
from wikimem.curation import reconcile_queue
from wikimem.lint import lint


@pytest.fixture
def logs(tmp_path: Path) -> dict[str, Path]:
    return write_tree(tmp_path / "logs")


def _both(memory: Path, logs_dir: Path, **kw):  # type: ignore[no-untyped-def]
    one = capture(memory, "claude-code", [logs_dir / "claude-code"], tz=UTC, **kw)
    two = capture(memory, "codex", [logs_dir / "codex"], tz=UTC, **kw)
    return one, two


def test_each_session_becomes_one_entry_on_its_day_and_time_with_a_card(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    cc, cx = _both(memory, tmp_path / "logs")
    assert [e.entry_id.render() for e in cc.entries] == ["2026-07-13 09:14", "2026-07-13 15:02"]
    assert [e.entry_id.render() for e in cx.entries] == ["2026-07-13 10:01"]
    day = Diary(memory).day("2026-07-13")
    assert [(e.time, e.owner, e.source_conv) for e in day] == [
        ("09:14", "agent:claude-code", f"claude-code:{CC_ONE}"),
        ("10:01", "agent:codex", f"codex:{CODEX_ONE}"),
        ("15:02", "agent:claude-code", f"claude-code:{CC_TWO}"),
    ]
    assert day[0].ts == "2026-07-13T09:14:03+00:00"
    first = day[0].content.split("\n")
    assert first[0].startswith("Claude Code session 5b2c6a1e in shop (fix-checkout): The checkout test fails")
    assert first[1].startswith("-> The checkout test passes now")
    assert first[2] == "-> unresolved: Remaining: the flaky retry in CI is not addressed"
    cards = read_snapshot(memory, "2026-07-13").cards
    for entry in day:
        (ref,) = find_card_refs(entry.content)
        assert ref.card_id in cards and ref.snapshot == "captures/2026-07-13.capture.json"
        assert cards[ref.card_id]["entries"] == [f"2026-07-13 {entry.time}"]


def test_the_card_holds_the_evidence_and_where_the_session_is(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    _both(memory, tmp_path / "logs")
    card = read_snapshot(memory, "2026-07-13").cards[f"claude-code-{CC_ONE}"]
    assert (card["agent"], card["session_id"], card["path"]) == ("claude-code", CC_ONE, str(logs["cc_one"]))
    assert (card["cwd"], card["branch"]) == ("/home/ada/shop", "fix-checkout")
    assert (card["first"], card["last"]) == ("2026-07-13T09:14:03+00:00", "2026-07-13T09:16:40+00:00")
    assert card["goal"].startswith("The checkout test fails since yesterday.")
    assert card["outcome"].startswith("The checkout test passes now")
    assert card["update"].startswith("The fixture still has last week's price")
    assert card["unresolved"] == "Remaining: the flaky retry in CI is not addressed"
    assert card["tools"] == {"Bash": 1, "Edit": 1} and card["counts"]["subagents"] == 1
    assert card["derived"] is False and card["read"]["bytes"] < logs["cc_one"].stat().st_size
    text = json.dumps(card)
    assert "pytest tests/test_checkout.py" not in text and "FAILED test_total" not in text  # no tool input or output


def test_no_secret_from_any_log_reaches_the_memory_directory(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    _both(memory, tmp_path / "logs")
    everything = all_text(memory)
    for secret in SECRETS:
        assert secret not in everything
        assert secret[:12] not in everything  # not even the part before a split
    assert "[REDACTED:github-token]" in everything and "[REDACTED:split]" in everything


def test_a_capture_lints_clean(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    _both(memory, tmp_path / "logs")
    assert lint(memory).findings == []


def test_a_session_that_read_the_memory_gives_a_derived_entry(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    _both(memory, tmp_path / "logs")
    day = {e.time: e for e in Diary(memory).day("2026-07-13")}
    assert day["15:02"].content.endswith("\n" + DERIVED) and DERIVED not in day["09:14"].content
    assert read_snapshot(memory, "2026-07-13").cards[f"claude-code-{CC_TWO}"]["derived"] is True
    queue = {q.entry.time: q.derived for q in reconcile_queue(memory)}
    assert queue == {"15:02": True, "10:01": False, "09:14": False}


def test_a_subagent_that_read_the_memory_makes_its_parent_derived(tmp_path: Path, logs: dict[str, Path]) -> None:
    with logs["cc_sub"].open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"type": "user", "isSidechain": True, "sessionId": CC_ONE, "message": {
            "role": "user", "content": [{"type": "tool_result", "content": f"recalled\n{DERIVED}"}]}}) + "\n")
    memory = tmp_path / "memory"
    capture(memory, "claude-code", [tmp_path / "logs" / "claude-code"], tz=UTC)
    assert read_snapshot(memory, "2026-07-13").cards[f"claude-code-{CC_ONE}"]["derived"] is True


def test_a_second_run_changes_no_byte(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    _both(memory, tmp_path / "logs")
    before = tree_hash(memory)
    cc, cx = _both(memory, tmp_path / "logs")
    assert tree_hash(memory) == before
    assert (cc.entries, cx.entries, cc.written, cx.written) == ([], [], [], [])
    assert (cc.unchanged, cx.unchanged) == (2, 1)


def _grow(path: Path, ts: str, request: str, reply: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        if not path.read_bytes().endswith(b"\n"):
            handle.write("\n")
        for kind, content in (("user", request), ("assistant", [{"type": "text", "text": reply}])):
            handle.write(json.dumps({"type": kind, "sessionId": CC_TWO, "timestamp": ts, "cwd": "/home/ada/shop",
                                     "message": {"role": kind, "content": content}}) + "\n")


def test_a_grown_session_adds_a_follow_up_entry_and_updates_its_card(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    capture(memory, "claude-code", [tmp_path / "logs" / "claude-code"], tz=UTC)
    first_entry = Diary(memory).day("2026-07-13")[1]
    _grow(logs["cc_two"], "2026-07-13T16:40:00Z", "Now apply it to refunds too.", "Refunds round half up as well.")
    report = capture(memory, "claude-code", [tmp_path / "logs" / "claude-code"], tz=UTC)
    (entry,) = report.entries
    assert entry.follow_up and entry.entry_id.render() == "2026-07-13 16:40"
    lines = entry.content.split("\n")
    assert lines[0] == "Claude Code session 8d41f0c2, continued, in shop (fix-checkout): Now apply it to refunds too."
    assert lines[1] == "-> Refunds round half up as well."
    assert lines[-1] == DERIVED  # the session read the memory earlier: what it concluded later rests on it too
    day = Diary(memory).day("2026-07-13")
    assert day[1] == first_entry and len(day) == 3  # append-only: the first entry is as it was
    card = read_snapshot(memory, "2026-07-13").cards[f"claude-code-{CC_TWO}"]
    assert card["entries"] == ["2026-07-13 15:02", "2026-07-13 16:40"]
    assert card["outcome"] == "Refunds round half up as well." and card["last"] == "2026-07-13T16:40:00+00:00"
    assert report.updated == [f"claude-code-{CC_TWO}"] and report.new == []
    before = tree_hash(memory)
    capture(memory, "claude-code", [tmp_path / "logs" / "claude-code"], tz=UTC)
    assert tree_hash(memory) == before


def test_a_torn_line_completed_later_is_captured_then(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    capture(memory, "claude-code", [logs["cc_one"]], tz=UTC)
    with logs["cc_one"].open("a", encoding="utf-8") as handle:  # the agent finishes writing the line
        handle.write('st of the tests too?"},"sessionId":"%s","timestamp":"2026-07-13T09:20:00Z"}\n' % CC_ONE)
    (entry,) = capture(memory, "claude-code", [logs["cc_one"]], tz=UTC).entries
    assert entry.follow_up and "and the rest of the tests too?" in entry.content
    assert "-> unresolved: no reply yet to: and the rest of the tests too?" in entry.content


def test_a_rewritten_log_is_captured_again_and_says_so(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    capture(memory, "claude-code", [logs["cc_two"]], tz=UTC)
    logs["cc_two"].write_text(logs["cc_two"].read_text("utf-8").replace("rounding prices", "rounding totals"), "utf-8")
    (entry,) = capture(memory, "claude-code", [logs["cc_two"]], tz=UTC).entries
    assert "log rewritten since its last capture" in entry.content and "rounding totals" in entry.content


def test_a_damaged_snapshot_is_never_rewritten_and_its_sessions_are_refused(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    (memory / "captures").mkdir(parents=True)
    damaged = memory / "captures" / "2026-07-13.capture.json"
    damaged.write_bytes(b'{"format": 1, "date": "2026-07-13", "cards": [')
    report = capture(memory, "claude-code", [tmp_path / "logs" / "claude-code"], tz=UTC)
    assert damaged.read_bytes() == b'{"format": 1, "date": "2026-07-13", "cards": ['
    assert [p for p, _ in report.refused] == [str(logs["cc_one"]), str(logs["cc_two"])]
    assert "not a readable Evidence Snapshot" in report.refused[0][1]
    assert report.entries == [] and not (memory / "diary").exists()


def test_a_day_file_that_cannot_be_written_without_loss_refuses_its_sessions(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    (memory / "diary").mkdir(parents=True)
    day = memory / "diary" / "2026-07-13.md"
    day.write_text("# 2026-07-13\n\n## 08:00\n\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> other\n", "utf-8")
    before = day.read_bytes()
    report = capture(memory, "codex", [tmp_path / "logs" / "codex"], tz=UTC)
    assert day.read_bytes() == before and report.entries == [] and len(report.refused) == 1
    assert not (memory / "captures").exists()


def test_a_dry_run_plans_everything_and_writes_nothing(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    cc, _ = _both(memory, tmp_path / "logs", dry_run=True)
    assert not memory.exists()
    assert len(cc.entries) == 2 and cc.written == ["captures/2026-07-13.capture.json", "diary/2026-07-13.md"]
    assert cc.entries[1].content.endswith(DERIVED)


def test_since_leaves_out_sessions_last_active_before_that_day(tmp_path: Path, logs: dict[str, Path]) -> None:
    memory = tmp_path / "memory"
    report = capture(memory, "claude-code", [tmp_path / "logs" / "claude-code"], tz=UTC, since="2026-07-14")
    assert report.entries == [] and any("before --since 2026-07-14" in why for _, why in report.skipped)


def test_the_day_and_time_are_the_wall_clock_of_the_time_zone(tmp_path: Path, logs: dict[str, Path]) -> None:
    from zoneinfo import ZoneInfo

    memory = tmp_path / "memory"
    report = capture(memory, "claude-code", [logs["cc_two"]], tz=ZoneInfo("Asia/Tokyo"))
    assert report.entries[0].entry_id.render() == "2026-07-14 00:02"
    assert (memory / "captures" / "2026-07-14.capture.json").exists()


def test_every_field_and_every_card_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "logs" / f"{CC_ONE}.jsonl"
    path.parent.mkdir(parents=True)
    words = " ".join(f"wort{i}ß漢字" for i in range(3_000))
    lines = [{"type": "user", "sessionId": CC_ONE, "timestamp": "2026-07-13T10:00:00Z", "cwd": "/x/" + "d" * 5000,
              "gitBranch": "b" * 5000, "message": {"role": "user", "content": words}}]
    lines += [{"type": "assistant", "timestamp": f"2026-07-13T10:{i:02d}:00Z", "message": {"id": f"m{i}",
               "content": [{"type": "text", "text": f"{i} {words}"}, {"type": "tool_use", "name": f"tool-{i}-" + "n" * 300}]}}
              for i in range(1, 40)]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    memory = tmp_path / "memory"
    (entry,) = capture(memory, "claude-code", [path], tz=UTC).entries
    card = read_snapshot(memory, "2026-07-13").cards[f"claude-code-{CC_ONE}"]
    assert len(json.dumps(card, ensure_ascii=False).encode("utf-8")) <= CARD_CAP
    assert {"goal", "outcome", "update", "cwd", "branch"} <= set(card["truncated"])
    assert len(card["tools"]) <= 24 and all(len(name) <= 80 for name in card["tools"])
    assert all(len(line) <= 600 for line in entry.content.split("\n"))


def test_capture_refuses_an_unknown_agent(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown agent 'gemini'"):
        capture(tmp_path, "gemini")


def test_sessions_from_the_default_folders(tmp_path: Path, fake_home: Path) -> None:  # noqa: F811
    write_tree(tmp_path / "staged")
    shutil.copytree(tmp_path / "staged" / "claude-code", fake_home / ".claude" / "projects")
    shutil.copytree(tmp_path / "staged" / "codex", fake_home / ".codex" / "sessions")
    memory = tmp_path / "memory"
    assert len(capture(memory, "claude-code", tz=UTC).entries) == 2
    assert len(capture(memory, "codex", tz=UTC).entries) == 1


def test_a_log_read_before_another_capture_took_it_further_adds_nothing(
        tmp_path: Path, logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from wikimem.capture import read_claude_code
    from wikimem.capture import run

    memory = tmp_path / "memory"
    stale = tmp_path / "stale.jsonl"
    shutil.copy(logs["cc_two"], stale)
    _grow(logs["cc_two"], "2026-07-13T16:40:00Z", "More?", "More.")
    capture(memory, "claude-code", [logs["cc_two"]], tz=UTC)
    before = tree_hash(memory)

    def read_stale(path: Path):  # type: ignore[no-untyped-def]
        session = read_claude_code(stale)  # what a slower capture read before the file grew
        session.path = path
        return session

    monkeypatch.setitem(run._READERS, "claude-code", read_stale)
    report = capture(memory, "claude-code", [logs["cc_two"]], tz=UTC)
    assert report.entries == [] and report.unchanged == 1 and tree_hash(memory) == before


def _capture_in_process(memory: str, logs: str) -> None:
    capture(memory, "claude-code", [logs], tz=UTC)


def test_captures_running_at_once_capture_each_session_once(tmp_path: Path, logs: dict[str, Path]) -> None:
    import multiprocessing as mp

    from conftest import SAFETY_NET

    memory = tmp_path / "memory"
    memory.mkdir()
    context = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    procs = [context.Process(target=_capture_in_process, args=(str(memory), str(tmp_path / "logs" / "claude-code")))
             for _ in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=SAFETY_NET)
        assert proc.exitcode == 0
    day = Diary(memory).day("2026-07-13")
    assert [e.time for e in day] == ["09:14", "15:02"]
    assert [c["entries"] for c in read_snapshot(memory, "2026-07-13").cards.values()] == [["2026-07-13 09:14"],
                                                                                         ["2026-07-13 15:02"]]


def test_progress_is_reported_as_the_logs_are_read(tmp_path: Path, logs: dict[str, Path]) -> None:
    calls: list[tuple[int, int]] = []
    capture(tmp_path / "memory", "claude-code", [tmp_path / "logs" / "claude-code"], tz=UTC,
            progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]
