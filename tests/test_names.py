"""Names (SPEC §1 "Names"): RecallFile slugs, item names, diary dates and times.

A RecallFile name is a filename stem and a link prefix, so it is a lowercase
ASCII slug. An item name is a heading and a link target: any language, one
line, none of the characters that would break a link or a heading.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wikimem import Diary, sanitize_item_name, validate_file


@pytest.mark.parametrize("name", ["a", "0", "_", "preferences", "daily_life", "x9-_", "_private", "2026-q4", "a--b"])
def test_validate_file_returns_a_valid_name_unchanged(name: str) -> None:
    assert validate_file(name) == name


@pytest.mark.parametrize(
    "name",
    ["", "-leading-dash", "Preferences", "daily life", "a.b", "a/b", "..", "café", "文件", "a\n", " a", "a:b"],
)
def test_validate_file_rejects_anything_but_a_lowercase_ascii_slug(name: str) -> None:
    with pytest.raises(ValueError, match="RecallFile name"):
        validate_file(name)


def test_validate_file_error_quotes_the_offending_name() -> None:
    with pytest.raises(ValueError, match="Bad_Name"):
        validate_file("Bad_Name")


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("likes-the-sea", "likes-the-sea"),
        ("  padded  ", "padded"),
        ("two   spaces", "two spaces"),
        ("tab\tseparated", "tab separated"),
        ("new\nline", "new line"),
        ("crlf\r\n\r\nlines", "crlf lines"),
        ("mixed \t\n  runs", "mixed runs"),
        ("ideographic\u3000space", "ideographic space"),
    ],
)
def test_sanitize_item_name_collapses_whitespace_runs_to_one_space(raw: str, clean: str) -> None:
    assert sanitize_item_name(raw) == clean


@pytest.mark.parametrize("name", ["手冲咖啡", "café au lait", "Привет мир", "emoji 🎉", "a[b] single brackets", "50% off!"])
def test_sanitize_item_name_accepts_any_language(name: str) -> None:
    assert sanitize_item_name(name) == name


@pytest.mark.parametrize("name", ["", "   ", "\n\t\r\n"])
def test_sanitize_item_name_rejects_an_empty_name(name: str) -> None:
    with pytest.raises(ValueError, match="empty"):
        sanitize_item_name(name)


@pytest.mark.parametrize(("name", "bad"), [("a[[b", "[["), ("a]]b", "]]"), ("work:job", ":"), ("a|b", "|"), ("c# notes", "#")])
def test_sanitize_item_name_rejects_link_and_heading_syntax(name: str, bad: str) -> None:
    with pytest.raises(ValueError) as excinfo:
        sanitize_item_name(name)
    assert repr(bad) in str(excinfo.value)


@pytest.mark.parametrize("date", ["2026-02-30", "2026-7-01", "2026-07-1", "20260701", "2026/07/01", "", "2026-13-01", "２０２６-07-01"])
def test_diary_rejects_a_date_that_is_not_a_real_zero_padded_day(tmp_path: Path, date: str) -> None:
    with pytest.raises(ValueError, match="date"):
        Diary(tmp_path).append("event", date=date, time="10:00")
    assert not (tmp_path / "diary").exists()


@pytest.mark.parametrize("time", ["24:00", "9:30", "09:3", "12:60", "12-30", "12:30:00", "", "1٣:0٥", "１２:００"])
def test_diary_rejects_a_time_outside_zero_padded_00_00_to_23_59(tmp_path: Path, time: str) -> None:
    with pytest.raises(ValueError, match="time"):
        Diary(tmp_path).append("event", date="2026-07-21", time=time)
    assert not (tmp_path / "diary").exists()


@pytest.mark.parametrize("time", ["00:00", "09:05", "23:59"])
def test_diary_accepts_the_edges_of_the_day(tmp_path: Path, time: str) -> None:
    assert Diary(tmp_path).append("event", date="2024-02-29", time=time).time == time


TRICKY_NAMES = ["  padded  ", "a\tb\nc", "手冲 咖啡", "emoji 🎉 name", "x" * 300, "a[b]", "50% off!", "dots.and-dashes_ok"]


@pytest.mark.parametrize("name", TRICKY_NAMES)
def test_sanitize_item_name_is_idempotent(name: str) -> None:
    once = sanitize_item_name(name)
    assert sanitize_item_name(once) == once


@pytest.mark.parametrize("name", TRICKY_NAMES)
def test_a_sanitized_name_is_the_heading_that_reads_back(tmp_path: Path, name: str) -> None:
    from wikimem import MemoryStore

    store = MemoryStore(tmp_path)
    item = store.add("notes", name, "body", ts="2026-07-10T03:00:00+00:00")
    assert item.name == sanitize_item_name(name)
    assert [i.name for i in store.items("notes")] == [item.name]
    assert store.get("notes", name) == item


@pytest.mark.parametrize("bad", ["x\x00y", "ok\x1b[31m", "a\x7fb", "c\x9bd", "evil\u202eeman", "iso\u2066x", "lrm\u200e"])
def test_item_names_with_control_characters_are_refused(bad):
    with pytest.raises(ValueError, match="control character"):
        sanitize_item_name(bad)


def test_store_refuses_a_nul_in_a_heading(tmp_path):
    from wikimem import MemoryStore

    store = MemoryStore(tmp_path)
    with pytest.raises(ValueError, match="U\\+0000"):
        store.add("ok", "x\x00y", "content")
    assert not (tmp_path / "wiki" / "ok.md").exists()


def test_whitespace_controls_still_collapse_in_item_names():
    assert sanitize_item_name("a\tb\nc") == "a b c"
    assert sanitize_item_name("zwj \u200d emoji") == "zwj \u200d emoji"
