"""An incremental re-lint equals a fresh full lint, whatever the edits.

The app's Health pane keeps one ``Linter`` and re-runs it after each change;
every cross-file finding is then recomputed only where the change can reach.
These tests are the oracle for that bookkeeping: random edit sequences
(library writes, hand edits, whole files appearing and vanishing, links and
evidence appearing and disappearing, diary days added, drift accepted, the
journal and the vector cache touched) and after every step the kept linter's
report must be exactly the one a fresh ``lint()`` produces.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
from pathlib import Path

import pytest

from tests.test_lint_fixtures import sha, vector_hash, write_keys, write_npy
from wikimem import MemoryStore
from wikimem.disk.baseline import accept
from wikimem.disk.marks import DERIVED_MARKER
from wikimem.lint import Linter, lint

FILES = ["people", "work", "notes"]
NAMES = ["alice", "bob", "apollo", "q4", "tea", "bikes"]
DAYS = ["2026-07-20", "2026-07-21", "2026-07-22"]
TIMES = ["08:00", "09:30", "09:30", "14:15"]
SENTENCES = [
    "Alice leads the perception team and likes long walks after lunch.",
    "Project Apollo ships in Q4; the demo is the robot picking six cups.",
    "Prefers green tea in the afternoon, never with sugar.",
    "Commutes by bike along the river, about twenty minutes each way.",
    "林是大学室友，现在在厦门做设计师。每年生日都会互寄明信片。",
]


def _content(rng: random.Random) -> str:
    text = rng.choice(SENTENCES)
    if rng.random() < 0.3:  # a near-duplicate: the same sentence, lightly edited
        text = text.replace("the", "a", 1) + " Really."
    parts = [text]
    for _ in range(rng.randrange(3)):
        parts.append(f"See [[{rng.choice(FILES + ['ghost'])}:{rng.choice(NAMES)}]].")
    for _ in range(rng.choice([0, 0, 1, 2, 4])):
        if rng.random() < 0.5:
            parts.append(f"(evidence: diary {rng.choice(DAYS)} {rng.choice(TIMES)})")
        else:
            parts.append(f"(evidence: [[{rng.choice(FILES)}:{rng.choice(NAMES)}]])")
    if rng.random() < 0.15:
        parts.append(DERIVED_MARKER)
    if rng.random() < 0.05:
        parts.append("<!-- wikimem-review: check it -->")
    return "\n".join(parts)


def _step(rng: random.Random, root: Path, store: MemoryStore) -> list[Path]:
    """One random edit; returns the files written by hand (the app's watcher would name them)."""
    op = rng.choice(["add", "add", "add", "remove", "move", "diary", "diary", "hand", "delete",
                     "accept", "journal", "vectors"])
    file, name = rng.choice(FILES), rng.choice(NAMES)
    if op == "add":
        store.add(file, name, _content(rng), owner="agent")
    elif op == "remove":
        store.remove(file, name)
    elif op == "move" and store.get(file, name) is not None:
        target = rng.choice(NAMES)
        if store.get(file, target) is None and target != name:
            store.move(file, name, new_name=target, rewrite_links=rng.random() < 0.5)
    elif op == "diary":
        text = _content(rng) if rng.random() < 0.5 else rng.choice(SENTENCES)
        store.diary.append(text, date=rng.choice(DAYS), time=rng.choice(TIMES), owner="user")
    elif op == "hand":
        return [_hand_edit(rng, root)]
    elif op == "delete":
        victims = sorted(root.glob("wiki/*.md")) + sorted(root.glob("diary/*.md"))
        if victims:
            victim = rng.choice(victims)
            victim.unlink()
            return [victim]
    elif op == "accept":
        present = sorted(root.glob("wiki/*.md")) + sorted(root.glob("diary/*.md"))
        if present:
            path = rng.choice(present)
            accept(root, {path.relative_to(root).as_posix(): sha(path)})
    elif op == "journal":
        with open(root / "journal.jsonl", "a", encoding="utf-8") as handle:
            later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=rng.choice([-3600, 30]))
            good = {"ts": later.replace(microsecond=0).isoformat(), "action": rng.choice(["update", "remove"]),
                    **({"file": file} if rng.random() < 0.7 else {"date": rng.choice(DAYS)})}
            handle.write(rng.choice(["not json\n", "[1, 2]\n", json.dumps(good) + "\n", json.dumps(good) + "\n"]))
    else:
        _vector_cache(rng, root, store)
    return []


def _hand_edit(rng: random.Random, root: Path) -> Path:
    kind = rng.choice(["wiki", "wiki", "diary"])
    if kind == "wiki":
        path = root / "wiki" / f"{rng.choice(FILES)}.md"
        text = path.read_text("utf-8") if path.exists() else f"# {path.stem}\n"
        name = rng.choice(NAMES + ["a: bad", "alice"])
        text += f"\n## {name}\n\n{_content(rng)}\n"
    else:
        path = root / "diary" / f"{rng.choice(DAYS + ['2026-02-30'])}.md"
        text = path.read_text("utf-8") if path.exists() else f"# {path.stem}\n"
        text += f"\n## {rng.choice(['23:59', '00:01', '9:5'])}\n\n{_content(rng)}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def _vector_cache(rng: random.Random, root: Path, store: MemoryStore) -> None:
    items = store.items()
    keys = [{"file": i.file, "name": i.name, "hash": vector_hash(i.name, i.content)} for i in items]
    keys += [{"file": "gone", "name": "x", "hash": "0"}] if rng.random() < 0.5 else []
    write_npy(root / "vectors-000001.npy", len(keys), 4)
    write_keys(root, {"vectors_file": "vectors-000001.npy", "model": "m", "dim": 4}, keys)


def _as_json(root: Path, report: object) -> list[dict[str, object]]:
    return [f.to_json() for f in report.findings]  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(8))
def test_relint_after_random_edits_equals_a_fresh_lint(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    store = MemoryStore(tmp_path)
    for _ in range(6):
        store.add(rng.choice(FILES), rng.choice(NAMES), _content(rng), owner="agent")
    linter = Linter(tmp_path)
    linter.run()
    for step in range(30):
        written = _step(rng, tmp_path, store)
        # Named files are re-read even when their stat looks unchanged.
        incremental = linter.run(written if rng.random() < 0.7 else ())
        assert _as_json(tmp_path, incremental) == _as_json(tmp_path, lint(tmp_path)), f"seed {seed}, step {step}"


def test_a_change_behind_an_unchanged_stat_is_seen_when_named(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("people", "alice", "Works on [[work:apollo]].", owner="agent")
    store.add("work", "apollo", "Ships in Q4.", owner="agent")
    linter = Linter(tmp_path)
    assert [f.code for f in linter.run().findings].count("dangling-link") == 0
    path = tmp_path / "wiki" / "people.md"
    before = os.stat(path)
    path.write_text(path.read_text("utf-8").replace("[[work:apollo]]", "[[work:apolla]]"), "utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # an editor keeping the mtime
    assert "dangling-link" not in [f.code for f in linter.run().findings]
    assert "dangling-link" in [f.code for f in linter.run([path]).findings]


def test_rerun_costs_the_change_not_the_store(tmp_path: Path) -> None:
    """Only the edited file is re-read, and untouched files keep their finding objects."""
    store = MemoryStore(tmp_path)
    for n in range(20):
        store.add(f"f{n}", "x", f"item {n} of file {n}, linking [[f{(n + 1) % 20}:x]] and [[nope:{n}]]")
    linter = Linter(tmp_path)
    first = {f.location.path: f for f in linter.run().findings if f.code == "dangling-link"}
    store.add("f3", "x", "now it links nowhere")
    again = {f.location.path: f for f in linter.run().findings if f.code == "dangling-link"}
    assert "wiki/f3.md" not in again
    assert all(again[path] is first[path] for path in again)  # recomputed only where reachable
