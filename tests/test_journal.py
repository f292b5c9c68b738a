"""journal.jsonl (SPEC §1 "Journal line fields"): one JSON object per mutation.

The wiki and the diary share one log; ``action`` tells them apart. Lines are
written raw (``ensure_ascii=False``) so the file reads well in a pager, and a
reader skips what it cannot parse rather than failing.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from wikimem import Journal, MemoryStore
from wikimem.disk.entry_id import EntryId
from wikimem.journal import logged_entry_id

TS = "2026-07-10T03:00:00+00:00"
UTC_SECONDS = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00")


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal.jsonl")


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path)


def raw_lines(journal: Journal) -> list[str]:
    return Path(journal.path).read_text(encoding="utf-8").splitlines()


# -- Journal itself -------------------------------------------------------------


def test_constructing_a_journal_touches_no_files(tmp_path: Path) -> None:
    Journal(tmp_path / "sub" / "journal.jsonl")
    assert not (tmp_path / "sub").exists()


def test_entries_of_a_missing_journal_is_empty(journal: Journal) -> None:
    assert journal.entries() == []


def test_wiki_entry_has_ts_action_file_and_item(journal: Journal) -> None:
    journal.append("add", file="preferences", name="likes-the-sea")
    (entry,) = journal.entries()
    assert set(entry) == {"ts", "action", "file", "item"}
    assert (entry["action"], entry["file"], entry["item"]) == ("add", "preferences", "likes-the-sea")


def test_ts_is_utc_at_second_precision(journal: Journal) -> None:
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    journal.append("add", file="f", name="n")
    after = dt.datetime.now(dt.timezone.utc)
    ts = journal.entries()[0]["ts"]
    assert UTC_SECONDS.fullmatch(ts)
    assert before <= dt.datetime.fromisoformat(ts) <= after


def test_owner_source_conv_and_detail_appear_only_when_given(journal: Journal) -> None:
    journal.append("update", file="f", name="n", owner="user:xnne")
    journal.append("update", file="f", name="n", source_conv="conv_1", detail="renamed from m")
    first, second = journal.entries()
    assert first["owner"] == "user:xnne" and "source_conv" not in first and "detail" not in first
    assert "owner" not in second and (second["source_conv"], second["detail"]) == ("conv_1", "renamed from m")


def test_diary_entry_has_date_and_time_instead_of_file_and_item(journal: Journal) -> None:
    journal.append_diary(date="2026-07-21", time="14:30", owner="user:xnne", source_conv="conv_20260721")
    (entry,) = journal.entries()
    assert set(entry) == {"ts", "action", "date", "time", "owner", "source_conv"}
    assert (entry["action"], entry["date"], entry["time"]) == ("diary", "2026-07-21", "14:30")


def test_diary_entry_without_provenance_has_only_the_target(journal: Journal) -> None:
    journal.append_diary(date="2026-07-21", time="14:30")
    assert set(journal.entries()[0]) == {"ts", "action", "date", "time"}


def test_non_ascii_is_written_raw(journal: Journal) -> None:
    journal.append("add", file="preferences", name="手冲咖啡", owner="用户")
    raw = Path(journal.path).read_bytes()
    assert "手冲咖啡".encode() in raw and b"\\u" not in raw
    assert journal.entries()[0]["item"] == "手冲咖啡"


def test_each_append_is_exactly_one_line(journal: Journal) -> None:
    journal.append("add", file="f", name="a", detail="multi\nline\r\ndetail")
    journal.append_diary(date="2026-07-21", time="14:30")
    lines = raw_lines(journal)
    assert len(lines) == 2 and all(isinstance(json.loads(line), dict) for line in lines)
    assert journal.entries()[0]["detail"] == "multi\nline\r\ndetail"


def test_unicode_line_separators_in_a_value_do_not_split_the_entry(journal: Journal) -> None:
    journal.append("add", file="f", name="a", detail="para\u2028sep and next\x85line")
    journal.append("add", file="f", name="b")
    assert [e["item"] for e in journal.entries()] == ["a", "b"]
    assert journal.entries()[0]["detail"] == "para\u2028sep and next\x85line"


def test_malformed_lines_are_skipped_by_entries(journal: Journal) -> None:
    journal.append("add", file="f", name="a")
    with open(journal.path, "a", encoding="utf-8") as handle:
        handle.write('{not json\n[1, 2]\n"a string"\n\n   \n\xff\n')
    journal.append("add", file="f", name="b")
    Path(journal.path).write_bytes(Path(journal.path).read_bytes() + b'\xff\xfe{"garbage\n')
    assert [e["item"] for e in journal.entries()] == ["a", "b"]


def test_a_torn_last_line_does_not_corrupt_the_next_entry(journal: Journal) -> None:
    journal.append("add", file="f", name="a")
    with open(journal.path, "a", encoding="utf-8") as handle:
        handle.write('{"ts": "2026-07-10T03:00:00+00:00", "action": "ad')  # writer killed here
    journal.append("add", file="f", name="b")
    assert [e["item"] for e in journal.entries()] == ["a", "b"]
    assert json.loads(raw_lines(journal)[-1])["item"] == "b"


def test_append_returns_the_entry_it_wrote(journal: Journal) -> None:
    entry = journal.append("remove", file="f", name="n", owner="me")
    assert journal.entries() == [entry]


def test_a_crlf_journal_written_by_hand_is_read(journal: Journal) -> None:
    Path(journal.path).write_bytes(b'{"ts": "x", "action": "add", "file": "f", "item": "a"}\r\n')
    assert journal.entries() == [{"ts": "x", "action": "add", "file": "f", "item": "a"}]


# -- what the store and the diary journal ---------------------------------------


def test_every_mutation_writes_one_line_with_its_action(store: MemoryStore) -> None:
    store.add("notes", "a", "1", ts=TS)
    store.add("notes", "b", "2", ts=TS)
    store.add("notes", "a", "3", ts=TS)
    store.remove("notes", "b")
    store.diary.append("event", date="2026-07-21", time="14:30", ts=TS)
    assert [(e["action"], e.get("item")) for e in store.journal.entries()] == [
        ("add", "a"),
        ("add", "b"),
        ("update", "a"),
        ("remove", "b"),
        ("diary", None),
    ]
    assert len(raw_lines(store.journal)) == 5


def test_add_journals_the_normalized_name_and_its_provenance(store: MemoryStore) -> None:
    store.add("preferences", " likes   the sea ", "喜欢海边。", owner="user:xnne", source_conv="conv_20260710", ts=TS)
    (entry,) = store.journal.entries()
    assert {k: v for k, v in entry.items() if k != "ts"} == {
        "action": "add",
        "file": "preferences",
        "item": "likes the sea",
        "owner": "user:xnne",
        "source_conv": "conv_20260710",
    }


def test_replacing_a_name_written_with_other_whitespace_is_an_update(store: MemoryStore) -> None:
    store.add("notes", "two words", "1", ts=TS)
    store.add("notes", " two \n words ", "2", ts=TS)
    assert [(e["action"], e["item"]) for e in store.journal.entries()] == [("add", "two words"), ("update", "two words")]


def test_journal_ts_is_the_time_of_the_mutation_not_the_items_ts(store: MemoryStore) -> None:
    store.add("notes", "a", "1", ts="2001-01-01T00:00:00+00:00")
    assert store.journal.entries()[0]["ts"] > "2020"


def test_remove_journals_the_items_owner_and_who_removed_it_as_by(store: MemoryStore) -> None:
    # Issue 13, finding 6: the journal's owner is the item's; who acted is ``by``.
    store.add("notes", "a", "1", owner="agent:a", ts=TS)
    store.remove("notes", "a", owner="user:xnne")
    entry = store.journal.entries()[-1]
    assert (entry["action"], entry["file"], entry["item"], entry["owner"], entry["by"]) == (
        "remove", "notes", "a", "agent:a", "user:xnne")
    assert "source_conv" not in entry


def test_remove_that_finds_nothing_writes_no_journal_line(store: MemoryStore) -> None:
    store.add("notes", "a", "1", ts=TS)
    store.remove("notes", "missing")
    store.remove("nothing", "a")
    assert len(store.journal.entries()) == 1


def test_rejected_write_writes_no_journal_line(store: MemoryStore) -> None:
    store.add("notes", "a", "1", ts=TS)
    for bad in [lambda: store.add("notes", "a:b", "1"), lambda: store.add("notes", "a", ""),
                lambda: store.diary.append("", ts=TS), lambda: store.diary.append("x", time="25:00")]:
        with pytest.raises(ValueError):
            bad()
    assert len(store.journal.entries()) == 1


def test_diary_append_journals_date_time_and_provenance(store: MemoryStore) -> None:
    store.diary.append("换了工作。", ts="2026-07-21T06:30:00+00:00", tz="Asia/Shanghai",
                       owner="user:xnne", source_conv="conv_20260721")
    (entry,) = store.journal.entries()
    assert {k: v for k, v in entry.items() if k != "ts"} == {
        "action": "diary",
        "date": "2026-07-21",
        "time": "14:30",
        "ordinal": 1,
        "owner": "user:xnne",
        "source_conv": "conv_20260721",
    }


def test_a_diary_append_names_its_entry_so_two_of_one_minute_differ(store: MemoryStore) -> None:
    for text in ("first", "second"):
        store.diary.append(text, date="2026-07-21", time="14:30")
    lines = store.journal.entries()
    assert [line["ordinal"] for line in lines] == [1, 2]
    assert [logged_entry_id(line) for line in lines] == [EntryId("2026-07-21", "14:30", 1),
                                                         EntryId("2026-07-21", "14:30", 2)]
    assert logged_entry_id(lines[1]).render() == "2026-07-21 14:30#2"  # type: ignore[union-attr]


def test_a_diary_line_written_before_ordinals_names_no_entry(journal: Journal) -> None:
    old = journal.append_diary(date="2026-07-21", time="14:30")
    assert "ordinal" not in old and old in journal.entries()
    assert logged_entry_id(old) is None  # only the minute is known
    for damaged in ({**old, "ordinal": 0}, {**old, "ordinal": "2"}, {**old, "ordinal": True}, {**old, "date": 7}):
        assert logged_entry_id(damaged) is None
    wiki = journal.append("add", file="f", name="n")
    assert logged_entry_id({**wiki, "ordinal": 1}) is None


def test_append_diary_writes_the_ordinal_it_is_given(journal: Journal) -> None:
    entry = journal.append_diary(date="2026-07-21", time="14:30", ordinal=3)
    assert journal.entries() == [entry] and entry["ordinal"] == 3
    assert logged_entry_id(entry) == EntryId("2026-07-21", "14:30", 3)


@pytest.mark.parametrize("seed", range(6))
def test_recent_reads_backwards_what_entries_reads_forwards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          seed: int) -> None:
    """An oracle: the newest entries of the whole read, for lines shorter, as long as and many times a block."""
    import random

    import wikimem.journal.log as log

    monkeypatch.setattr(log, "_BLOCK", 64)
    rng = random.Random(seed)
    lines = []
    for n in range(rng.randint(0, 30)):
        roll = rng.random()
        lines.append("not json" if roll < 0.1 else "" if roll < 0.2 else json.dumps(
            {"ts": f"2026-07-{1 + n:02d}T00:00:00+00:00", "action": "add", "pad": "x" * rng.choice([0, 20, 64, 500])}))
    path = tmp_path / "journal.jsonl"
    path.write_text("\n".join(lines) + ("\n" if seed % 2 else ""), encoding="utf-8")
    journal = Journal(path)
    newest = list(reversed(journal.entries()))
    for limit in (1, 2, 5, 100):
        assert journal.recent(limit) == newest[:limit]
    since = "2026-07-10"
    assert journal.recent(100, since=since) == [e for e in newest if e["ts"] >= since]
