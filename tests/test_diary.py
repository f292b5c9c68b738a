"""Diary (SPEC §2): the event layer, one file per day under ``diary/``.

Append-only: ``append`` is the only write. Entries are sorted by ``HH:MM``
on write, stably, because two events may share a minute; the date and time
of an entry are the wall clock of ``tz`` at the instant ``ts``.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from wikimem import Diary, DiaryItem, Journal

TS = "2026-07-21T06:30:00+00:00"


@pytest.fixture
def diary(tmp_path: Path) -> Diary:
    return Diary(tmp_path)


def day_file(diary: Diary, date: str) -> Path:
    return diary.root / "diary" / f"{date}.md"


def timeline(entries: list[DiaryItem]) -> list[tuple[str, str, str]]:
    return [(e.date, e.time, e.content) for e in entries]


def test_constructing_a_diary_touches_no_files(tmp_path: Path) -> None:
    diary = Diary(tmp_path / "memory")
    assert diary.dates() == [] and diary.day("2026-07-21") == [] and diary.window("2026-01-01", "2026-12-31") == []
    assert not (tmp_path / "memory").exists()


def test_append_returns_the_entry_as_stored(diary: Diary) -> None:
    entry = diary.append("  换了工作。 \n", ts=TS, date="2026-07-21", time="14:30", owner="user:xnne", source_conv="c1")
    assert entry == DiaryItem("2026-07-21", "14:30", "换了工作。", "user:xnne", "c1", TS)
    assert diary.day("2026-07-21") == [entry]


def test_append_writes_one_file_per_day_titled_with_the_date(diary: Diary) -> None:
    diary.append("one", date="2026-07-21", time="10:00", ts=TS)
    diary.append("two", date="2026-07-22", time="10:00", ts=TS)
    assert day_file(diary, "2026-07-21").read_text(encoding="utf-8").startswith("# 2026-07-21\n\n## 10:00\n")
    assert day_file(diary, "2026-07-22").is_file()


def test_date_and_time_come_from_ts_on_the_wall_clock_of_tz(diary: Diary) -> None:
    entry = diary.append("late night in Shanghai", ts="2026-07-21T17:30:00+00:00", tz="Asia/Shanghai")
    assert (entry.date, entry.time, entry.ts) == ("2026-07-22", "01:30", "2026-07-21T17:30:00+00:00")
    assert diary.day("2026-07-22") == [entry]


def test_tz_may_be_a_tzinfo_object(diary: Diary) -> None:
    entry = diary.append("evening in New York", ts="2026-07-21T01:15:00+00:00", tz=ZoneInfo("America/New_York"))
    assert (entry.date, entry.time) == ("2026-07-20", "21:15")


def test_tz_defaults_to_the_system_local_zone(diary: Diary) -> None:
    instant = dt.datetime(2026, 7, 21, 6, 30, tzinfo=dt.timezone.utc)
    local = instant.astimezone()
    entry = diary.append("event", ts=instant)
    assert (entry.date, entry.time) == (local.strftime("%Y-%m-%d"), local.strftime("%H:%M"))


def test_explicit_date_and_time_win_over_ts(diary: Diary) -> None:
    entry = diary.append("backdated", ts=TS, date="2026-01-02", time="08:05", tz="UTC")
    assert (entry.date, entry.time, entry.ts) == ("2026-01-02", "08:05", TS)


def test_missing_time_is_derived_even_when_date_is_given(diary: Diary) -> None:
    entry = diary.append("event", ts="2026-07-21T06:30:59+00:00", date="2026-07-21", tz="UTC")
    assert entry.time == "06:30"


def test_ts_is_normalized_to_utc_seconds(diary: Diary) -> None:
    entry = diary.append("event", ts="2026-07-22T01:30:45.999+08:00", tz="Asia/Shanghai")
    assert entry.ts == "2026-07-21T17:30:45+00:00"
    assert (entry.date, entry.time) == ("2026-07-22", "01:30")
    assert diary.day("2026-07-22")[0].ts == "2026-07-21T17:30:45+00:00"


def test_ts_defaults_to_now(diary: Diary) -> None:
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    entry = diary.append("event", tz="UTC")
    after = dt.datetime.now(dt.timezone.utc)
    assert entry.ts is not None and entry.ts.endswith("+00:00")
    assert before <= dt.datetime.fromisoformat(entry.ts) <= after


def test_a_backfilled_entry_is_dated_when_it_happened_not_when_it_was_written(diary: Diary) -> None:
    entry = diary.append("the dentist", date="2024-01-09", time="14:30", tz="Asia/Shanghai")
    assert entry.ts == "2024-01-09T06:30:00+00:00"
    assert diary.day("2024-01-09")[0].ts == "2024-01-09T06:30:00+00:00"


def test_a_backfilled_day_without_a_time_takes_the_time_of_now_on_that_day(diary: Diary) -> None:
    before = dt.datetime.now(dt.timezone.utc).replace(second=0, microsecond=0)
    entry = diary.append("sometime that day", date="2024-01-09", tz="UTC")
    after = dt.datetime.now(dt.timezone.utc)
    assert entry.ts is not None and entry.ts.startswith("2024-01-09T")
    assert entry.time == entry.ts[11:16] and before.strftime("%H:%M") <= entry.time <= after.strftime("%H:%M")


def test_a_backfilled_entry_on_the_system_clock_reads_its_date_and_time_there(diary: Diary) -> None:
    entry = diary.append("local", date="2024-07-01", time="09:15")
    assert entry.ts is not None
    local = dt.datetime.fromisoformat(entry.ts).astimezone()
    assert local.strftime("%Y-%m-%d %H:%M") == "2024-07-01 09:15"


def test_entries_are_sorted_by_time_on_write(diary: Diary) -> None:
    for time in ["22:10", "14:30", "09:00", "23:59", "00:00"]:
        diary.append(f"at {time}", date="2026-07-21", time=time, ts=TS)
    assert [e.time for e in diary.day("2026-07-21")] == ["00:00", "09:00", "14:30", "22:10", "23:59"]
    text = day_file(diary, "2026-07-21").read_text(encoding="utf-8")
    assert text.index("## 00:00") < text.index("## 09:00") < text.index("## 23:59")


def test_entries_in_the_same_minute_keep_insertion_order(diary: Diary) -> None:
    diary.append("first", date="2026-07-21", time="10:00", ts=TS)
    diary.append("later", date="2026-07-21", time="11:00", ts=TS)
    diary.append("second", date="2026-07-21", time="10:00", ts=TS)
    diary.append("earlier", date="2026-07-21", time="09:00", ts=TS)
    diary.append("third", date="2026-07-21", time="10:00", ts=TS)
    assert [e.content for e in diary.day("2026-07-21")] == ["earlier", "first", "second", "third", "later"]


def test_append_never_rewrites_an_existing_entry(diary: Diary) -> None:
    path = day_file(diary, "2026-07-21")
    path.parent.mkdir(parents=True)
    path.write_text("# 2026-07-21\n\n## 14:30\n\nwritten by hand\n", encoding="utf-8")
    diary.append("new", date="2026-07-21", time="15:00", ts=TS)
    first, second = diary.day("2026-07-21")
    assert (first.time, first.content, first.owner, first.ts) == ("14:30", "written by hand", None, None)
    assert second.content == "new"


def test_append_does_not_touch_the_wiki(diary: Diary) -> None:
    diary.append("event", ts=TS, tz="UTC")
    assert not (diary.root / "wiki").exists()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"date": "2026-02-30"},
        {"date": "2026-7-21"},
        {"date": "not a date"},
        {"time": "24:00"},
        {"time": "7:30"},
        {"time": "07:30:00"},
        {"ts": "not a timestamp"},
        {"ts": ""},
        {"tz": "Mars/Olympus_Mons"},
        {"ts": "9999-12-31T23:59:00+00:00", "tz": "Asia/Shanghai"},  # local day would be in year 10000
    ],
)
def test_bad_date_time_ts_or_tz_raises_and_writes_nothing(diary: Diary, kwargs: dict[str, str]) -> None:
    diary.append("existing", date="2026-07-21", time="10:00", ts=TS)
    before = (day_file(diary, "2026-07-21").read_bytes(), diary.journal.path.read_bytes())
    with pytest.raises(ValueError):
        diary.append("event", **{"date": "2026-07-21", "ts": TS, **kwargs})  # type: ignore[arg-type]
    assert (day_file(diary, "2026-07-21").read_bytes(), diary.journal.path.read_bytes()) == before
    assert diary.dates() == ["2026-07-21"]


@pytest.mark.parametrize("content", ["", "   \n ", "x\n## 10:00\ny", "x\n<!-- wikimem: owner=a -->"])
def test_bad_content_raises_and_writes_nothing(tmp_path: Path, content: str) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    with pytest.raises(ValueError, match="content"):
        Diary(root).append(content, ts=TS, tz="UTC")
    assert list(root.iterdir()) == []


def test_day_file_follows_the_wiki_block_layout(diary: Diary) -> None:
    diary.append("睡前提到有点担心新工作压力大。", date="2026-07-21", time="22:10", ts="2026-07-21T14:10:00+00:00")
    diary.append(
        "他说换了工作。[[work:current-job]]",
        ts="2026-07-21T06:30:00+00:00",
        date="2026-07-21",
        time="14:30",
        owner="user:xnne",
        source_conv="conv_20260721",
    )
    assert day_file(diary, "2026-07-21").read_text(encoding="utf-8") == (
        "# 2026-07-21\n\n"
        "## 14:30\n\n他说换了工作。[[work:current-job]]\n\n"
        "<!-- wikimem: owner=user:xnne | source=conv_20260721 | ts=2026-07-21T06:30:00+00:00 -->\n\n"
        "## 22:10\n\n睡前提到有点担心新工作压力大。\n\n"
        "<!-- wikimem: ts=2026-07-21T14:10:00+00:00 -->\n"
    )


# -- reading ------------------------------------------------------------------


def test_repeated_heading_in_diary_keeps_every_entry(tmp_path: Path) -> None:
    day = tmp_path / "diary" / "2026-07-21.md"
    day.parent.mkdir(parents=True)
    day.write_text("# 2026-07-21\n\n## 14:30\n\none\n\n## 14:30\n\ntwo\n", encoding="utf-8")
    entries = Diary(tmp_path).day("2026-07-21")
    assert [(e.time, e.content) for e in entries] == [("14:30", "one"), ("14:30", "two")]


def test_day_of_a_date_without_a_file_is_empty(diary: Diary) -> None:
    diary.append("event", date="2026-07-21", time="10:00", ts=TS)
    assert diary.day("2026-07-22") == []


@pytest.mark.parametrize("date", ["2026-7-21", "2026-02-30", "../../etc/passwd", ""])
def test_day_rejects_a_malformed_date(diary: Diary, date: str) -> None:
    with pytest.raises(ValueError):
        diary.day(date)


def test_hand_written_entry_without_metadata_has_none_provenance(diary: Diary) -> None:
    path = day_file(diary, "2026-07-21")
    path.parent.mkdir(parents=True)
    path.write_text("# 2026-07-21\n\n## 22:10\n\n睡前提到有点担心。\n", encoding="utf-8")
    assert diary.day("2026-07-21") == [DiaryItem("2026-07-21", "22:10", "睡前提到有点担心。")]


@pytest.fixture
def three_days(diary: Diary) -> Diary:
    for date, time in [("2026-07-22", "09:00"), ("2026-07-20", "23:00"), ("2026-07-21", "18:00"),
                       ("2026-07-21", "08:00"), ("2026-07-24", "12:00")]:
        diary.append(f"{date} {time}", date=date, time=time, ts=TS)
    return diary


def test_window_is_inclusive_and_chronological(three_days: Diary) -> None:
    assert [e.content for e in three_days.window("2026-07-20", "2026-07-22")] == [
        "2026-07-20 23:00",
        "2026-07-21 08:00",
        "2026-07-21 18:00",
        "2026-07-22 09:00",
    ]


def test_window_with_reversed_bounds_is_swapped(three_days: Diary) -> None:
    assert three_days.window("2026-07-22", "2026-07-20") == three_days.window("2026-07-20", "2026-07-22")


def test_window_of_one_day_is_that_day(three_days: Diary) -> None:
    assert three_days.window("2026-07-21", "2026-07-21") == three_days.day("2026-07-21")


def test_window_without_entries_is_empty(three_days: Diary) -> None:
    assert three_days.window("2026-07-23", "2026-07-23") == []


@pytest.mark.parametrize(("start", "end"), [("2026-07-20", "tomorrow"), ("2026-7-20", "2026-07-22"), ("", "")])
def test_window_rejects_a_malformed_date(three_days: Diary, start: str, end: str) -> None:
    with pytest.raises(ValueError):
        three_days.window(start, end)


def test_dates_are_ascending(three_days: Diary) -> None:
    assert three_days.dates() == ["2026-07-20", "2026-07-21", "2026-07-22", "2026-07-24"]


def test_files_not_named_as_a_real_date_are_ignored(three_days: Diary) -> None:
    folder = three_days.root / "diary"
    for name in ["notes.md", "2026-13-01.md", "2026-02-30.md", "2026-7-1.md", "2026-07-01.txt", "2026-07-01.md.bak"]:
        (folder / name).write_text("## 10:00\n\nstray\n", encoding="utf-8")
    assert three_days.dates() == ["2026-07-20", "2026-07-21", "2026-07-22", "2026-07-24"]
    assert "stray" not in [e.content for e in three_days.window("2026-01-01", "2026-12-31")]


# -- journal ------------------------------------------------------------------


def test_diary_journals_to_root_journal_jsonl_by_default(diary: Diary) -> None:
    diary.append("event", date="2026-07-21", time="14:30", ts=TS)
    assert Journal(diary.root / "journal.jsonl").entries()[0]["action"] == "diary"


def test_diary_journals_to_the_journal_it_was_given(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "elsewhere.jsonl")
    Diary(tmp_path / "memory", journal=journal).append("event", date="2026-07-21", time="14:30", ts=TS)
    assert [e["action"] for e in journal.entries()] == ["diary"]
    assert not (tmp_path / "memory" / "journal.jsonl").exists()
