"""A Chinese password's noun then 4 or 5 digits ending their clause, no verb: "打卡机管理员
密码 7391，别外传", "保险柜口令 40518。": the no-verb rule wanted 6 characters, and each went to a
remote model in clear. Digits that go on into the sentence ("密码 2024 年改过"), fewer
than 4, and letters stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("打卡机管理员密码 7391，别外传", "7391"),
    ("打卡机管理员密码 7391,别外传", "7391"),
    ("保险柜口令 40518。", "40518"),
    ("机房的门禁密码 3691", "3691"),
]

UNCHANGED: list[str] = [
    "密码 2024 年改过",
    "密码 8 位以上",
    "密码 123，太短了",
    "密码 abc1，不行",
    "密码 v2.1 的规则",
]

test_the_digits_are_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_stating_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "打卡机管理员密码 7391，别外传", "7391")
