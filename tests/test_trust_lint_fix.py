"""``lint --fix`` and the store refuse the same writes, for the same reasons (issue 13, finding 1).

Before, ``--fix`` skipped a whole file for any repeated heading or any byte
that was not UTF-8, while the store's writes silently lost both. Now both
ask one rule (``wikimem.disk.splice.problems``) about the blocks they rewrite:
a fix of a clean block in a damaged file is made, every other block byte
for byte; a fix of a damaged block is skipped with the store's own words.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.test_lint_fixtures import clean_store, plant
from wikimem import LossyWriteError, MemoryStore
from wikimem.lint import Linter
from wikimem.lint.fixes import apply_fixes, plan_fixes

NOW = dt.datetime(2026, 7, 22, 8, 0, tzinfo=dt.timezone.utc)
BROKEN_META = "<!-- wikimem owner=agent | ts=2026-07-20T11:00:00+02:00 -->"
FIXED_META = "<!-- wikimem: owner=agent | ts=2026-07-20T09:00:00+00:00 -->"


def _fix(root: Path) -> tuple[list[str], list[str], list[str]]:
    linter = Linter(root)
    plan = plan_fixes(linter, linter.run(), clock=lambda: NOW)
    done, refused = apply_fixes(linter, plan)
    return done, refused, plan.skipped


@pytest.fixture
def root(tmp_path: Path) -> Path:
    clean_store(tmp_path)
    return tmp_path


@pytest.mark.parametrize("damage", [
    b"## dup\n\none\n\n## dup\n\ntwo\n\n",  # repeated headings elsewhere in the file
    b"## latin1\n\ncaf\xe9\n\n",  # bytes that are not UTF-8 elsewhere in the file
])
def test_a_fix_of_a_clean_block_is_made_and_the_damaged_blocks_keep_their_bytes(root: Path, damage: bytes) -> None:
    head = b"# work\n\n" + damage
    path = plant(root, "wiki/work.md", head + f"## apollo\n\nShips in Q4.\n\n{BROKEN_META}\n".encode())
    done, refused, skipped = _fix(root)
    assert (refused, skipped) == ([], [])
    assert "wiki/work.md: apollo: metadata comment rewritten as metadata" in done
    assert path.read_bytes() == head + f"## apollo\n\nShips in Q4.\n\n{FIXED_META}\n".encode()


def test_a_fix_of_a_repeated_block_is_skipped_with_the_stores_own_reason(root: Path) -> None:
    data = f"# work\n\n## apollo\n\nfirst\n\n## apollo\n\nShips in Q4.\n\n{BROKEN_META}\n".encode()
    path = plant(root, "wiki/work.md", data)
    done, refused, skipped = _fix(root)
    with pytest.raises(LossyWriteError) as caught:
        MemoryStore(root).add("work", "apollo", "x")
    assert len(skipped) == 1 and skipped[0].startswith("wiki/work.md: a write would lose data: ")
    assert caught.value.problems[0] in skipped[0]  # one rule, one wording
    assert path.read_bytes() == data


def test_a_diary_day_with_bytes_that_are_not_utf8_is_sorted_and_keeps_them(root: Path) -> None:
    day = b"# 2026-07-21\n\n## 10:00\n\nlater caf\xe9\n\n## 09:00\n\nearlier\n"
    path = plant(root, "diary/2026-07-21.md", day)
    done, refused, skipped = _fix(root)
    assert "diary/2026-07-21.md: entries sorted by HH:MM" in done, (done, refused, skipped)
    assert path.read_bytes() == b"# 2026-07-21\n\n## 09:00\n\nearlier\n\n## 10:00\n\nlater caf\xe9\n"


def test_a_fix_in_a_file_with_conflict_markers_is_skipped(root: Path) -> None:
    data = (f"# work\n\n## apollo\n\nShips in Q4.\n\n{BROKEN_META}\n\n## b\n\n<<<<<<< HEAD\nx\n=======\ny\n"
            ">>>>>>> branch\n").encode()
    path = plant(root, "wiki/work.md", data)
    done, refused, skipped = _fix(root)
    assert not any(d.startswith("wiki/work.md") for d in done)
    assert any("wiki/work.md" in s and "mid-merge" in s for s in skipped), skipped
    assert path.read_bytes() == data
