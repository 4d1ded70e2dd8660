"""A schedule written in Chinese as the English one (:mod:`waymarks.core.contradiction`'s
signatures): a day of the week ("每周二", "星期四", "周日") is "every tuesday", "on thursday",
"on sunday", a name of its kind (:mod:`waymarks.core.claim_kinds`), and a clock time in
words or digits with its part of the day ("凌晨两点", "上午十点", "下午 3 点半", "晚上
11 点 30 分") is the time in the 24-hour clock ("02:00", "10:00", "15:30", "23:30"). Read
as characters, a day was a word of the subject (each claim another subject) and "两点"
no value, so "数据库备份每天凌晨两点执行。" was written beside "… 凌晨四点执行。".

An hour is a time only with its part of the day, after "每天" or a day ("每周二 10 点"), or
with its minutes ("3 点 30 分", "3 点半", "3 点钟"): "有 3 点需要注意" counts points. Pure."""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy

_DIGITS: Final = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
                  "六": 6, "七": 7, "八": 8, "九": 9}
_NUMERAL: Final = r"(?:\d{1,2}|[零〇一二两三四五六七八九十]{1,3})"
_DAYS: Final = {"一": "monday", "二": "tuesday", "三": "wednesday", "四": "thursday",
                "五": "friday", "六": "saturday", "日": "sunday", "天": "sunday"}
#: a day of the week, after "每" (every) or not: 周二, 星期二, 礼拜二 (not 周末, nor the
#: count of "每周五次", five times a week)
_DAY: Final = lazy(r"(每\s*)?(?:周|星期|礼拜)([一二三四五六日天])(?![次遍回个])")
#: the parts of the day, and the hours they add to a 12-hour clock's
_PARTS: Final = {"凌晨": 0, "早上": 0, "早晨": 0, "清晨": 0, "上午": 0, "中午": 12,
                 "下午": 12, "傍晚": 12, "晚上": 12, "夜里": 12, "夜间": 12}
_CLOCK: Final = lazy(
    rf"(?P<part>{'|'.join(_PARTS)})?\s*(?P<hour>{_NUMERAL})\s*点"
    rf"(?:\s*(?P<minute>{_NUMERAL})\s*分|(?P<half>半)|(?P<quarter>一刻)|(?P<sharp>钟|整))?")
#: what makes an hour without its part of the day a time: "每天" or a day before it
_DAILY: Final = lazy(r"(?:每天|每日|每晚|every [a-z]+day)\s*$")
_HINT: Final = lazy(r"周|星期|礼拜|点")


def han_schedule(text: str) -> str:
    """``text`` with its Chinese days of the week and clock times as English ones."""
    if text.isascii() or _HINT.search(text) is None:
        return text
    text = _DAY.sub(lambda m: f" {'every' if m.group(1) else 'on'} {_DAYS[m.group(2)]} ",
                    text)
    return _CLOCK.sub(_clock, text) if "点" in text else text


#: a Chinese period after 每 that says how often, not how many ("每周五次" is a count, "每天
#: 4 点" a time, read above; "每月" is left: no rate of months is read)
_HAN_UNITS: Final = {"天": "day", "日": "day", "晚": "night", "夜": "night", "周": "week",
                     "星期": "week", "小时": "hour"}
_HAN_EVERY: Final = lazy(r"每\s*(天|日|晚|夜|周|星期|小时)"
                        r"(?![一二三四五六七八九十两\d次遍回个]|\s*\d+(?:\.\d+)?\s*[次个遍回])")
#: "every day", "every night", "every hour", "every week" saying how often (not "every day
#: or two", "every 2 weeks", "every other day"), and a single day of the week
#: ("every sunday", "sundays": once a week; not "every monday and thursday")
_EVERY_PERIOD: Final = lazy(
    r"\bevery (day|night|hour|week)\b(?! (?:or|and)\b)"
    r"|\bevery (?=(?:mon|tues|wednes|thurs|fri|satur|sun)day\b(?!s| ?(?:and|or|,|/|&)))"
    r"|\b(?:on |(?<!on ))(?=(?:mon|tues|wednes|thurs|fri|satur|sun)days\b"
    r"(?! ?(?:and|or|,|/|&)))")
_PERIOD_UNIT: Final = {"day": "day", "night": "day", "hour": "hour", "week": "week"}


def every_period(text: str) -> str:
    """``text`` (folded) with a period of its schedule as a rate ("every night" is "1 per
    day", "every sunday" "1 per week every sunday", "tuesdays" "1 per week every
    tuesdays"): read as words, "every night" stated no value and "nightly" one (the
    derived key's "generated daily" refused "… every day"), and "nightly" beside "every
    sunday" compared no values of one kind."""
    if "每" in text:  # ("每晚": every night; "每周": every week; "每小时": every hour)
        text = _HAN_EVERY.sub(lambda m: f" every {_HAN_UNITS[m.group(1)]} ", text)
    return _EVERY_PERIOD.sub(lambda m: f"1 per {_PERIOD_UNIT[m.group(1)]}" if m.group(1)
                             else m.group(0) if _off_day(m)
                             else "1 per week " + (m.group(0) or "every "), text)


#: a word saying a schedule does not happen on a day ("standup is skipped on fridays":
#: the daily schedule's exception, not a weekly rate of its own)
_OFF: Final = lazy(r"\b(?:skip(?:s|ped)?|cancel(?:s|l?ed)?|disabled|paused|suspended|frozen"
                   r"|off|not|no|never|none|except|excluding|excluded|without|holidays?)\b")


def _off_day(match: re.Match[str]) -> bool:
    """Whether the day of the week ``match`` found is said in a clause (up to ``.``, ``;``)
    saying the schedule is off that day: the exception to a schedule, no rate."""
    text, at = match.string, match.start()
    start = max(text.rfind(".", 0, at), text.rfind(";", 0, at)) + 1
    ends = [e for e in (text.find(".", at), text.find(";", at)) if e >= 0]
    return _OFF.search(text, start, min(ends) if ends else len(text)) is not None


def _clock(match: re.Match[str]) -> str:
    hour, minute = _number(match.group("hour")), 0
    if match.group("minute"):
        minute = _number(match.group("minute"))
    elif match.group("half"):
        minute = 30
    elif match.group("quarter"):
        minute = 15
    part = match.group("part")
    if part is None and not (match.group("minute") or match.group("half")
                             or match.group("quarter") or match.group("sharp")) and (
            _DAILY.search(match.string, 0, match.start()) is None):
        return match.group(0)  # ("有 3 点需要注意": three points)
    if part is not None and hour < 12 and _PARTS[part] and (part != "中午" or hour < 3):
        hour += 12  # (下午 3 点 is 15:00, 中午 1 点 13:00, 中午 12 点 noon)
    elif part is not None and hour == 12 and not _PARTS[part]:
        hour = 0  # (凌晨 12 点 is midnight)
    if hour > 24 or minute > 59:
        return match.group(0)
    return f" {hour % 24:02d}:{minute:02d} "


def _number(numeral: str) -> int:
    """A number of two digits at most, in digits or Chinese numerals (十一 is 11, 二十 20)."""
    if numeral.isdigit():
        return int(numeral)
    tens, ten, ones = numeral.partition("十")
    if not ten:
        return _DIGITS.get(numeral, 99)
    return (_DIGITS.get(tens, 99) if tens else 1) * 10 + (_DIGITS.get(ones, 99) if ones else 0)
