"""Typed slots: another value of one attribute said in other words (issue 20 item 4).

A signature (:mod:`waymarks.core.contradiction`) finds "another value" when the two claims
share their wording: "The billing API listens on port 8085." beside "… port 8086.". Said in
other words, the subjects differ by a verb or an attribute word, or the value is read in
one claim only: "The nightly export runs at 01:00 UTC." beside "Nightly export starts at
3am UTC.", "Uploads are capped at 25 MB." beside "The maximum upload size is 100 MB.",
日志保留 30 天 beside 日志保存 90 天. A claim's *slots* are

- its typed values, each of one kind (a clock time, a size, a duration, a count or port, a
  percentage, a version, a region, a URL or host), read from the signature of the claim
  with its units written one way (3am and 凌晨 3 点 are 03:00, 4 GiB is 4 GB, one year is
  365 days, 保存 is 保留);
- its subject: the signature's subject terms without the verbs of doing it (runs,
  starts, fires, 运行 …), the words naming a kind of value (size, limit, max, count,
  version, region, URL …) and the words of one attribute said several ways (kept,
  retained, expires, lifetime, TTL, evicted: one lifespan).

Two claims conflict by their slots when their subjects are one, they state values of
the same kinds, one of each kind, and one of those differs. Two subjects are one when they
are equal or one is the other with a single word more that qualifies it ("The checkout
service's Redis cache" / "The checkout cache", "payments API gateway" / "payments gateway",
"web frontend" / "frontend"), the shorter still naming a thing in two words or more.
Anything that may make them two facts keeps them apart: another word in both subjects, two
words more, a word more naming an environment, a region, a rank or a time ("staging",
"us-east-1", "secondary", "next week") or another component ("cache", "broker",
"exporter", "shard"), a shorter subject of one word ("checkout" and its port beside "the
checkout service's Redis cache"), two values of a kind ("HTTP on 8080, metrics on 9090",
"3.10 to 3.12", a range), a bound, a denial, a value more ("also"), a state.
Pure; a write's check only (:func:`waymarks.core.rules.find_contradictions`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator
from functools import lru_cache
from typing import Final, Protocol

from waymarks.core.lazy_re import lazy

#: subject terms of no attribute: verbs of running or doing it, nouns of any job
_DROP: Final = frozenset((
    "run", "runs", "start", "begin", "kick", "fire", "happen", "leave", "depart", "get",
    "use", "serve", "execute", "generated", "split", "hold", "service", "utc", "daily",
    "at", "time", "size", "max", "maximum", "min", "minimum", "limit", "capacity", "cap",
    "capped", "threshold", "interval", "count", "number", "total", "version", "region",
    "url", "host", "hostname", "address", "share", "file", "上", "后", "所"))
#: subject terms of no attribute beside a value of one kind only: a job or task beside
#: its clock time ("The weekly report job kicks off at 7:30am."), the build beside the
#: version it is built with ("The frontend is built with Node 18."); beside a duration,
#: "The job timeout" and "The task timeout" are two things
_DROP_BESIDE: Final = {"time": frozenset(("job", "task")),
                       "number": frozenset(("build",)), "version": frozenset(("build",))}
#: words making a value a bound of it ("The maximum upload size is 100 MB." is at most)
_AT_MOST: Final = frozenset(("max", "maximum", "limit", "capacity", "cap", "capped"))
_AT_LEAST: Final = frozenset(("min", "minimum"))
#: one attribute said several ways
_SAME: Final = {
    "keep": "lifespan", "kept": "lifespan", "retention": "lifespan", "retain": "lifespan",
    "retained": "lifespan", "expire": "lifespan", "expiry": "lifespan",
    "lifetime": "lifespan", "evict": "lifespan", "evicted": "lifespan",
    "eviction": "lifespan", "ttl": "lifespan", "out": "timeout"}

_WORD_NUMBERS: Final = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4,
                        "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
                        "eleven": 11, "twelve": 12}
_TENS: Final = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
                 "seventy": 70, "eighty": 80, "ninety": 90}
#: a number in words before a counted noun ("twelve replicas"; "one" stays a pronoun)
_COUNT_WORDS: Final = lazy(
    r"\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|" + "|".join(_TENS)
    + r")(?:[- ](one|two|three|four|five|six|seven|eight|nine))?(?= [a-z]+s\b)", re.I)
_NOON: Final = lazy(r"\bat (noon|midday|midnight)\b", re.I)
#: a Chinese number before a unit or a counter ("三十天", "四个副本", "十五分钟")
_HAN_NUMBER: Final = lazy(r"([零一二两三四五六七八九十百]+)(?=个|天|小时|分钟|秒|周|月|年|次)")
#: a Chinese hour in words after a part of the day ("凌晨两点", "每晚十二点"; "一点" alone is
#: "a little")
_HAN_HOUR: Final = lazy(
    r"(?<=凌晨|早上|上午|中午|下午|晚上|夜里|每晚)([一二两三四五六七八九十]+)(?=点)")
_HAN_DIGITS: Final = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
                      "六": 6, "七": 7, "八": 8, "九": 9}
#: an owner said in the passive, after "owner:" or as "the owner of" ("The billing service
#: is owned by Alice.", "Billing service owner: Bob.", 计费服务由平台组负责。): said as "Alice
#: owns the billing service." (:mod:`waymarks.core.contradiction` reads that one)
_OWNED: Final = lazy(
    r"^(?:the )?(?P<thing>[\w .'-]+?)(?: is owned by|'s owner is| owner is| owner:)"
    r" (?P<who>[\w -]+?)\.?$", re.I)
_OWNER_OF: Final = lazy(r"^the owner of (?:the )?(?P<thing>[\w .'-]+?) is (?P<who>[\w -]+?)\.?$",
                        re.I)
_HAN_OWNED: Final = lazy(r"^(?P<thing>[^，。由]+?)由(?P<who>[^，。]+?)负责。?$")
#: what names a team beside its name ("the platform team", 平台组): one owner either way
_TEAM: Final = lazy(r"^the |(?: team|组|团队)$")
_TWELVE_HOUR: Final = lazy(r"(?<![\w:.])(\d{1,2})(?::(\d{2}))? ?([ap])(?:m\b|\.m\.)", re.I)
_HAN_CLOCK: Final = lazy(
    r"(凌晨|早上|上午|中午|下午|晚上|夜里)? ?(\d{1,2}) ?点(?:钟)?(半|(\d{1,2}) ?分)?")
_LONG_DURATION: Final = lazy(
    r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r" (years?|months?)\b", re.I)
_HAN_LONG_DURATION: Final = lazy(r"(\d+) ?(?:个)?(年|月)(?![份底初])")
_BINARY_UNIT: Final = lazy(r"(\d) ?([kmgt])ib\b", re.I)
_HAN_COUNT_WORD: Final = lazy(r"(?<=[\u4e00-\u9fff])数(?:量)?(?=\s*(?:是|为|:|：))")
_HAN_AFTER: Final = lazy(r"(天|小时|分钟|秒|周|月|年) ?后")
#: Chinese words said of one attribute several ways, or of no attribute, and a few nouns
#: of project notes a mixed pair writes in English on one side
_HAN_WORDS: Final = (
    ("保存期限", "保留"), ("保存时间", "保留"), ("保留时间", "保留"), ("保留期", "保留"),
    ("保存", "保留"), ("清除", "过期"), ("删除", "过期"), ("灰度发布", "灰度"),
    ("执行时间", ""), ("所在", ""), ("已经升级到", " "), ("已升级到", " "), ("升级到", " "),
    ("升级为", " "), ("系统", ""), ("每天", ""), ("每晚", " nightly "),
    ("夜间", " nightly "), ("订单", " orders "), ("导出", " export "), ("导入", " import "),
    ("清理", " cleanup "))
#: a Chinese verb of doing it before its value or ending the clause (运行日志, "run logs",
#: is a noun: another subject than 日志)
_HAN_VERBS: Final = lazy(r"(?:执行|运行|开始|启动|分配|占比|分成)(?=[\s\d。，,.;；为是]|$)")
_ENGLISH_WORDS: Final = lazy(r"\btimes? out\b", re.I)
_CLOCK: Final = lazy(r"\d{1,2}:\d{2}(?::\d{2})?")
_REGION: Final = lazy(r"[a-z]{2,}(?:-[a-z]+)+-\d+[a-z]?")
_HOST: Final = lazy(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?")
_WORDS: Final = lazy(r"[a-z\u4e00-\u9fff][a-z\u4e00-\u9fff ]*")
_IPV4: Final = lazy(r"\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?")
#: words of an attribute alone, naming no thing ("The build uses port 9001." says no more
#: of what listens there than "服务监听 8080 端口。" does)
_ATTRIBUTES: Final = frozenset(("port", "lifespan", "timeout", "memory", "default"))
#: a word more in one subject that makes it another thing than the other's: an
#: environment, a rank or role, a time, a side, another component (with a word holding a
#: digit or a hyphen, a region or a name such as "us-east", and any Chinese character)
_APART: Final = frozenset((
    "staging", "stage", "prod", "production", "dev", "development", "test", "testing",
    "qa", "uat", "preprod", "sandbox", "canary", "local", "environment", "env", "primary",
    "secondary", "replica", "standby", "master", "slave", "leader", "follower", "read",
    "write", "internal", "external", "public", "private", "legacy", "new", "old", "next",
    "last", "previous", "week", "month", "tomorrow", "starting", "upstream", "downstream",
    "health", "admin", "metric", "metrics", "http", "https", "grpc", "debug", "ui",
    "console", "dashboard", "cache", "database", "db", "queue", "broker", "proxy",
    "client", "server", "sidecar", "exporter", "agent", "scheduler", "shard", "partition",
    "tier", "group", "region", "zone", "mobile", "desktop", "ios", "android", "pool",
    "quarter", "half", "third"))
#: words naming a kind of thing or an attribute, not which one ("The Redis instance" is
#: named by "Redis" alone; "log level" by "log")
_GENERIC: Final = frozenset((
    "instance", "node", "app", "application", "server", "process", "pod", "container",
    "machine", "level", "mode", "setting", "value", "name", "system"))
_VERSION_NUMBER: Final = lazy(r"v?\d+(?:\.\d+){1,2}")
#: a host's last label that names a file instead ("nginx.conf", "config.yaml")
_FILE_ENDINGS: Final = frozenset((
    "conf", "cfg", "ini", "yaml", "yml", "json", "toml", "xml", "py", "js", "ts", "md",
    "txt", "sh", "log", "env", "lock", "html", "sql"))


def _clock(match: re.Match[str]) -> str:
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    if hour > 12 or minute > 59:
        return match.group(0)
    hour = hour % 12 + (12 if match.group(3).lower() == "p" else 0)
    return f"{hour:02d}:{minute:02d}"


def _han_clock(match: re.Match[str]) -> str:
    hour = int(match.group(2))
    minute = 30 if match.group(3) == "半" else int(match.group(4) or 0)
    if match.group(1) in ("下午", "晚上", "夜里") and hour < 12:
        hour += 12
    if hour > 23 or minute > 59:
        return match.group(0)
    return f" {hour:02d}:{minute:02d} "


def _long_duration(match: re.Match[str]) -> str:
    amount = match.group(1).lower()
    count = int(amount) if amount.isdigit() else _WORD_NUMBERS[amount]
    return f"{count * (365 if match.group(2).lower().startswith('y') else 30)} days"


def _han_long_duration(match: re.Match[str]) -> str:
    return f"{int(match.group(1)) * (365 if match.group(2) == '年' else 30)} 天"


def _count_words(match: re.Match[str]) -> str:
    tens, ones = match.group(1).lower(), (match.group(2) or "").lower()
    return str(_TENS.get(tens, _WORD_NUMBERS.get(tens, 0)) + _WORD_NUMBERS.get(ones, 0))


def _han_number(match: re.Match[str]) -> str:
    """"三十" as 30, "一百二十" as 120, "十五" as 15 (up to 999); else as written."""
    total, digit = 0, None
    for char in match.group(1):
        if char in _HAN_DIGITS:
            if digit is not None:
                return match.group(1)  # ("一二": no number of one reading)
            digit = _HAN_DIGITS[char]
        else:
            total += (1 if digit is None else digit) * (100 if char == "百" else 10)
            digit = None
    return f" {total + (digit or 0)} "


def _owner_first(text: str) -> str:
    stripped = text.strip()
    found = _OWNED.match(stripped) or _OWNER_OF.match(stripped)
    if found is not None:
        return f"{found.group('who')} owns the {found.group('thing')}."
    found = _HAN_OWNED.match(stripped)
    return text if found is None else f"{found.group('thing')}的负责人是{found.group('who')}。"


@lru_cache(maxsize=1 << 14)  # (the typed slots and the masked values read it of each rival)
def normalized(text: str) -> str:
    """``text`` with its values and attribute words written one way (see the module)."""
    text = _owner_first(text)
    text = _TWELVE_HOUR.sub(_clock, text)
    text = _NOON.sub(lambda m: "at 00:00" if m.group(1).lower() == "midnight" else "at 12:00",
                     text)
    text = _COUNT_WORDS.sub(_count_words, text)
    text = _LONG_DURATION.sub(_long_duration, text)
    text = _BINARY_UNIT.sub(r"\1 \2B", text)  # (one binary unit: "2 GB" is 2 GiB already)
    text = _ENGLISH_WORDS.sub("timeout", text)
    if re.search(r"[\u4e00-\u9fff]", text):
        text = _HAN_NUMBER.sub(_han_number, _HAN_HOUR.sub(_han_number, text))
        text = _HAN_CLOCK.sub(_han_clock, text)
        text = _HAN_LONG_DURATION.sub(_han_long_duration, text)
        text = _HAN_COUNT_WORD.sub("", text)
        text = _HAN_AFTER.sub(r"\1 ", text)
        text = _HAN_VERBS.sub("", text)
        for word, said in _HAN_WORDS:
            text = text.replace(word, said)
    return re.sub(r"  +", " ", text).strip()


def _kind(value: str) -> tuple[str, str] | None:
    """A signature's value as (kind, canonical value), ``("", "")`` for one that says
    nothing here (a weekday beside a clock time), ``None`` for one of no kind compared."""
    prefix, rest = value[:2], value[2:]
    if prefix == "k:":
        kind, _, name = rest.partition(":")
        return ("", "") if kind == "weekday" else (kind, name)
    if prefix in ("b:", "d:", "p:"):
        return prefix, rest
    if prefix == "c:":
        return ("number", rest) if rest.isdigit() else None
    if prefix != "v:":
        return None
    if _CLOCK.fullmatch(rest):
        return "time", rest
    if rest.isdigit():
        return "number", str(int(rest))
    if _VERSION_NUMBER.fullmatch(rest):
        return "version", rest.lstrip("v")
    if _REGION.fullmatch(rest):
        return "region", rest
    if "://" in rest:
        return "url", rest.rstrip("/")
    if _WORDS.fullmatch(rest):  # a name, as of an owner ("the platform team": "platform")
        return "word", _TEAM.sub("", rest)
    if _IPV4.fullmatch(rest):  # (a name and an address may both be true of one machine)
        return "ip", rest.partition(":")[0]
    if _HOST.fullmatch(rest):  # (its port is another attribute: "smtp.example.com:587")
        host = rest.partition(":")[0]
        return None if host.rsplit(".", 1)[-1] in _FILE_ENDINGS else ("host", host)
    return None


#: (the words apart, of any thing and said several ways, as the masked-text check reads
#: them too: :mod:`waymarks.core.claim_masked`)
APART: Final = _APART
GENERIC: Final = _GENERIC
SAME: Final = _SAME
_BYTES_RATE: Final = lazy(r"r:[\d.]+b/")


def kind_of(value: str) -> tuple[str, str]:
    """Any signature value as (kind, canonical value): :func:`_kind`'s, a state as
    ``"state"``, a rate as ``"rate@<scope>"`` (of bytes, ``"rate-b@<scope>"``: "per user"
    is another attribute than the whole's), a count of a thing as ``"count"``; ``("",
    "")`` for a value of no kind compared."""
    prefix = value[:2]
    if prefix == "s:":
        return "state", value
    if prefix == "r:":
        rate = "rate-b" if _BYTES_RATE.match(value) else "rate"
        return f"{rate}@{value.partition('@')[2]}", value
    if prefix == "c:":
        return "count", value[2:]
    return _kind(value) or ("", "")


class _Slots:
    __slots__ = ("subject", "values")

    def __init__(self, subject: frozenset[str], values: dict[str, str]) -> None:
        self.subject = subject
        self.values = values


@lru_cache(maxsize=1 << 14)
def slots(text: str) -> _Slots | None:
    """The typed slots of a claim, or ``None`` when it has none to compare (no value, a
    kind with two values, a bound, a denial, a state, a value more)."""
    from waymarks.core.contradiction import negates, signature

    found = signature(normalized(text))
    if found is None or found.denied or found.adds or found.listed or (
            negates(text)):
        return None
    bounds = dict(found.bounds)
    said_bound = "<=" if found.subject & _AT_MOST else ">=" if found.subject & _AT_LEAST else ""
    values: dict[str, str] = {}
    for value in found.values - weekly_of_day(found.values):
        typed = _kind(value)
        if typed is None:
            return None
        kind, canonical = typed
        if not kind:
            continue
        canonical += " " + bounds.get(value, said_bound)  # (at most 100 is no 100)
        if kind in values and values[kind] != canonical:
            return None  # two values of a kind: two attributes or a range, not one slot
        values[kind] = canonical
    weekdays = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
    dropped = _DROP.union(weekdays, *(_DROP_BESIDE.get(kind, ()) for kind in values))
    subject = frozenset(_SAME.get(term, term) for term in found.subject if term not in dropped)
    if not values or subject <= _ATTRIBUTES:
        return None
    return _Slots(subject, values)


def weekly_of_day(values: frozenset[str]) -> frozenset[str]:
    """The rate "once a week" a day of the week says of itself ("every tuesday": a
    schedule's day, its rate no other value), to be left out beside that day."""
    return _WEEKLY if any(v.startswith("k:weekday:") for v in values) else frozenset()


_WEEKLY: Final = frozenset(("r:1/w",))


def slots_conflict(mine: str, theirs: str) -> bool:
    """Whether two claims state another value of one slot (see the module): a bound
    beside a plain value is none ("holds up to 500 jobs" / "currently holds 120 jobs")."""
    one, other = slots(mine), slots(theirs)
    if one is None or other is None or not _one_subject(one.subject, other.subject):
        return False
    if one.values.keys() != other.values.keys() or any(
            one.values[kind].rpartition(" ")[2] != other.values[kind].rpartition(" ")[2]
            for kind in one.values):
        return False
    return any(not _same(kind, one.values[kind].rpartition(" ")[0],
                         other.values[kind].rpartition(" ")[0]) for kind in one.values)


def _one_subject(mine: frozenset[str], theirs: frozenset[str]) -> bool:
    """Whether two slots' subjects name one thing: equal, or the longer the shorter with
    one word more that qualifies it (see the module)."""
    if mine == theirs:
        return True
    shorter, longer = sorted((mine, theirs), key=len)
    more = longer - shorter
    if len(more) != 1 or not shorter < longer or len(shorter - _ATTRIBUTES - _GENERIC) < 2:
        return False
    word = next(iter(more))  # (a participle, "replicated", "upgraded", is a state or a deed;
    # an attribute, "timeout" beside "The health check interval", another attribute)
    return (word not in _APART and word not in _ATTRIBUTES and word.isascii()
            and word.isalpha() and not word.endswith("ed"))


def _same(kind: str, mine: str, theirs: str) -> bool:
    """One value: equal, or a version and a release of it ("3.12" and "3.12.0", "1.4"
    and "1.4.2": a line and a release on it, as :mod:`waymarks.core.contradiction` reads
    them)."""
    if kind != "version" or mine == theirs:
        return mine == theirs
    shorter, longer = sorted((mine.split("."), theirs.split(".")), key=len)
    return longer[:len(shorter)] == shorter


class _Texts(Protocol):
    def active_texts_holding(self, partition: str, terms: Collection[str], most: int
                             ) -> Iterable[tuple[str, str]]: ...


# A subject term more claims of a partition hold than this names no subject alone: the
# check looks rivals up one term at a time, and a term every claim holds ("port") made
# each write read and compare every claim (an import of 5,000 port claims: 85 -> 336 s)
COMMON_TERM = 48


def slot_rivals(view: _Texts, text: str, partitions: Iterable[str],
                also: Callable[[str], bool] | None = None) -> Iterator[str]:
    """IDs of the claims of ``partitions`` (any status: the caller judges it) whose slots
    conflict with those of ``text``, or of which ``also`` holds (another test of a
    rival's text: :mod:`waymarks.core.claim_masked`'s, another value in other words with
    the values masked): looked up by each term of its subject's signature (a claim said
    in other words shares a term, not the whole subject)."""
    from waymarks.core.contradiction import signature

    mine = slots(text)
    if mine is None and also is None:
        return
    said = [signature(text), signature(normalized(text))]
    terms = sorted({term for found in said if found is not None for term in found.subject
                    if term not in _DROP})
    seen: set[str] = set()
    for partition in dict.fromkeys(partitions):  # (every term at once: one lookup each)
        for item_id, other in view.active_texts_holding(partition, terms, COMMON_TERM):
            if item_id not in seen:
                seen.add(item_id)
                if (mine is not None and slots_conflict(text, other)) or (
                        also is not None and also(other)):
                    yield item_id
