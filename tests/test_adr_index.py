"""The decision records' index is whole: every record listed once, numbered without a gap, statuses said.

A record is never amended in place; a superseded one says so on its status
line. The index (docs/adr/README.md) is the one list a reader starts from,
so it must not drift from the files.
"""

from __future__ import annotations

import re
from pathlib import Path

ADR = Path(__file__).resolve().parents[1] / "docs" / "adr"


def _records() -> dict[int, Path]:
    return {int(p.name[:4]): p for p in ADR.glob("[0-9][0-9][0-9][0-9]-*.md")}


def _status(path: Path) -> str:
    """A record's status bullet, all its lines (it may run on: "superseded in part by ... (what stays)")."""
    found = re.search(r"^\* Status:(.*?)(?=^\* |^#|\Z)", path.read_text("utf-8"), re.M | re.S)
    return found.group(1) if found else ""


def test_the_numbering_is_whole_and_every_record_is_in_the_index() -> None:
    records = _records()
    assert sorted(records) == list(range(1, max(records) + 1)), "a number is missing: withdrawn records keep theirs"
    index = (ADR / "README.md").read_text("utf-8")
    listed = [int(a) for a, b in re.findall(r"^\| \[(\d{4})\]\((\d{4})-[^)]+\.md\)", index, re.M) if a == b]
    assert listed == sorted(records), "the index lists each record once, in order"
    for number, path in records.items():
        assert f"]({path.name})" in index, f"the index links {path.name}"


def test_a_record_marked_superseded_in_the_index_says_so_on_its_status_line() -> None:
    index = (ADR / "README.md").read_text("utf-8")
    for number, path in _records().items():
        row = next(line for line in index.splitlines() if line.startswith(f"| [{number:04d}]"))
        status = _status(path)
        if "superseded" in row.rsplit("|", 2)[-2].lower():
            assert "superseded" in status.lower(), f"{path.name}: the index says superseded, its status line does not"
        if "withdrawn" in row.lower():
            assert "withdrawn" in status.lower(), path.name
