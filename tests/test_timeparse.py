"""Time expressions → inclusive date windows, with today pinned.

TODAY is Wednesday 2026-07-22: this week runs 07-20 (Mon) … 07-26 (Sun),
last week 07-13 … 07-19.
"""

from __future__ import annotations

from datetime import date, timezone

import pytest

from wikimem.timeparse import match_time_range, parse_date_span, parse_time_range, resolve_today

TODAY = "2026-07-22"


def window(text: str, today: str = TODAY) -> tuple[str, str] | None:
    return parse_time_range(text, today=today)


def day(iso: str) -> tuple[str, str]:
    return (iso, iso)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("今天", "2026-07-22"),
        ("今日", "2026-07-22"),
        ("昨天", "2026-07-21"),
        ("昨日", "2026-07-21"),
        ("前天", "2026-07-20"),
        ("大前天", "2026-07-19"),
        ("明天", "2026-07-23"),
        ("后天", "2026-07-24"),
        ("大后天", "2026-07-25"),
        ("我昨天说了什么", "2026-07-21"),
    ],
)
def test_day_words(text: str, expected: str) -> None:
    assert window(text) == day(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3天前", "2026-07-19"),
        ("3 天前", "2026-07-19"),
        ("一天前", "2026-07-21"),
        ("两天前", "2026-07-20"),
        ("三天前", "2026-07-19"),
        ("十天前", "2026-07-12"),
        ("十二天前", "2026-07-10"),
        ("二十天前", "2026-07-02"),
        ("二十三天前", "2026-06-29"),
        ("一百天前", "2026-04-13"),
        ("三天以前", "2026-07-19"),
    ],
)
def test_n_days_ago_with_arabic_or_chinese_numerals(text: str, expected: str) -> None:
    assert window(text) == day(expected)


@pytest.mark.parametrize("text", ["几天前", "几十天前", "十几天前", "第三天前", "二三天前"])
def test_n_days_ago_needs_an_exact_number(text: str) -> None:
    assert window(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("today", "2026-07-22"),
        ("What did I do Today?", "2026-07-22"),
        ("today's plan", "2026-07-22"),
        ("yesterday", "2026-07-21"),
        ("tomorrow", "2026-07-23"),
        ("3 days ago", "2026-07-19"),
        ("two days ago", "2026-07-20"),
        ("a day ago", "2026-07-21"),
        ("the day before yesterday", "2026-07-20"),
        ("the day after tomorrow", "2026-07-24"),
    ],
)
def test_english_day_words(text: str, expected: str) -> None:
    assert window(text) == day(expected)


@pytest.mark.parametrize("text", ["todays_plan.md", "yesterdays", "untomorrowed", "a few days ago"])
def test_english_words_match_only_on_word_boundaries(text: str) -> None:
    assert window(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-07-21", "2026-07-21"),
        ("2026/7/21", "2026-07-21"),
        ("2026-7-1", "2026-07-01"),
        ("2025年12月25日", "2025-12-25"),
        ("7月21日", "2026-07-21"),
        ("7月21号", "2026-07-21"),
        ("七月二十一日", "2026-07-21"),
        ("7月22日", "2026-07-22"),
    ],
)
def test_explicit_dates(text: str, expected: str) -> None:
    assert window(text) == day(expected)


@pytest.mark.parametrize(
    ("text", "expected"), [("7月23日", "2025-07-23"), ("8月1号", "2025-08-01"), ("12月31日", "2025-12-31")]
)
def test_month_day_later_than_today_means_previous_year(text: str, expected: str) -> None:
    assert window(text) == day(expected)


def test_month_day_later_than_today_in_january_is_last_year() -> None:
    assert window("12月5日", today="2026-01-15") == day("2025-12-05")


@pytest.mark.parametrize("text", ["2026-02-30", "2026-13-01", "2月30日", "7月32日", "2026年2月29日"])
def test_impossible_dates_give_none(text: str) -> None:
    assert window(text) is None


def test_impossible_date_beats_a_relative_word() -> None:
    assert window("2026-02-30 昨天") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("这周三", "2026-07-22"),
        ("本周五", "2026-07-24"),
        ("这周日", "2026-07-26"),
        ("上周一", "2026-07-13"),
        ("上周三", "2026-07-15"),
        ("上周日", "2026-07-19"),
        ("上周天", "2026-07-19"),
        ("上礼拜三", "2026-07-15"),
        ("上礼拜天", "2026-07-19"),
        ("上个星期五", "2026-07-17"),
        ("上周一下午", "2026-07-13"),
    ],
)
def test_week_plus_weekday_is_that_day(text: str, expected: str) -> None:
    assert window(text) == day(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("这周", ("2026-07-20", "2026-07-26")),
        ("本周", ("2026-07-20", "2026-07-26")),
        ("本星期", ("2026-07-20", "2026-07-26")),
        ("上周", ("2026-07-13", "2026-07-19")),
        ("上个星期", ("2026-07-13", "2026-07-19")),
        ("上周做了什么", ("2026-07-13", "2026-07-19")),
    ],
)
def test_week_words_give_monday_to_sunday(text: str, expected: tuple[str, str]) -> None:
    assert window(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1周前", ("2026-07-13", "2026-07-19")),
        ("2周前", ("2026-07-06", "2026-07-12")),
        ("两周前", ("2026-07-06", "2026-07-12")),
        ("三个星期前", ("2026-06-29", "2026-07-05")),
    ],
)
def test_n_weeks_ago_is_that_whole_week(text: str, expected: tuple[str, str]) -> None:
    assert window(text) == expected


def test_week_starting_sunday_today_still_runs_monday_to_sunday() -> None:
    assert window("这周", today="2026-07-26") == ("2026-07-20", "2026-07-26")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("这个月", ("2026-07-01", "2026-07-31")),
        ("本月", ("2026-07-01", "2026-07-31")),
        ("上个月", ("2026-06-01", "2026-06-30")),
    ],
)
def test_month_words_give_first_to_last_day(text: str, expected: tuple[str, str]) -> None:
    assert window(text) == expected


def test_last_month_in_january_is_last_years_december() -> None:
    assert window("上个月", today="2026-01-15") == ("2025-12-01", "2025-12-31")


def test_this_month_in_february_of_a_leap_year_ends_on_the_29th() -> None:
    assert window("这个月", today="2028-02-10") == ("2028-02-01", "2028-02-29")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("上上周", ("2026-07-06", "2026-07-12")),
        ("下周", ("2026-07-27", "2026-08-02")),
        ("下周一", ("2026-07-27", "2026-07-27")),
        ("上周末", ("2026-07-18", "2026-07-19")),
        ("这周末", ("2026-07-25", "2026-07-26")),
        ("下个月", ("2026-08-01", "2026-08-31")),
        ("3个月前", ("2026-04-01", "2026-04-30")),
        ("7月", ("2026-07-01", "2026-07-31")),
        ("8月份", ("2025-08-01", "2025-08-31")),
        ("2026年2月", ("2026-02-01", "2026-02-28")),
        ("last week", ("2026-07-13", "2026-07-19")),
        ("this month", ("2026-07-01", "2026-07-31")),
        ("2 weeks ago", ("2026-07-06", "2026-07-12")),
    ],
)
def test_unambiguous_extras(text: str, expected: tuple[str, str]) -> None:
    assert window(text) == expected


def test_longer_word_wins_over_its_substring() -> None:
    assert window("大前天的事") == day("2026-07-19")


def test_weekday_reading_beats_week_reading() -> None:
    assert window("上周三开会") == day("2026-07-15")


def test_most_specific_expression_wins() -> None:
    assert window("上周的事，尤其是昨天") == day("2026-07-21")


def test_explicit_date_wins_over_relative_word() -> None:
    assert window("昨天 2026-07-01 的会议") == day("2026-07-01")


def test_several_days_give_the_window_covering_them() -> None:
    assert window("昨天和前天") == ("2026-07-20", "2026-07-21")


@pytest.mark.parametrize("text", ["最近", "前几天", "以前", "过一会儿", "这两天", "最近怎么样", ""])
def test_vague_words_give_none(text: str) -> None:
    assert window(text) is None


@pytest.mark.parametrize("text", ["昨天以前", "上周之后", "7月21日以后", "since yesterday", "until tomorrow"])
def test_open_ended_expressions_give_none(text: str) -> None:
    assert window(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("马上周末了", None),
        ("晚上月亮很圆", None),
        ("上周期的数据", None),
        ("以前天天跑步", None),
        ("几天前天气很好", None),
        ("如今天气很热", None),
        ("这周一起吃饭", ("2026-07-20", "2026-07-26")),
        ("上周天气很好", ("2026-07-13", "2026-07-19")),
        ("这周日程", ("2026-07-20", "2026-07-26")),
        ("明天前往北京", ("2026-07-23", "2026-07-23")),
    ],
)
def test_words_that_merely_contain_a_time_word(text: str, expected: tuple[str, str] | None) -> None:
    assert window(text) == expected


@pytest.mark.parametrize("text", ["99999999天前", "9999999999 days ago", "99999个月前"])
def test_absurdly_large_counts_give_none(text: str) -> None:
    assert window(text) is None


def test_today_may_be_a_date() -> None:
    assert parse_time_range("昨天", today=date(2026, 7, 22)) == day("2026-07-21")


def test_today_defaults_to_now_in_the_given_zone() -> None:
    expected = resolve_today(None, timezone.utc).isoformat()
    assert parse_time_range("today", tz=timezone.utc) == day(expected)


def test_zone_may_be_an_iana_name() -> None:
    assert resolve_today(None, "Asia/Shanghai") == resolve_today(None, "Asia/Shanghai")


def test_unknown_zone_name_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="time zone"):
        parse_time_range("今天", tz="Nowhere/Atlantis")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-07-22", ("2026-07-22", "2026-07-22")),
        ("2026-07-20..2026-07-22", ("2026-07-20", "2026-07-22")),
        ("2026-07-22..2026-07-20", ("2026-07-20", "2026-07-22")),
        (" 2026-7-1 ", ("2026-07-01", "2026-07-01")),
    ],
)
def test_date_span_syntax(text: str, expected: tuple[str, str]) -> None:
    assert parse_date_span(text) == expected


@pytest.mark.parametrize(
    "text", ["", "yesterday", "2026-07-20..", "..2026-07-22", "2026-07-20...2026-07-22", "2026-02-30", "2026/07/20"]
)
def test_malformed_date_span_gives_none(text: str) -> None:
    assert parse_date_span(text) is None


# -- where the time words are (match_time_range) ------------------------------


@pytest.mark.parametrize(
    "text,words,rest",
    [
        ("上周 钢琴", ["上周"], ["钢琴"]),
        ("last week sleep", ["last week"], ["sleep"]),
        ("Last Week sleep", ["Last Week"], ["sleep"]),
        ("2026-07-21", ["2026-07-21"], []),
        ("上周钢琴", ["上周"], ["钢琴"]),  # a space keeps 周钢 from forming
        ("昨天和前天去了哪", ["昨天", "前天"], ["和", "去了哪"]),
        ("上周三 7月 开会", ["上周三", "7月"], ["开会"]),
        ("the day before yesterday at the park", ["the day before yesterday"], ["at", "the", "park"]),
    ],
)
def test_match_reports_every_time_expression_span(text: str, words: list[str], rest: list[str]) -> None:
    match = match_time_range(text, today=TODAY)
    assert match is not None
    assert match.words(text) == words
    assert match.strip(text).split() == rest
    assert match.time_range == parse_time_range(text, today=TODAY)


@pytest.mark.parametrize("text", ["", "钢琴", "最近怎么样", "2026-02-30 会议", "since yesterday"])
def test_no_window_means_no_match(text: str) -> None:
    assert match_time_range(text, today=TODAY) is None
    assert parse_time_range(text, today=TODAY) is None


def test_offsets_index_the_original_text_even_when_lowering_changes_its_length() -> None:
    text = "İstanbul yesterday"
    match = match_time_range(text, today=TODAY)
    assert match is not None and match.words(text) == ["yesterday"]
