"""The verbs of a change, by their stems and endings, and the verbs of where a thing is,
English and Chinese (:mod:`waymarks.core.contradiction`'s signatures). Pure.

A claim that says a value was changed names the new one after its verb: "Upgrade Django
to 5.0" (a commit's subject), "numpy pinned to 2.0.1", "web deploy scaled to 6 replicas",
"Move staging from Fly.io to Render", "构建已升级到 JDK 17", "主节点迁到 redis-b 了",
"接口限流调到 1000 QPS". The verb is no word of the subject: kept, it made the subject
narrower than the stored claim's ("Bump Django to 4.2": bump, django; "Upgrade Django to
5.0": upgrade, django), and the new value passed as another fact. The verbs are listed by
their stem and every form is made from it (:func:`forms`: base, third person, past and
participle, -ing), so the imperative of a commit or ticket, the past of a chat line and
the participle of a wiki page are one verb; a Chinese verb is a change before its result
particle (到, 为, 成, 至: 升级到, 迁到, 换成, 改名为) or before 用 (改用, "switched to using"),
never alone (升级计划 is the upgrade plan).
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy

#: the stems of the English verbs of a change of value (a tool, a version, a place, an
#: amount): each form of one is a change's verb where it stands as one
#: (:func:`waymarks.core.claim_denials.is_change_verb`)
CHANGE_STEMS: Final = tuple(
    """
    bump upgrade downgrade migrate increase decrease raise lower reduce update drop
    rename move switch scale pin shift reschedule swap convert relocate repoint extend
    shorten double halve adjust grow
    """.split())
#: ("go" is no stem: "CI builds with Go 1.21", the language; "went" and "goes" are
#: change words of their own)
_IRREGULAR: Final = {"grow": ("grew", "grown")}
#: one syllable ending in a single vowel and a consonant: its consonant doubles ("pinned",
#: "dropped", "swapping")
_DOUBLES: Final = re.compile(r"[^aeiou]*[aeiou][^aeiouwxy]")


def forms(stem: str) -> frozenset[str]:
    """Every form of the verb ``stem``: itself, its third person, its past and
    participle and its -ing form ("move": moves, moved, moving; "switch": switches,
    switched, switching; "pin": pins, pinned, pinning)."""
    made = {stem, *_IRREGULAR.get(stem, ())}
    if stem.endswith(("s", "sh", "ch", "x", "z", "o")):
        made.add(stem + "es")
    else:
        made.add(stem + "s")
    if stem in _IRREGULAR:
        made.add(stem + "ing")
    elif stem.endswith("e"):
        made.update((stem + "d", stem[:-1] + "ing"))
    elif _DOUBLES.fullmatch(stem):
        made.update((stem + stem[-1] + "ed", stem + stem[-1] + "ing"))
    else:
        made.update((stem + "ed", stem + "ing"))
    return frozenset(made)


#: every form of every verb of :data:`CHANGE_STEMS`
CHANGE_FORMS: Final = frozenset(form for stem in CHANGE_STEMS for form in forms(stem))
#: the determiners before a noun: a verb's form after one is a noun ("the update window",
#: "a drop in traffic", "our move to AWS"), a word of the subject
DETERMINERS: Final = frozenset("the a an this that our my your their its each every".split())

#: the Chinese verbs of a change of value, one character or two: a change's verb before a
#: result particle (:data:`_HAN_RESULTS`) or 用
_HAN_CHANGES: Final = (
    "升级", "升", "降级", "降", "迁移", "迁", "搬迁", "搬", "调整", "调", "扩容", "扩", "缩容",
    "缩", "改名", "改", "更改", "修改", "换", "切换", "切", "更新", "变", "提高", "提升",
    "降低", "增加", "减少", "延长", "缩短", "挪", "转")
_HAN_RESULTS: Final = ("到", "为", "成", "至")
#: the verbs of a change before 用 ("改用 Redis", switched to using it; not 调用, a call)
_HAN_TO_USING: Final = ("改", "换", "转", "切换")
#: the Chinese words of a change, a verb and its particle ("升级到", "迁到", "换成", "改名为",
#: "改用"): no characters of the subject
HAN_CHANGE_WORDS: Final = tuple(
    [verb + result for verb in _HAN_CHANGES for result in _HAN_RESULTS]
    + [verb + "用" for verb in _HAN_TO_USING])

#: the verbs of where a thing is, each form, before a preposition of place ("nginx conf
#: lives in /etc/nginx", "config files are located in /etc/ledger", "… are kept in
#: /opt/ledger/config", "sits under /srv"): no words of the subject, as "is in" has none;
#: "kept" before a time is the retention ("kept for 30 days"), another attribute
_WHERE_IS: Final = (*(f for stem in ("locate", "sit", "reside", "place") for f in forms(stem)),
                    "housed", "kept", "stored", "sat")
WHERE_IS: Final = (
    r"\b(?:" + "|".join(sorted(_WHERE_IS))
    # "live" not after a copula or "go" ("is live in production", "went live in May": a
    # state, a launch)
    + r"|(?<!is )(?<!are )(?<!be )(?<!go )(?<!went )(?:" + "|".join(sorted(forms("live")))
    + r")) +(?=(?:in|at|on|under|inside|within)\b)"
    # "is under /opt/nginx/conf": the preposition before a value (blanked) or the end
    r"|\bunder(?=(?: {2,}| *$))")
#: the same in Chinese, a verb and its particle ("放在", "位于", "存放在", "住在")
HAN_WHERE_WORDS: Final = ("放在", "放到", "位于", "住在", "坐落在", "存放于", "放于")


#: a change's verb and particle in a clause that describes a noun with 的 ("升到 v2 的用户数
#: 是 300": the users upgraded to v2, a part of "用户数是 500"; "换成 SSD 的机器有 8 台")
_DESCRIBING: Final = lazy(
    "(?:" + "|".join(sorted(HAN_CHANGE_WORDS, key=len, reverse=True)) + ")"
    "(?=[^\uff0c\u3002\uff1b\u7684,;]{1,24}\u7684)")


def describing(text: str) -> str:
    """``text`` with the particle of each change that describes a noun (:data:`_DESCRIBING`)
    made a space, so its verb stays a word of the subject, as before change words were
    read (the same length: the signature's positions hold)."""
    if "\u7684" not in text:  # (的: none; the expression not tried)
        return text
    return _DESCRIBING.sub(lambda found: found.group(0)[:-1] + "\u3000", text)

