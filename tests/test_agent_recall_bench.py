"""The agent-recall set is well-formed and its bench runs end to end.

The set (``bench/data/agent_convo.json``) is hand-written: a typo in an
evidence label, a session out of order or a stale JSON would silently
measure the wrong thing, so each is checked here. The smoke test runs the
real bench -- a real ``wikimem mcp`` server and ``retrieve`` -- on three
questions; it asserts what is printed, never a figure or a time.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import agent_recall  # noqa: E402
import make_agent_convo  # noqa: E402

from wikimem.disk.names import validate_content  # noqa: E402

DATA = json.loads((ROOT / "bench" / "data" / "agent_convo.json").read_text("utf-8"))
TURNS = {turn["id"]: turn for session in DATA["sessions"] for turn in session["turns"]}


def test_the_json_is_what_the_generator_makes_of_the_text() -> None:
    assert make_agent_convo.render(make_agent_convo.build()) == make_agent_convo.OUT.read_text("utf-8"), \
        "bench/data/agent_convo.json is stale: run python bench/make_agent_convo.py"


def test_sessions_are_real_dates_in_order_over_about_a_year_with_their_own_minutes() -> None:
    dates = [dt.date.fromisoformat(s["date"]) for s in DATA["sessions"]]
    assert dates == sorted(dates) and len(set(dates)) == len(dates)
    assert 15 <= len(dates) <= 25 and 300 <= (dates[-1] - dates[0]).days <= 450
    for session in DATA["sessions"]:
        turns = session["turns"]
        assert 15 <= len(turns) <= 30, session["id"]
        times = [t["time"] for t in turns]
        assert times == sorted(times) and len(set(times)) == len(times), session["id"]
        for turn in turns:
            assert turn["date"] == session["date"] and re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", turn["time"])
            assert turn["entry"] == f"{turn['speaker']}: {turn['text']}"
            assert validate_content(turn["entry"]) == turn["entry"]  # Diary.append takes it as it is


def test_every_question_has_evidence_that_exists_and_a_valid_as_of_day() -> None:
    questions = DATA["questions"]
    assert len(questions) >= 200
    assert len({q["id"] for q in questions}) == len(questions)
    assert len({q["question"].lower() for q in questions}) == len(questions)
    kinds = {q["kind"] for q in questions}
    assert kinds == {"single", "when", "time", "multihop", "paraphrase", "function"}
    for q in questions:
        assert q["evidence"] and all(e in TURNS for e in q["evidence"]), q["id"]
        assert q["question"].strip() and q["question"].endswith("?"), q["id"]
        if "as_of" in q:
            as_of = dt.date.fromisoformat(q["as_of"])
            assert all(dt.date.fromisoformat(TURNS[e]["date"]) <= as_of for e in q["evidence"]), q["id"]


def test_a_rank_is_the_first_evidence_row_and_a_miss_is_lower_than_any_rank() -> None:
    assert agent_recall.first_rank(["a", "b", "c"], {"c", "b"}) == 2
    assert agent_recall.first_rank(["a"], {"z"}) is None
    assert agent_recall._lower(None, 3) and agent_recall._lower(4, 3)
    assert not agent_recall._lower(3, 3) and not agent_recall._lower(None, None) and not agent_recall._lower(2, None)
    fig = agent_recall.summary({"ranks": [1, 6, None, 3], "in_answer": [True, True, False, False],
                                "ranks_nostop": [1, 2, 9, None]})
    assert fig["found@1"] == 0.25 and fig["found@5"] == 0.5 and fig["found@10"] == 0.75
    assert fig["in the answer"] == 0.5
    assert fig["function words cost ranks"] == 2 and fig["function words gain ranks"] == 1


def test_a_diary_row_is_known_by_its_fields_or_its_label() -> None:
    assert agent_recall._diary_key({"kind": "diary", "file": "2023-05-21", "entry": "17:42#2"}) == ("2023-05-21", "17:42")
    assert agent_recall._diary_key({"label": "diary 2023-05-21 17:42"}) == ("2023-05-21", "17:42")
    assert agent_recall._diary_key({"kind": "wiki", "file": "s01", "name": "s01t01", "label": "s01:s01t01"}) is None


def test_stop_words_go_but_a_question_of_only_stop_words_stays() -> None:
    stop = frozenset({"the", "to", "is", "it"})
    assert agent_recall.strip_stop_words("When did Ada go to the museum?", stop) == "When did Ada go museum ?"
    assert agent_recall.strip_stop_words("Is it the?", stop) == "Is it the?"


def test_the_previous_round_prints_beside_today() -> None:
    key = "en-convo | diary via MCP recall | none"
    fig = {"found@1": 0.5, "found@5": 0.75, "found@10": 0.8, "in the answer": 0.7}
    today = {"today": {"commit": "abc1234", "figures": {key: fig}}}
    lines = agent_recall.table(today, ("2026-12-05-r", {"figures": {key: {**fig, "found@5": 0.0}}}))
    assert lines[0].endswith("| previous round (2026-12-05-r) | today (abc1234) |")
    assert lines[2] == "| en-convo | diary via MCP recall | none | 0.500 / 0.000 / 0.800 / 0.700 | 0.500 / 0.750 / 0.800 / 0.700 |"


def test_the_bench_runs_three_questions_through_mcp_and_retrieve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert agent_recall.main(["--sets", "en-convo", "--questions", "3", "--embed", "none",
                              "--cache", str(tmp_path), "--per-question"]) == 0
    out = capsys.readouterr().out
    for path in ("diary via MCP recall", "wiki via retrieve"):
        row = next(line for line in out.splitlines() if line.startswith(f"| en-convo | {path} | none |"))
        assert re.fullmatch(r"\| .* \| (-|[01]\.\d{3}( / [01]\.\d{3}){3}) \| [01]\.\d{3}( / [01]\.\d{3}){3} \|", row), row
    assert "function words cost ranks on" in out and "of 3 questions" in out
    assert re.search(r"^q003 single(?: +\S+/\S+)+  Where is the Clayworks studio\?$", out, re.M), out
