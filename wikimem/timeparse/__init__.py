"""Time windows from query text: narrow beats wrong.

A window decides which diary days enter retrieval at all, so a wrong window
hides the very memory the user asked for, while no window merely leaves the
diary out. Every rule here therefore recognises only expressions with one
clear meaning and gives up (``None``) on anything vague: vague words, bare
weekdays, seasons, open-ended expressions ("before yesterday" is not
yesterday). English month names and years are ordinary words too ("May I",
"in 2023 words"), so the English rules say what makes them time words, and
a few common words that merely contain a time word are skipped (heuristic
lists, and they say so). Stdlib only.

Among several expressions, longer matches swallow the ones inside them (大前天
is not 前天), then the most specific kind wins (day, weekend, week, month,
year) and, at equal precision, an explicit date beats a relative word;
several of the winning kind give the smallest window covering them all.
Every expression understood: docs/guide/time-windows.md.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from datetime import date, timedelta, tzinfo

from wikimem.disk.days import parse_date_span, resolve_today, safe_date as _safe_date
from wikimem.models import TimeRange
from wikimem.timeparse.match import TimeMatch

__all__ = ["TimeMatch", "match_time_range", "may_name_a_time", "parse_date_span", "parse_time_range", "parse_window",
           "resolve_today"]

_DAY, _WEEKEND, _WEEK, _MONTH, _YEAR = 0, 1, 2, 3, 4  # precision ranks, finer first

_CN_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4,
    "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}  # fmt: skip
_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
    "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
}  # fmt: skip
_CN_NUM = "[零〇一二两三四五六七八九十百]+"
# A number must start here: not in the middle of 几十 / 十几 / 123.
_NUM_START = r"(?<![0-9零〇一二两三四五六七八九十百千万几数多好第])"
_NUM = rf"{_NUM_START}(?P<n>[0-9]+|{_CN_NUM})\s*"
_AGO = "(?:以前|之前|前)"
_EN_B = "(?<![a-z0-9_])"
_EN_E = "(?![a-z0-9_])"
_EN_NUM = rf"{_EN_B}(?P<n>[0-9]+|{'|'.join(_EN_NUMBERS)})\s+"

# Relative prefixes, as weeks back (negative = future) / months back.
_REL_STEPS = {"上上": 2, "上": 1, "这": 0, "本": 0, "下": -1, "下下": -2}
_REL = "(?P<rel>上上|下下|上|下|这|本)"
# Heuristic: characters that form a word with the prefix right before it
# (马上, 晚上, 以下, 日本 …), so 马上周末 is not 上周末.
_REL_BLOCKED_AFTER = {
    "上": set("马早晚以之身路网楼桌天地手头世北加爱遇赶跟看关向往最班会书面街台线车床"),
    "下": set("以之地天楼底手剩留私乡陛阁殿部属南上往向落放躺坐写拿记停低降脚眼当"),
    "本": set("日基根书成资剧课账笔样原版文脚范标副读"),
    "这": set(),
}
_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
# Heuristic: after the weekday character these make an ordinary word or a
# counted quantity (这周一起, 上周三个人, 这周天气, 本周日程), not a weekday.
_MEASURE = "个次天位件本趟回遍种名只家份场顿轮年月倍十百千万零一二两三四五六七八九"
_WEEKDAY_BLOCKED = {
    "一": set(_MEASURE + "起些直样点共定般切同边律致旦再生"),
    "日": set("程记志报常子本期历益夜用语元均"),
    "天": set("气空天下堂才然真使生津涯地文"),
}
_WEEKDAY_DEFAULT_BLOCKED = set(_MEASURE)
_WEEK_UNIT = "(?:周(?![期边围年岁遭身])|星期|礼拜)"
_DAY_WORDS = {
    "大前天": -3, "大后天": 3, "前天": -2, "后天": 2, "昨天": -1, "昨日": -1,
    "今天": 0, "今日": 0, "明天": 1, "明日": 1,
}  # fmt: skip
# Heuristic: a word ending right before the day word (如今天气, 以前天天, 聪明天才).
_DAY_WORD_BLOCKED = {
    "今天": set("如"), "今日": set("如"),
    "明天": set("聪光文透清黎失鲜"), "明日": set("聪光文透清黎失鲜"),
    "前天": set("以之从提目面跟眼向往门当生事空史饭睡午年月周天"),
    "后天": set("以之然最而今此落午饭睡死背身先年月周天"),
}  # fmt: skip
_EN_DAY_WORDS = {
    "day before yesterday": -2, "day after tomorrow": 2, "yesterday": -1,
    "today": 0, "tonight": 0, "tomorrow": 1,
}  # fmt: skip
# A lone 前/后 only counts when it ends the phrase (昨天前的…), so 明天前往 and
# 今天后悔 stay days.
_OPEN_AFTER = re.compile(
    r"\s*(?:以前|之前|以后|之后|以来|[前后](?:$|(?=[的都就还呢吗吧])|(?![\u3400-\u9fff])))"
)
_OPEN_BEFORE = re.compile(r"(?<![a-z])(?:since|before|after|until|till)\s+$")


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    rank: int
    absolute: bool
    span: tuple[date, date] | None  # None: an impossible explicit date
    #: A month or day whose year was inferred from today (``in May``, ``7月21日``): a year
    #: named beside it (``last year``, ``in 2023``) is its year instead.
    yearless: bool = False


def _number(text: str) -> int | None:
    """Arabic digits or a Chinese numeral below 1000 (十二, 二十, 两百零五)."""
    if text.isascii():
        return int(text) if text.isdigit() else None
    n, rest = 0, text
    if "百" in rest:
        head, rest = rest.split("百", 1)
        if head not in _CN_DIGITS or _CN_DIGITS[head] == 0:
            return None
        n += _CN_DIGITS[head] * 100
        rest = rest.removeprefix("零")
    if "十" in rest:
        head, rest = rest.split("十", 1)
        if head and (head not in _CN_DIGITS or _CN_DIGITS[head] == 0):
            return None
        n += (_CN_DIGITS[head] if head else 1) * 10
    if rest:
        if rest not in _CN_DIGITS:
            return None
        n += _CN_DIGITS[rest]
    return n


def _month_span(year: int, month: int, back: int = 0) -> tuple[date, date]:
    index = year * 12 + (month - 1) - back
    y, m = divmod(index, 12)
    first = date(y, m + 1, 1)
    return first, first.replace(day=calendar.monthrange(y, m + 1)[1])


def _year_span(year: int) -> tuple[date, date]:
    return date(year, 1, 1), date(year, 12, 31)


def _week_start(today: date, back: int) -> date:
    return today - timedelta(days=today.weekday() + 7 * back)


def _one_day(day: date) -> tuple[date, date]:
    return day, day


def _infer_year(today: date, month: int, day: int = 1) -> int:
    """A month/day later than today means last year's."""
    return today.year - 1 if (month, day) > (today.month, today.day) else today.year


# Each rule: a regex and a handler (match, today) -> (rank, absolute, span) or
# None when the match turns out not to be a time expression after all.
_Span = tuple[date, date] | None
_Result = tuple[int, bool, _Span] | tuple[int, bool, _Span, bool] | None
_Handler = Callable[[re.Match[str], date], _Result]
#: (pattern, handler, cjk): ``cjk`` rules match only text with a CJK character in it (年 月 日 天
#: 周 …), so an all-ASCII query -- most English ones -- skips them.
_RULES: list[tuple[re.Pattern[str], _Handler, bool]] = []


def _rule(pattern: str, *, cjk: bool = False) -> Callable[[_Handler], _Handler]:
    def register(handler: _Handler) -> _Handler:
        _RULES.append((re.compile(pattern), handler, cjk))
        return handler

    return register


def _blocked(m: re.Match[str], chars: set[str]) -> bool:
    start = m.start()
    return start > 0 and m.string[start - 1] in chars


@_rule(r"(?<![0-9])(?P<y>[0-9]{4})(?P<sep>[-/])(?P<m>[0-9]{1,2})(?P=sep)(?P<d>[0-9]{1,2})(?![0-9])")
@_rule(r"(?<![0-9])(?P<y>[0-9]{4})\s*年\s*(?P<m>[0-9]{1,2})\s*月\s*(?P<d>[0-9]{1,2})\s*[日号](?![0-9])", cjk=True)
def _full_date(m: re.Match[str], today: date) -> _Result:
    day = _safe_date(int(m["y"]), int(m["m"]), int(m["d"]))
    return _DAY, True, _one_day(day) if day else None


@_rule(rf"{_NUM_START}(?P<m>[0-9]{{1,2}}|{_CN_NUM})\s*月\s*(?P<d>[0-9]{{1,2}}|{_CN_NUM})\s*[日号](?![0-9])", cjk=True)
def _month_day(m: re.Match[str], today: date) -> _Result:
    month, day_of_month = _number(m["m"]), _number(m["d"])
    if month is None or day_of_month is None:
        return None  # 二三月… is not a numeral, so not a date either
    day = _safe_date(_infer_year(today, month, day_of_month), month, day_of_month)
    return _DAY, True, _one_day(day) if day else None, True


@_rule(r"(?<![0-9])(?P<y>[0-9]{4})\s*年\s*(?P<m>[0-9]{1,2})\s*月(?![0-9])", cjk=True)
@_rule(r"(?<![0-9年])(?P<m>[0-9]{1,2})\s*月份?(?![0-9])", cjk=True)
def _explicit_month(m: re.Match[str], today: date) -> _Result:
    month = int(m["m"])
    if not 1 <= month <= 12:
        return None
    explicit_year = m.groupdict().get("y")
    year = int(explicit_year) if explicit_year else _infer_year(today, month)
    return _MONTH, True, _month_span(year, month) if year >= 1 else None, not explicit_year


@_rule("|".join(_DAY_WORDS), cjk=True)
def _day_word(m: re.Match[str], today: date) -> _Result:
    if _blocked(m, _DAY_WORD_BLOCKED.get(m[0], set())):
        return None
    return _DAY, False, _one_day(today + timedelta(days=_DAY_WORDS[m[0]]))


_EN_DAY_ALTERNATION = "|".join(w.replace(" ", r"\s+") for w in _EN_DAY_WORDS)


@_rule(rf"{_EN_B}(?:the\s+)?(?P<w>{_EN_DAY_ALTERNATION}){_EN_E}")
def _en_day_word(m: re.Match[str], today: date) -> _Result:
    offset = _EN_DAY_WORDS[" ".join(m["w"].split())]
    return _DAY, False, _one_day(today + timedelta(days=offset))


def _back(n: int | None, unit: int, today: date) -> _Result:
    if n is None:
        return None
    if unit == _DAY:
        return _DAY, False, _one_day(today - timedelta(days=n))
    if unit == _WEEK:
        start = _week_start(today, n)
        return _WEEK, False, (start, start + timedelta(days=6))
    return _MONTH, False, _month_span(today.year, today.month, n)


@_rule(rf"{_NUM}天{_AGO}", cjk=True)
def _days_ago(m: re.Match[str], today: date) -> _Result:
    return _back(_number(m["n"]), _DAY, today)


@_rule(rf"{_NUM}(?:个\s*)?(?:周|星期|礼拜){_AGO}", cjk=True)
def _weeks_ago(m: re.Match[str], today: date) -> _Result:
    return _back(_number(m["n"]), _WEEK, today)


@_rule(rf"{_NUM}个\s*月{_AGO}", cjk=True)
def _months_ago(m: re.Match[str], today: date) -> _Result:
    return _back(_number(m["n"]), _MONTH, today)


@_rule(rf"{_EN_NUM}(?P<u>day|week|month|year)s?\s+ago{_EN_E}")
def _en_ago(m: re.Match[str], today: date) -> _Result:
    n = _EN_NUMBERS.get(m["n"]) or _number(m["n"])
    if m["u"] == "year":
        return (_YEAR, False, _year_span(today.year - n)) if n is not None else None
    return _back(n, {"day": _DAY, "week": _WEEK, "month": _MONTH}[m["u"]], today)


@_rule(rf"{_REL}(?:个|一)?{_WEEK_UNIT}(?P<d>[一二三四五六日天末])?", cjk=True)
def _relative_week(m: re.Match[str], today: date) -> _Result:
    rel = m["rel"]
    if _blocked(m, _REL_BLOCKED_AFTER[rel[0]]):
        return None
    monday = _week_start(today, _REL_STEPS[rel])
    day, end = m["d"], m.end()
    if day == "末":
        return _WEEKEND, False, (monday + timedelta(days=5), monday + timedelta(days=6))
    blocked_next = _WEEKDAY_BLOCKED.get(day, _WEEKDAY_DEFAULT_BLOCKED)
    if day is None or (end < len(m.string) and m.string[end] in blocked_next):
        return _WEEK, False, (monday, monday + timedelta(days=6))
    return _DAY, False, _one_day(monday + timedelta(days=_WEEKDAYS[day]))


@_rule(rf"{_REL}个?月(?![亮光球饼色])", cjk=True)
def _relative_month(m: re.Match[str], today: date) -> _Result:
    rel = m["rel"]
    if _blocked(m, _REL_BLOCKED_AFTER[rel[0]]):
        return None
    return _MONTH, False, _month_span(today.year, today.month, _REL_STEPS[rel])


@_rule(rf"{_EN_B}(?P<rel>this|last|next)\s+(?P<u>week|weekend|month|year){_EN_E}")
def _en_relative(m: re.Match[str], today: date) -> _Result:
    back = {"last": 1, "this": 0, "next": -1}[m["rel"]]
    if m["u"] == "year":
        return _YEAR, False, _year_span(today.year - back)
    if m["u"] == "month":
        return _MONTH, False, _month_span(today.year, today.month, back)
    monday = _week_start(today, back)
    if m["u"] == "weekend":
        return _WEEKEND, False, (monday + timedelta(days=5), monday + timedelta(days=6))
    return _WEEK, False, (monday, monday + timedelta(days=6))


# -- English weekdays -----------------------------------------------------------
#
# "last Tuesday" is the Tuesday of last week to some and the most recent
# Tuesday to others; they differ whenever the most recent one is in this
# week. The window covers both candidates (and the days between), so
# neither reading hides the entry. "this Tuesday" is this week's,
# "Tuesday last week" that week's, "on Tuesday" the most recent one up to
# today (a memory is asked about the past). A weekday after "the" ("the
# last Friday of the month"), before "of"/"in", plural ("on Mondays") or a
# bare weekday opens nothing.

_EN_WEEKDAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
}  # fmt: skip
_EN_WEEKDAY_NAMES = "|".join(_EN_WEEKDAYS)
_EN_WD = rf"(?P<wd>{_EN_WEEKDAY_NAMES})"
_EN_WEEK_REL = {"last": 1, "this": 0, "next": -1}


def _weekday_of_week(today: date, back: int, weekday: int) -> date:
    return _week_start(today, back) + timedelta(days=weekday)


@_rule(rf"{_EN_B}(?:on\s+)?{_EN_WD}\s+(?:of\s+)?(?P<rel>this|last|next)\s+week{_EN_E}"
       rf"|{_EN_B}(?P<rel2>this|last|next)\s+week(?:'s)?\s+(?:on\s+)?(?P<wd2>{_EN_WEEKDAY_NAMES}){_EN_E}")
def _en_weekday_of_week(m: re.Match[str], today: date) -> _Result:
    rel, weekday = m["rel"] or m["rel2"], _EN_WEEKDAYS[m["wd"] or m["wd2"]]
    return _DAY, False, _one_day(_weekday_of_week(today, _EN_WEEK_REL[rel], weekday))


_NOT_THIS_WEEKDAY = re.compile(r"\s+(?:of|in)(?![a-z])|\s+the\s+[0-9]")


@_rule(rf"(?<![a-z0-9_]the )(?<![a-z0-9_])(?P<rel>last|this|next|on)\s+{_EN_WD}{_EN_E}")
def _en_weekday(m: re.Match[str], today: date) -> _Result:
    if _NOT_THIS_WEEKDAY.match(m.string, m.end()):
        return None  # "the last Friday of the month", "on Friday the 13th"
    weekday, rel = _EN_WEEKDAYS[m["wd"]], m["rel"]
    if rel == "this":
        return _DAY, False, _one_day(_weekday_of_week(today, 0, weekday))
    if rel == "on":
        return _DAY, False, _one_day(today - timedelta(days=(today.weekday() - weekday) % 7))
    if rel == "last":
        recent = today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)
        return _DAY, False, (_weekday_of_week(today, 1, weekday), recent)
    coming = today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)
    return _DAY, False, (coming, _weekday_of_week(today, -1, weekday))


# -- English calendar dates ---------------------------------------------------
#
# Month names are ordinary words too ("May I", "we march", "ask Jan", "June
# bug", "August Rush"), so a month name counts only beside a day number or a
# year, or right after in/during/throughout ("in May"). The months that are
# also common verbs or names (_WORDY_MONTHS) must moreover be followed by
# the end of the phrase, punctuation or a function word when no year pins
# them ("we march 5 miles", "these 8 may help" are not dates).

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3,
    "april": 4, "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7,
    "august": 8, "aug": 8, "september": 9, "sept": 9, "sep": 9, "october": 10,
    "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
_WORDY_MONTHS = {"may", "march", "mar", "jan"}
_FULL_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_SHORT_MONTHS = "sept|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec"
# A short form may end in a dot ("Sept. 8"); _month strips it.
_EN_MONTH = rf"(?P<mon>{_FULL_MONTHS}|(?:{_SHORT_MONTHS})(?![a-z])\.?)"
_EN_DAY = r"(?P<d>[0-9]{1,2})(?P<ord>st|nd|rd|th)?(?![0-9a-z]|[.:/-][0-9])"
# A four-digit year not glued to more digits, a decade's "s", a unit or a range.
_EN_YEAR = r"(?P<y>(?:1[0-9]|20)[0-9]{2})(?![0-9a-z%]|[.:/-][0-9])"
_NUMBER_BEFORE = r"(?<![0-9a-z.,:/$#+-])"
# Heuristic: the words that may follow a date whose month is also a common
# word, or a bare "in 2023", without making it something else (a count of
# things: "in 2023 words", "8 may help").
_MAY_FOLLOW = frozenset(
    "at in on and or to with for from when where what who which how why i we you he she they it me us my "
    "our your his her their the a was were is did do does had have has that this about during around after "
    "before then last".split()
)
_NEXT_WORD = re.compile(r"\s*([a-z]*)")


def _followed_plainly(m: re.Match[str]) -> bool:
    """Whether what follows the match is the end, punctuation or a function word (see _MAY_FOLLOW)."""
    word = _NEXT_WORD.match(m.string, m.end())
    assert word is not None
    return not word[1] or word[1] in _MAY_FOLLOW


def _month(m: re.Match[str]) -> str:
    return m["mon"].rstrip(".")


def _en_day_result(m: re.Match[str], today: date) -> _Result:
    month, day_of_month, year = _MONTHS[_month(m)], int(m["d"]), m["y"]
    if year is None and _month(m) in _WORDY_MONTHS and not _followed_plainly(m):
        return None
    day = _safe_date(int(year) if year else _infer_year(today, month, day_of_month), month, day_of_month)
    return _DAY, True, _one_day(day) if day else None, year is None


@_rule(rf"{_EN_B}{_EN_MONTH}\s+{_EN_DAY}(?:,?\s+{_EN_YEAR})?")
def _en_month_day(m: re.Match[str], today: date) -> _Result:
    """``May 8``, ``May 8th``, ``May 8, 2023``, ``Sept. 8 2023``."""
    return _en_day_result(m, today)


@_rule(rf"{_NUMBER_BEFORE}(?P<the>the\s+)?{_EN_DAY}\s+(?P<of>of\s+)?{_EN_MONTH}{_EN_E}(?:,?\s+{_EN_YEAR})?")
def _en_day_month(m: re.Match[str], today: date) -> _Result:
    """``8 May``, ``8 May 2023``, ``8 May, 2023``, ``the 8th of May 2023``."""
    if m["of"] and not (m["the"] or m["ord"]):
        return None  # "3 of march" counts things; "the 3rd of March" is a day
    return _en_day_result(m, today)


@_rule(rf"{_EN_B}{_EN_MONTH},?\s+(?:of\s+)?{_EN_YEAR}")
def _en_month_year(m: re.Match[str], today: date) -> _Result:
    """``May 2023``, ``May, 2023``, ``May of 2023``."""
    if _month(m) in _WORDY_MONTHS and not _followed_plainly(m):
        return None  # "may 2000 people"
    return _MONTH, True, _month_span(int(m["y"]), _MONTHS[_month(m)])


@_rule(
    rf"{_EN_B}(?:in|during|throughout|between)\s+(?P<mon>{_FULL_MONTHS}){_EN_E}"
    rf"(?:\s*(?:,|-|–|and|or|to|through)\s*(?P<mon2>{_FULL_MONTHS}){_EN_E})?(?!,?\s*[0-9])"
)
def _en_in_month(m: re.Match[str], today: date) -> _Result:
    """``in May``: the last May that has begun (a month later than today's is last year's).

    ``in May and June`` covers both, placed by its last month (the last
    one that has begun), so ``in December and January`` in July is last
    December and this January. When the first month alone would be read
    in a later year than that (``in June and August`` in July: this June,
    or last summer's?), the pair is a guess: no window.
    """
    month = _MONTHS[m["mon"]]
    if m["mon2"] is None:
        if m[0].startswith("between"):
            return None
        return _MONTH, True, _month_span(_infer_year(today, month), month), True
    last_month = _MONTHS[m["mon2"]]
    last = _month_span(_infer_year(today, last_month), last_month)
    first = _month_span(last[0].year - (month > last_month), month)
    if first[0].year != _infer_year(today, month):
        return None
    return _MONTH, True, (first[0], last[1]), True


@_rule(rf"{_NUMBER_BEFORE}(?P<y>(?:19|20)[0-9]{{2}})(?P<sep>[-/])(?P<m>0[1-9]|1[0-2])(?![0-9]|[.:/-][0-9])")
def _year_month(m: re.Match[str], today: date) -> _Result:
    """``2023-05``, ``2023/05`` -- but not a season spanning two years (``2011-12``, ``2000-01``)."""
    year, month = int(m["y"]), int(m["m"])
    if (year + 1) % 100 == month:
        return None
    return _MONTH, True, _month_span(year, month)


@_rule(
    rf"{_EN_B}(?:in|during|throughout|between)\s+(?:the\s+years?\s+)?(?P<y>(?:19|20)[0-9]{{2}})"
    rf"(?:\s*(?:-|–|and|or|to|through)\s*(?P<y2>(?:19|20)[0-9]{{2}}))?(?![0-9a-z%]|[.:/-]?[0-9])"
)
def _en_in_year(m: re.Match[str], today: date) -> _Result:
    """``in 2023``, ``during 2023``, ``in 2023 and 2024`` -- not ``in 2023 words`` (a count)."""
    if not _followed_plainly(m):
        return None
    first, last = int(m["y"]), int(m["y2"] or m["y"])
    if last < first or (m["y2"] is None and m[0].startswith("between")):
        return None
    return _YEAR, True, (date(first, 1, 1), date(last, 12, 31))


def _is_open_ended(hit_text: str, start: int, end: int) -> bool:
    return bool(_OPEN_AFTER.match(hit_text, end) or _OPEN_BEFORE.search(hit_text, 0, start))


def _hits(text: str, today: date) -> list[_Hit]:
    found: list[_Hit] = []
    ascii_only = text.isascii()
    for pattern, handler, cjk in _RULES:
        if cjk and ascii_only:
            continue
        for m in pattern.finditer(text):
            try:
                result = handler(m, today)
            except (OverflowError, ValueError):  # 99999999天前: before year 1
                continue
            if result is not None:
                found.append(_Hit(m.start(), m.end(), *result))
    # Longest match first; anything overlapping an accepted match is part of it.
    found.sort(key=lambda h: (h.start - h.end, h.start))
    kept: list[_Hit] = []
    for hit in found:
        if all(hit.end <= k.start or hit.start >= k.end for k in kept):
            kept.append(hit)
    return [h for h in kept if not _is_open_ended(text, h.start, h.end)]


def _anchored(hits: list[_Hit]) -> list[_Hit]:
    """Yearless months and days moved into the one calendar year named beside them.

    "May 8th last year", "in May 2 years ago", "in May, in 2023": the year
    word says which May. Two different years named → no window (which
    one the month belongs to is a guess).
    """
    yearless = [h for h in hits if h.yearless and h.span is not None]
    years = {h.span[0].year for h in hits if h.span is not None and h.span[0].year == h.span[1].year
             and (h.rank == _YEAR or (h.absolute and not h.yearless))}
    if not yearless or not years:
        return hits
    if len(years) > 1:
        return []
    year = years.pop()
    moved = []
    for hit in hits:
        if hit.yearless and hit.span is not None:
            first, last = hit.span
            shift = year - last.year  # a pair across New Year ends in the named year
            if first == last:
                day = _safe_date(year, first.month, first.day)
                hit = _Hit(hit.start, hit.end, hit.rank, hit.absolute, _one_day(day) if day else None)
            else:
                span = (_month_span(first.year + shift, first.month)[0], _month_span(year, last.month)[1])
                hit = _Hit(hit.start, hit.end, hit.rank, hit.absolute, span)
        moved.append(hit)
    return moved


def _lowered(text: str) -> str:
    """``text`` lower-cased with every offset unchanged (``İ`` lowers to two characters)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(ch.lower()[0] for ch in text)


# What every rule's match contains at least one of: a digit, one of these
# CJK characters (天 日 周 期 of 星期, 拜 of 礼拜, 月; 号 only follows 月), or an
# English word starting with one of these (month names by their first three
# letters). A new rule must keep this true: tests/test_timeparse_may_name.py
# checks it over every time-word test text.
_MAY_NAME = re.compile(
    r"[0-9天日周期拜月]"
    r"|(?<![a-z])(?:today|tonight|yesterday|tomorrow|ago|week|month|year"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
)


@lru_cache(maxsize=4096)
def may_name_a_time(text: str) -> bool:
    """False when no rule's pattern can occur in ``text``: then :func:`match_time_range` is None on every day.

    Which day is today only matters once some pattern matched (a handler
    reads it), so a caller can skip asking the clock -- and every rule's
    pattern -- for a text that matches none: most queries. One pattern
    whose matches every rule's matches contain (``_MAY_NAME``), so it may
    say yes for a text no rule reads ("May I"), never no for one a rule
    reads. Remembered per text: an app asks the same text per keystroke.
    """
    return _MAY_NAME.search(_lowered(text)) is not None


def match_time_range(
    text: str,
    *,
    tz: tzinfo | str | None = None,
    today: date | str | None = None,
) -> TimeMatch | None:
    """:func:`parse_time_range` plus the spans of ``text`` its time words occupy.

    Same window, same rules, same ``None`` cases; the offsets index ``text``
    as given (case does not move them).
    """
    if not text:
        return None
    ref = resolve_today(today, tz)
    hits = _anchored(_hits(_lowered(text), ref))
    if not hits:
        return None
    best = min((h.rank, not h.absolute) for h in hits)
    winners = [h for h in hits if (h.rank, not h.absolute) == best]
    spans = [h.span for h in winners if h.span is not None]
    if len(spans) < len(winners) or any(h.span is None for h in hits):
        return None  # an impossible date: the user meant a day we cannot know
    start = min(span[0] for span in spans)
    end = max(span[1] for span in spans)
    offsets = tuple(sorted((h.start, h.end) for h in hits))
    return TimeMatch((start.isoformat(), end.isoformat()), offsets)


def parse_window(text: str, *, today: date | str | None = None) -> TimeRange | None:
    """A window a person types in a box of its own: ``A``, ``A..B``, or time words ("last week", "2026-07", 昨天).

    The span syntax first, so a typed ``A..B`` is never read as words; then
    the words, which alone in the box need no query around them.
    """
    return parse_date_span(text) or parse_time_range(text, today=today)


def parse_time_range(
    text: str,
    *,
    tz: tzinfo | str | None = None,
    today: date | str | None = None,
) -> TimeRange | None:
    """The inclusive ``("YYYY-MM-DD", "YYYY-MM-DD")`` window ``text`` names, or None.

    See docs/guide/time-windows.md for every expression understood and how
    competing expressions are resolved. ``today`` (a date or ISO string)
    pins the reference day; otherwise it is today in ``tz`` (a ``tzinfo`` or
    IANA name, default the system's local zone). :func:`match_time_range`
    also says where the time words are.
    """
    match = match_time_range(text, tz=tz, today=today)
    return match.time_range if match is not None else None
