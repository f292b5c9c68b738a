"""``wikimem lint`` on the command line: a store with every problem planted, output shapes, exit codes."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.test_lint_fixtures import clean_store, sha, write_keys, write_npy
from wikimem.cli import main
from wikimem.disk.baseline import accept
from wikimem.lint import CODES

LINKS = ("[[My Notes:thing]] [[dupes:same]] [[utf8:bytes]] [[empty:hollow]] [[fence:code]] [[fence:inside]] "
         "[[meta:m]] [[links:l]] [[near:copy]] [[evidence:missing]] [[evidence:echo]] [[evidence:many]] "
         "[[evidence:bad]] [[evidence:review]] [[evidence:relay]] [[merge:m]] [[secret:key]]")

PLANTED: dict[str, str | bytes] = {
    "wiki/My Notes.md": "# notes\n\n## thing\n\nA file name no write accepts.\n",
    "wiki/names.md": "# names\n\n## a: b\n\nA heading no write accepts.\n",
    "wiki/dupes.md": "# dupes\n\n## same\n\none [[people:Alice]]\n\n## same\n\ntwo [[people:Alice]]\n",
    "wiki/utf8.md": b"# utf8\n\n## bytes\n\nbad \xff byte\n",
    "wiki/empty.md": "# empty\n\n## hollow\n\n<!-- wikimem: owner=x -->\n",
    "wiki/fence.md": "# fence\n\n## code\n\n```\nprint(1)\n## inside\n\nmore\n```\n",
    "wiki/meta.md": "# meta\n\n## m\n\ntext\n\n<!-- wikimem owner=a -->\n",
    "wiki/links.md": "# links\n\n## l\n\n[[people:Alice]] [[work:ghost]] [[:broken]]\n",
    "wiki/near.md": "# near\n\n## copy\n\nProject Apollo ships in Q4. Lead is [[people:Alice]].\n",
    "wiki/evidence.md": (
        "# evidence\n\n## missing\n\nX.\n(evidence: diary 2026-01-01 10:00)\n\n"
        "## echo\n\nY.\n(evidence: diary 2026-07-21 09:00)\n\n"
        "## relay\n\nU, resting on an echo: an echo too.\n(evidence: [[evidence:echo]])\n\n"
        "## many\n\nZ.\n(evidence: source c1)\n(evidence: source c2)\n(evidence: source c3)\n(evidence: source c4)\n\n"
        "## bad\n\nW.\n(evidence: diary yesterday)\n\n"
        "## review\n\nV.\n<!-- wikimem-review: its source was retracted -->\n"
    ),
    "wiki/merge.md": "# merge\n\n## m\n\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> other\n",
    "diary/2026-07-21.md": f"# 2026-07-21\n\n## 09:00\n\nRecall said so.\n<!-- wikimem-derived -->\n\n## 10:00\n\n{LINKS}\n",
    "diary/2026-07-22.md": ("# 2026-07-22\n\n## 10:00\n\nlater\n\n## 09:00\n\nearlier\n"
                            "(capture: captures/2026-07-21.capture.json#codex-missing)\n"),
    # issue 16: a secret in memory, a damaged snapshot, a card whose session log is gone
    "wiki/secret.md": "# secret\n\n## key\n\nDeploy with password=Hunter2Hunter2.\n",
    "captures/2026-07-20.capture.json": '{"format": 1, "date": "2026-07-20", "cards": [',
    "captures/2026-07-21.capture.json": json.dumps({"format": 1, "date": "2026-07-21", "cards": [
        {"id": "codex-gone", "agent": "codex", "session_id": "gone", "path": "/nonexistent/rollout-gone.jsonl"}]}),
    "diary/2026-07-23.md": "# 2026-07-23\n\n## 9:5\n\nsloppy\n",
    "diary/2026-02-30.md": "# 2026-02-30\n\n## 10:00\n\nno such day\n",
    "wiki/.people.md.k3j9x0q_.tmp": "# people\n\n## Alice\n\nhalf a write",  # a write killed before its rename
    "wiki/sub/nested.md": "# nested\n\n## n\n\nin a folder the library never reads\n",
}

EXPECTED = sorted([
    ("bad-file-name", "wiki/My Notes.md", None),
    ("bad-item-name", "wiki/names.md", "a: b"),
    ("orphan", "wiki/names.md", "a: b"),
    ("duplicate-heading", "wiki/dupes.md", "same"),
    ("invalid-utf8", "wiki/utf8.md", None),
    ("round-trip", "wiki/empty.md", "hollow"),
    ("heading-in-fence", "wiki/fence.md", "code"),
    ("malformed-meta", "wiki/meta.md", "m"),
    ("dangling-link", "wiki/links.md", "l"),
    ("malformed-link", "wiki/links.md", "l"),
    ("near-duplicate", "wiki/work.md", "apollo"),
    ("evidence-missing", "wiki/evidence.md", "missing"),
    ("evidence-echo", "wiki/evidence.md", "echo"),
    ("evidence-echo", "wiki/evidence.md", "relay"),
    ("evidence-too-many", "wiki/evidence.md", "many"),
    ("evidence-malformed", "wiki/evidence.md", "bad"),
    ("marked-for-review", "wiki/evidence.md", "review"),
    ("diary-order", "diary/2026-07-22.md", "09:00"),
    ("bad-diary-heading", "diary/2026-07-23.md", "9:5"),
    ("bad-day-file", "diary/2026-02-30.md", None),
    ("journal-bad-line", "journal.jsonl", None),
    ("vector-cache-torn", "vectors.keys.jsonl", None),
    ("vector-cache-model", "diary-vectors/vectors.keys.jsonl", None),
    ("vector-cache-stale", "diary-vectors/vectors.keys.jsonl", None),
    ("drift", "wiki/people.md", None),
    ("reviewed-damaged", "reviewed.json", None),
    ("bad-settings", "wikimem.toml", None),
    ("unreadable", "wiki/pipe.md", None),
    ("conflict-markers", "wiki/merge.md", "m"),
    ("secret-in-memory", "wiki/secret.md", "key"),
    ("capture-unreadable", "captures/2026-07-20.capture.json", None),
    ("capture-session-gone", "captures/2026-07-21.capture.json", "codex-gone"),
    ("capture-card-missing", "diary/2026-07-22.md", "09:00"),
    ("intent-quarantined", ".wikimem-intent-20260722T080000000000.quarantined", None),
    ("stale-temp-file", "wiki/.people.md.k3j9x0q_.tmp", None),
    ("nested-file-ignored", "wiki/sub/", None),
], key=str)


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    root = tmp_path
    clean_store(root)
    for rel, data in PLANTED.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    accept(root, {p.relative_to(root).as_posix(): sha(p) for p in [*root.glob("wiki/*.md"), *root.glob("diary/*.md")]})
    with open(root / "journal.jsonl", "a", encoding="utf-8") as handle:
        handle.write("not json\n")
    (root / "reviewed.json").write_text('{"version": 1, "entries": [{"date": 7}]}\n', "utf-8")
    (root / "wikimem.toml").write_text('[links]\nspelling = "wiki"\n', "utf-8")
    write_keys(root, {"vectors_file": "vectors-000009.npy", "model": "m1", "dim": 4}, [])
    write_npy(root / "diary-vectors" / "vectors-000001.npy", 1, 4)
    write_keys(root / "diary-vectors", {"vectors_file": "vectors-000001.npy", "model": "m1", "dim": 4},
               [{"file": "2026-07-21", "name": "09:00", "hash": "old"}])
    people = root / "wiki" / "people.md"
    people.write_text(people.read_text("utf-8").replace("Colleague", "Friend"), "utf-8")
    stamp = time.time() + 60
    os.utime(people, (stamp, stamp))
    os.mkfifo(root / "wiki" / "pipe.md")  # named like a RecallFile; reading it would block
    (root / ".wikimem-intent-20260722T080000000000.quarantined").mkdir()  # a refused record, moved aside
    return root


def test_json_reports_each_planted_problem_and_nothing_else(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["-s", str(planted), "lint", "--json", "--embed-model", "m2"])
    data = json.loads(capsys.readouterr().out)
    got = sorted(((f["code"], f["location"]["path"], f["location"]["item"]) for f in data["findings"]), key=str)
    assert got == EXPECTED
    # Every check is exercised here but folder-outside, which takes a whole folder away
    # (tests/test_trust_boundary_folders.py exercises it).
    assert {code for code, _, _ in EXPECTED} == set(CODES) - {"folder-outside"}
    assert data["counts"] == {
        severity: sum(1 for c, _, _ in EXPECTED if CODES[c].severity == severity)
        for severity in ("error", "warning", "info")
    }
    assert code == 1


def test_json_finding_shape(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["-s", str(planted), "lint", "--json"])
    finding = next(f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "near-duplicate")
    assert finding == {
        "code": "near-duplicate", "severity": "warning",
        "location": {"path": "wiki/work.md", "line": 3, "item": "apollo"},
        "message": "the same content as [[near:copy]] (wiki/near.md:3)",
        "related": [{"path": "wiki/near.md", "line": 3, "item": "copy"}],
        "fixable": False,
    }


def test_text_output_errors_first_then_a_summary(planted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["-s", str(planted), "lint"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(".wikimem-intent-20260722T080000000000.quarantined: error[intent-quarantined]")
    assert lines[1].startswith("captures/2026-07-20.capture.json: error[capture-unreadable]")  # by path
    assert lines[2].startswith("diary/2026-02-30.md: error[bad-day-file]")
    assert "wiki/links.md:5: warning[dangling-link] l: links to [[work:ghost]], which does not exist" in lines
    assert lines[-1] == "13 errors, 18 warnings, 4 infos"


def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean_store(tmp_path)
    assert main(["-s", str(tmp_path), "lint"]) == 0
    assert capsys.readouterr().out == "no problems found\n"
    tmp_path.joinpath("wiki", "work.md").write_text(
        "# work\n\n## apollo\n\nLead is [[people:Alice]] and [[x:y]].\n", "utf-8")
    accept(tmp_path, {"wiki/work.md": sha(tmp_path / "wiki" / "work.md")})
    assert main(["-s", str(tmp_path), "lint"]) == 0  # a warning only
    assert main(["-s", str(tmp_path), "lint", "--strict"]) == 1
    assert main(["-s", str(tmp_path / "nope"), "lint"]) == 2
    assert "store directory not found" in capsys.readouterr().err
