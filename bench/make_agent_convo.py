"""Build ``bench/data/agent_convo.json`` from the hand-written ``bench/agent_convo_text.py``.

Deterministic (no randomness, no network): the same text always gives the
same file. Each turn gets an id ``sNNtMM``, its session's date and a time
(the session's start plus one to three minutes a turn, so every turn has a
minute of its own, as an agent appending as it goes would write them), and
the diary entry an agent's ``append_diary`` would write: ``Speaker: text``.
A question's evidence labels become the ids of the turns that carry them.

    python bench/make_agent_convo.py           # rewrite the JSON
    python bench/make_agent_convo.py --check   # fail if the JSON is stale
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from agent_convo_text import QUESTIONS, SESSIONS  # noqa: E402

OUT = HERE / "data" / "agent_convo.json"
SPEAKERS = {"A": "Ada", "B": "Ben"}
_LABELS = re.compile(r"\s*\{([a-z0-9_ ]+)\}\s*$")


def build() -> dict[str, Any]:
    """The set: sessions with their turns, then the questions with evidence turn ids."""
    sessions: list[dict[str, Any]] = []
    where: dict[str, str] = {}
    for s, (date, start, text) in enumerate(SESSIONS, 1):
        clock = dt.datetime.fromisoformat(f"{date}T{start}")
        turns = []
        for t, line in enumerate(line for line in text.strip().splitlines() if line.strip()):
            speaker, _, said = line.partition(": ")
            found = _LABELS.search(said)
            labels = found.group(1).split() if found else []
            said = _LABELS.sub("", said).strip()
            tid = f"s{s:02d}t{t + 1:02d}"
            for label in labels:
                if label in where:
                    raise SystemExit(f"label {label!r} used twice ({where[label]}, {tid})")
                where[label] = tid
            if clock.date().isoformat() != date:
                raise SystemExit(f"session {s} runs past midnight")
            turns.append({"id": tid, "speaker": SPEAKERS[speaker], "date": date, "time": clock.strftime("%H:%M"),
                          "text": said, "entry": f"{SPEAKERS[speaker]}: {said}"})
            clock += dt.timedelta(minutes=1 + t % 3)
        sessions.append({"id": f"s{s:02d}", "date": date, "turns": turns})
    questions = []
    for n, (kind, question, labels, as_of) in enumerate(QUESTIONS, 1):
        missing = [label for label in labels.split() if label not in where]
        if missing:
            raise SystemExit(f"question {question!r}: no turn is labelled {missing}")
        row: dict[str, Any] = {"id": f"q{n:03d}", "kind": kind, "question": question,
                               "evidence": [where[label] for label in labels.split()]}
        if as_of is not None:
            row["as_of"] = as_of
        questions.append(row)
    return {
        "about": "An English multi-session conversation memory written for wikimem's bench (Apache-2.0); "
                 "see bench/data/README.md. Ada owns the memory: 'I' in a question is Ada.",
        "speakers": sorted(SPEAKERS.values()),
        "sessions": sessions,
        "questions": questions,
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the JSON differs from the text")
    args = parser.parse_args(argv)
    text = render(build())
    if args.check:
        if not OUT.exists() or OUT.read_text("utf-8") != text:
            print(f"{OUT} is stale: run python bench/make_agent_convo.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, "utf-8")
    data = json.loads(text)
    turns = sum(len(s["turns"]) for s in data["sessions"])
    print(f"wrote {OUT}: {len(data['sessions'])} sessions, {turns} turns, {len(data['questions'])} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
