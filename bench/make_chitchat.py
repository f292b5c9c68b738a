"""Build ``bench/data/chitchat_qa.json``: an English conversational retrieval set.

Source: the ``chitchat-dataset`` package on PyPI (0.9.0, MIT licence,
Copyright (c) 2019 Perception, Control and Cognition Lab, BYU; the licence
text is in ``bench/data/chitchat_LICENSE.txt``): 7,168 open-domain chat
conversations between people (the BYU Chit-Chat Challenge). Its
``dataset.json`` ships inside the wheel, so anyone can regenerate the set::

    pip install chitchat-dataset==0.9.0
    python bench/make_chitchat.py            # rewrites bench/data/chitchat_qa.json

How a memory-retrieval set is made from chat (deterministic, no tuning on
any ranking): the first ``--conversations`` conversations in id order are
read turn by turn (a turn = one speaker's consecutive messages, joined).
A *query* is a turn that ends with a question mark and has at least three
distinct content words (not in a small stop list, three letters or more),
so "how are you?" is not a query. Its *target* is the other speaker's next
turn when that turn has at least five words -- the answer is what an agent
would have stored and the question is how it would later be asked for. The
*items* are every turn of four words or more, except the query turns
themselves (a question is not a memory); a turn that answers a question is
never used as a query, so every target is an item. Everything else in the
conversations stays in as distractors.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "chitchat_qa.json"
_WORD = re.compile(r"[A-Za-z0-9']+")
_STOP = set(
    "the and you your are was were for that this with have has had what how why when where who which "
    "about just like really yeah yes haha lol that's it's i'm don't what's you're did does doing "
    "any some more much very too not but its they them their there then than from into out get got "
    "can could would should will been being all one also well good cool nice okay oh hey "
    "any anything something our ours his her she him".split()
)


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _content(text: str) -> set[str]:
    return {w.lower() for w in _words(text) if len(w) >= 3 and w.lower() not in _STOP}


def build(dataset: dict, conversations: int) -> dict:
    items: list[str] = []
    queries: list[dict] = []
    for cid in sorted(dataset)[:conversations]:
        turns = []
        for group in dataset[cid]["messages"]:
            text = " ".join(m["text"].strip() for m in group if m.get("text", "").strip())
            if text:
                turns.append((group[0]["sender"], " ".join(text.split())))
        targets: dict[int, int] = {}  # answer turn -> question turn
        for i in range(len(turns) - 1):
            sender, text = turns[i]
            answer_sender, answer = turns[i + 1]
            if i in targets or not text.endswith("?") or answer_sender == sender:
                continue
            if len(_content(text)) >= 3 and len(_words(answer)) >= 5:
                targets[i + 1] = i
        asked = set(targets.values())
        row_of: dict[int, int] = {}
        for i, (_, text) in enumerate(turns):
            if i not in asked and len(_words(text)) >= 4:
                row_of[i] = len(items)
                items.append(text)
        for answer, question in sorted(targets.items(), key=lambda kv: kv[1]):
            queries.append({"query": turns[question][1], "target": row_of[answer], "conversation": cid})
    return {
        "source": "chitchat-dataset 0.9.0 (PyPI), MIT licence, BYU PCC lab",
        "built_by": "bench/make_chitchat.py",
        "conversations": conversations,
        "items": items,
        "queries": queries,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=500)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    import chitchat_dataset  # noqa: PLC0415 - only needed to regenerate

    dataset = json.loads((Path(chitchat_dataset.__file__).parent / "dataset.json").read_text("utf-8"))
    data = build(dataset, args.conversations)
    args.out.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{len(data['items'])} items, {len(data['queries'])} queries -> {args.out}")


if __name__ == "__main__":
    main()
