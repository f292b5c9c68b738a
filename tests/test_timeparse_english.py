"""English calendar words → windows, and ordinary English that must open none.

TODAY is Wednesday 2026-07-22 (as in test_timeparse.py). Every sentence is
shaped like a question an agent or a person asks its memory. A month or
a year without the other resolves against TODAY: a month later than
TODAY's means last year's. The negative table is the reference's rule --
rather no window than a wrong one: a month name that is a verb or a name,
a year that counts things or names a model, phone numbers, versions.
"""

from __future__ import annotations

import pytest

from wikimem.timeparse import match_time_range, may_name_a_time, parse_time_range

TODAY = "2026-07-22"


def _day(iso: str) -> tuple[str, str]:
    return (iso, iso)


MAY_2023 = ("2023-05-01", "2023-05-31")
YEAR_2023 = ("2023-01-01", "2023-12-31")

POSITIVE: list[tuple[str, tuple[str, str]]] = [
    # month, day and year, in the orders people write them
    ("What did I do on May 8, 2023?", _day("2023-05-08")),
    ("What did Caroline say on 8 May 2023?", _day("2023-05-08")),
    ("Where was I on 8 May, 2023", _day("2023-05-08")),
    ("notes from May 8th, 2023 please", _day("2023-05-08")),
    ("What happened on the 8th of May 2023?", _day("2023-05-08")),
    ("the 8th of May, 2023: who called?", _day("2023-05-08")),
    ("Did Melanie paint on May 8 2023", _day("2023-05-08")),
    ("What did we decide on Sept. 8, 2023?", _day("2023-09-08")),
    ("dinner on Sep 8 2023", _day("2023-09-08")),
    ("What did I write on January 15, 2024?", _day("2024-01-15")),
    ("standup notes Dec 1st 2025", _day("2025-12-01")),
    ("On 3rd March 2024, what did Melanie read?", _day("2024-03-03")),
    ("What did I eat on Feb 29, 2024", _day("2024-02-29")),
    # month and day without a year: this year's, or last year's if still to come
    ("What did I do on May 8th?", _day("2026-05-08")),
    ("what happened on July 4", _day("2026-07-04")),
    ("the 1st of June, who visited?", _day("2026-06-01")),
    ("what did Jan say on 21 July?", _day("2026-07-21")),
    ("Christmas: December 25", _day("2025-12-25")),
    ("Aug 3rd beach trip", _day("2025-08-03")),
    ("October 12 meeting notes", _day("2025-10-12")),
    ("on may 8 at the park", _day("2026-05-08")),
    ("Who did I meet on March 14?", _day("2026-03-14")),
    # month and year
    ("What did Caroline do in May 2023?", MAY_2023),
    ("trips in May, 2023", MAY_2023),
    ("what happened May of 2023", MAY_2023),
    ("summary for Sept 2023", ("2023-09-01", "2023-09-30")),
    ("What did I read in Dec 2025?", ("2025-12-01", "2025-12-31")),
    ("the 2023-05 budget review", MAY_2023),
    ("expenses 2023/05", MAY_2023),
    ("February 2024 notes", ("2024-02-01", "2024-02-29")),
    # a month alone, after in/during/throughout
    ("What did I do in May?", ("2026-05-01", "2026-05-31")),
    ("Where did we travel in August", ("2025-08-01", "2025-08-31")),
    ("How was my sleep during July?", ("2026-07-01", "2026-07-31")),
    ("what did I cook throughout March", ("2026-03-01", "2026-03-31")),
    ("What did we do in May and June?", ("2026-05-01", "2026-06-30")),
    ("trips between March and May", ("2026-03-01", "2026-05-31")),
    ("how did I sleep in December and January", ("2025-12-01", "2026-01-31")),
    # a year
    ("What did Melanie paint in 2023?", YEAR_2023),
    ("books I read during 2023", YEAR_2023),
    ("in 2023, where did we go", YEAR_2023),
    ("in the year 2023 what did I learn", YEAR_2023),
    ("in 2023 we moved house", YEAR_2023),
    ("what did we build in 2023 and 2024?", ("2023-01-01", "2024-12-31")),
    ("trips between 2021 and 2023", ("2021-01-01", "2023-12-31")),
    ("during 2022-2023, who visited", ("2022-01-01", "2023-12-31")),
    # N ago, in digits or words
    ("What did I do three years ago?", YEAR_2023),
    ("what did Caroline say a year ago", ("2025-01-01", "2025-12-31")),
    ("What was I doing 2 years ago", ("2024-01-01", "2024-12-31")),
    ("where was I a week ago", ("2026-07-13", "2026-07-19")),
    ("What did I eat fifteen days ago?", _day("2026-07-07")),
    ("what happened six months ago", ("2026-01-01", "2026-01-31")),
    ("What did I say twenty days ago", _day("2026-07-02")),
    # relative years
    ("What did I do last year?", ("2025-01-01", "2025-12-31")),
    ("goals for this year", ("2026-01-01", "2026-12-31")),
    ("plans for next year", ("2027-01-01", "2027-12-31")),
    # several: the most specific wins, equal ones are covered together
    ("between May 1, 2023 and May 8, 2023", ("2023-05-01", "2023-05-08")),
    ("in 2023, on May 8th 2023", _day("2023-05-08")),
]

NEGATIVE = [
    "May I ask what you remember about Caroline?",
    "May I see my notes on the museum?",
    "I may go to the support group, what did I say about it?",
    "What may happen if I skip the meds?",
    "may the force be with you",
    "Did we watch March of the Robots?",
    "we march 5 miles every weekend, what shoes did I pick?",
    "these 8 may help with sleep, which were they?",
    "What did I think of the 2023 model of the bike?",
    "is the 2023 model better than the 2021 one",
    "June bug infestation in the garden, what did I spray?",
    "Did I ask June about the painting?",
    "what did June say to Melanie",
    "a sunday roast recipe",
    "Did we like August Rush?",
    "what did Jan 5 people bring",
    "2023 people signed the petition, where is that note?",
    "my phone number is 555-2023",
    "call +1 415-2023-0512 about the order",
    "upgrade python 3.11 on the server",
    "what changed in version 2023.05",
    "summarise it in 2023 words",
    "prices in 1999 dollars",
    "the 2011-12 season results",
    "stats for 2009/10",
    "what happened a couple of days ago",
    "a few weeks ago we met, who was there?",
    "several years ago I lived in Paris",
    "what did I do this spring?",
    "Where did we go last summer?",
    "since May 2023 what changed",
    "before 8 May 2023, where did I live?",
    "after March 14 who called",
    "What is the best month to visit Japan?",
    "Mayday call log",
    "the mayor's speech",
    "Junebug and Marchesi recipes",
    "the decor budget",
    "room 2023 key code",
    "order #2023-05 status",
    "1 of march's soldiers",
    "3 of May help",
    "the class of 2023 reunion",
    "in 2000s music",
    "may 2000 people attend?",
    "in 2023-24 the club won",
    "in 2024 and 2023 what",  # reversed: no guess
    "between 2023 people",
    "in June and August, where did we go",  # this June, last August: a guess
    "between May I think",
    "the last Friday of the month, what did we review?",
    "last Friday of each quarter we close the books",
    "on Mondays we swim, where?",
    "every Tuesday standup notes",
    "Black Friday deals I saved",
    "on Friday the 13th what went wrong",
    "since last Tuesday what changed",
    "Ruby Tuesday lyrics",
]


# TODAY is a Wednesday: this week's Monday and Tuesday are the most recent ones.
WEEKDAYS: list[tuple[str, tuple[str, str]]] = [
    # "last" + a weekday this week has passed: both readings, and the days between
    ("what did I do last Monday?", ("2026-07-13", "2026-07-20")),
    ("What did we fix last Tuesday?", ("2026-07-14", "2026-07-21")),
    # ... one reading when the most recent one is already last week's
    ("what did I do last Thursday?", _day("2026-07-16")),
    ("last Sunday at the park", _day("2026-07-19")),
    ("this Friday's plan", _day("2026-07-24")),
    ("what did I do this Monday", _day("2026-07-20")),
    ("next Monday", _day("2026-07-27")),
    ("next Thursday", ("2026-07-23", "2026-07-30")),
    # "on": the most recent one, today included
    ("what happened on Thursday?", _day("2026-07-16")),
    ("what did I do on Wednesday", _day("2026-07-22")),
    ("On Monday, who called?", _day("2026-07-20")),
    # a weekday of a named week
    ("on Tuesday last week", _day("2026-07-14")),
    ("last week on Tuesday", _day("2026-07-14")),
    ("last week's Tuesday", _day("2026-07-14")),
    ("Friday of last week", _day("2026-07-17")),
    ("Monday next week", _day("2026-07-27")),
    ("last Tuesday and yesterday", ("2026-07-14", "2026-07-21")),
]


@pytest.mark.parametrize(("text", "expected"), POSITIVE + WEEKDAYS)
def test_english_dates_open_their_window(text: str, expected: tuple[str, str]) -> None:
    """Dates, and weekdays: each opens every day it may mean."""
    assert parse_time_range(text, today=TODAY) == expected
    assert may_name_a_time(text)


@pytest.mark.parametrize("text", NEGATIVE)
def test_ordinary_english_opens_no_window(text: str) -> None:
    assert parse_time_range(text, today=TODAY) is None


def test_the_tables_are_large_enough() -> None:
    assert len(POSITIVE) >= 40 and len(NEGATIVE) >= 40


@pytest.mark.parametrize(
    ("text", "words", "rest"),
    [
        ("What did Caroline do in May 2023?", ["may 2023"], ["what", "did", "caroline", "do", "in", "?"]),
        ("Where was I on 8 May, 2023", ["8 may, 2023"], ["where", "was", "i", "on"]),
        ("What did Melanie paint in 2023?", ["in 2023"], ["what", "did", "melanie", "paint", "?"]),
        ("What did I do three years ago?", ["three years ago"], ["what", "did", "i", "do", "?"]),
        ("museum in May", ["in may"], ["museum"]),
    ],
)
def test_the_words_that_form_the_window_are_reported(text: str, words: list[str], rest: list[str]) -> None:
    match = match_time_range(text, today=TODAY)
    assert match is not None
    assert [w.lower() for w in match.words(text)] == words
    assert match.strip(text).lower().replace("?", " ?").split() == rest


@pytest.mark.parametrize(
    ("text", "today", "expected"),
    [
        ("in May", "2026-05-01", ("2026-05-01", "2026-05-31")),  # May has begun: this year's
        ("in May", "2026-04-30", ("2025-05-01", "2025-05-31")),  # still to come: last year's
        ("May 8th", "2026-05-07", _day("2025-05-08")),
        ("May 8th", "2026-05-08", _day("2026-05-08")),
        ("in December", "2026-01-02", ("2025-12-01", "2025-12-31")),
        ("three years ago", "2026-01-01", YEAR_2023),
    ],
)
def test_a_month_without_a_year_is_the_last_one_that_has_begun(
    text: str, today: str, expected: tuple[str, str]
) -> None:
    assert parse_time_range(text, today=today) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What did I do in May last year?", ("2025-05-01", "2025-05-31")),
        ("May 8th last year", _day("2025-05-08")),
        ("in August, three years ago", ("2023-08-01", "2023-08-31")),
        ("in May, in 2023", MAY_2023),
        ("7月21日 last year", _day("2025-07-21")),
        ("in May, in 2023 or in 2024", None),  # which May: a guess
        ("on May 8th and June 3rd, 2023", ("2023-05-08", "2023-06-03")),  # an explicit date's year
        ("in May and June 2023", ("2023-05-01", "2023-06-30")),
        ("in December and January last year", ("2024-12-01", "2025-01-31")),
        ("Feb 29th in 2023", None),
    ],
)
def test_a_year_named_beside_a_yearless_month_is_its_year(text: str, expected: tuple[str, str] | None) -> None:
    assert parse_time_range(text, today=TODAY) == expected


@pytest.mark.parametrize("text", ["February 30, 2023", "31 April 2024", "Feb 29 2023", "2023-13"])
def test_impossible_english_dates_give_none(text: str) -> None:
    assert parse_time_range(text, today=TODAY) is None


def test_a_year_before_year_one_gives_none() -> None:
    assert parse_time_range("9999 years ago", today=TODAY) is None


def test_retrieval_does_not_score_the_words_of_an_english_date(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import datetime as dt

    from wikimem import MemoryIndex, MemoryStore

    store = MemoryStore(tmp_path / "memory")
    store.add("notes", "May", "May is a name here: may, may, may.")
    store.diary.append("Went to the museum with Caroline.", date="2023-05-08", time="10:00")
    index = MemoryIndex(store, use_jieba=False, today=lambda: dt.date(2026, 7, 22))
    result = index.retrieve("museum in May 2023", explain=True)
    assert result.time_range == MAY_2023 and result.time_words == ["May 2023"]
    assert "may" not in result.query_tokens and "2023" not in result.query_tokens
    assert [(e.item.file, e.item.name) for e in result.items] == [("2023-05-08", "10:00")]
