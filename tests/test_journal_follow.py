"""The journal's one follower, and the latest line per memory file.

Lint and the app both follow journal.jsonl as it grows; they share
``wikimem.journal.JournalFollower`` so a torn last line, a rewrite, a FIFO or
a symlink out of the memory mean the same thing to both. ``LatestLines`` is
what drift is judged against.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

from wikimem import JOURNAL_FILE, JournalFollower, UnreadableError
from wikimem.journal import LatestLines, latest_lines


def line(ts: str, action: str = "add", **fields: str) -> str:
    return json.dumps({"ts": ts, "action": action, **fields}, ensure_ascii=False) + "\n"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / JOURNAL_FILE


def test_a_follower_reads_whole_lines_then_only_what_was_appended(path: Path) -> None:
    follower = JournalFollower(path)
    path.write_text(line("a") + line("b"), encoding="utf-8")
    first = follower.read()
    assert (first.reset, first.first_line, first.text) == (False, 1, line("a") + line("b"))
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line("c"))
    second = follower.read()
    assert (second.reset, second.first_line, second.text) == (False, 3, line("c"))
    assert follower.read().text == ""


def test_a_torn_last_line_is_offered_on_every_read_until_its_newline_arrives(path: Path) -> None:
    follower = JournalFollower(path)
    whole, half = line("a"), line("b")[:-5]
    path.write_text(whole + half, encoding="utf-8")
    read = follower.read()
    assert (read.text, read.torn, read.torn_line) == (whole, half, 2)
    assert follower.read().torn == half
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line("b")[-5:])
    done = follower.read()
    assert (done.first_line, done.text, done.torn) == (2, line("b"), "")


def test_a_character_cut_mid_way_is_never_decoded_half(path: Path) -> None:
    follower = JournalFollower(path)
    data = line("a", file="日記").encode()
    cut = data.index("記".encode()) + 1
    path.write_bytes(data[:cut])
    assert follower.read().text == ""
    with path.open("ab") as fh:
        fh.write(data[cut:])
    assert follower.read().text == line("a", file="日記")


@pytest.mark.parametrize("change", ["truncate", "rewrite head", "rewrite tail", "replace"])
def test_a_journal_truncated_rewritten_or_replaced_is_read_again_from_line_one(path: Path, change: str) -> None:
    follower = JournalFollower(path)
    path.write_text(line("a") + line("b"), encoding="utf-8")
    follower.read()
    if change == "truncate":
        path.write_text(line("z"), encoding="utf-8")
    elif change == "rewrite head":
        with path.open("r+", encoding="utf-8") as fh:
            fh.write(line("x"))  # same length: only the bytes differ
    elif change == "rewrite tail":
        with path.open("r+", encoding="utf-8") as fh:
            fh.seek(len(line("a")))
            fh.write(line("y") + line("c"))  # grown, the head unchanged
    else:
        other = path.with_name("new.jsonl")
        other.write_text(line("a") + line("b") + line("c"), encoding="utf-8")
        os.replace(other, path)
    read = follower.read()
    assert read.reset and read.first_line == 1
    assert read.text == path.read_text(encoding="utf-8")


def test_a_missing_journal_is_missing_and_its_removal_a_reset(path: Path) -> None:
    follower = JournalFollower(path)
    assert follower.read().missing and not follower.read().reset
    path.write_text(line("a"), encoding="utf-8")
    follower.read()
    path.unlink()
    gone = follower.read()
    assert gone.missing and gone.reset


def test_a_fifo_is_not_read_and_does_not_block(path: Path) -> None:
    os.mkfifo(path)
    read = JournalFollower(path).read()
    assert isinstance(read.unreadable, UnreadableError) and read.text == ""


def test_a_symlink_out_of_the_memory_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_text(line("a"), encoding="utf-8")
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / JOURNAL_FILE).symlink_to(outside)
    read = JournalFollower(memory / JOURNAL_FILE).read()
    assert isinstance(read.unreadable, UnreadableError) and read.text == ""


def test_latest_lines_keeps_the_latest_line_per_file_by_instant_not_by_spelling(tmp_path: Path) -> None:
    (tmp_path / JOURNAL_FILE).write_text(
        line("2026-07-10T03:00:00+00:00", file="people", item="x")
        + line("2026-07-10T05:00:00+02:00", "update", file="people", item="x")  # 03:00 UTC: not later
        + line("2026-07-10T02:00:00+00:00", "diary", date="2026-07-09", time="09:00")
        + "not json\n"
        + "[" * 100_000 + "\n"  # nested too deep for json: a bad line, never a RecursionError
        + line("2026-07-10T04:00:00+00:00", "remove", file="people", item="x")[:-1],  # no final newline
        encoding="utf-8",
    )
    assert latest_lines(tmp_path) == {
        "wiki/people.md": ("2026-07-10T04:00:00+00:00", "remove"),
        "diary/2026-07-09.md": ("2026-07-10T02:00:00+00:00", "diary"),
    }


def test_lines_that_are_not_entries_are_returned_with_their_number_and_reason() -> None:
    latest = LatestLines()
    bad = latest.feed(line("2026-07-10T03:00:00+00:00", file="f") + "\n" + "{oops\n" + '["a"]\n', 1)
    assert [(b.line, b.why) for b in bad] == [(3, "not JSON"), (4, "not a journal entry (a JSON list, not an object)")]
    moment = dt.datetime(2026, 7, 10, 3, tzinfo=dt.timezone.utc)
    assert latest.logged("wiki/f.md") == (moment.timestamp(), "add")
    assert latest.changed == {"wiki/f.md"}


def test_a_ts_out_of_range_in_utc_is_no_time_not_an_overflow(tmp_path: Path) -> None:
    """``9999-12-31T23:00-05:00`` parses but is past year 9999 in UTC: the line is read, its time is none."""
    (tmp_path / JOURNAL_FILE).write_text(
        line("2026-07-10T03:00:00+00:00", file="people", item="x")
        + line("9999-12-31T23:00:00-05:00", "update", file="people", item="x"), encoding="utf-8")
    assert latest_lines(tmp_path) == {"wiki/people.md": ("2026-07-10T03:00:00+00:00", "add")}
