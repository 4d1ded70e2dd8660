"""A Chinese password's noun, then an adverb or aspect word, or the change told first, before
its verb (``core/secret_prose.py``, ``_CJK_GAP``): "密码已经轮换为 X", "改过密码了，现在是 X"
went to a remote model in clear (the rules wanted the verb right after the noun, or one of
现在/目前/统一 alone). Prose with no value after such words stays."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("备份库的密码已经改成 Bk-Store-5518", "Bk-Store-5518"),
    ("测试机口令已设为 Qa8!lab42", "Qa8!lab42"),
    ("堡垒机密码刚刚重置为 Jump-Host-0912", "Jump-Host-0912"),
    ("ldap 换过密码了，现在是 Ld4p-Sync-33", "Ld4p-Sync-33"),
    ("路由器密码改了，目前是 Rt7x-Home-21", "Rt7x-Home-21"),
    ("nas password 已经改成 Nas!Box-2718", "Nas!Box-2718"),
    ("报表库的密码又改为 Rpt-Read-0420 了", "Rpt-Read-0420"),
]

UNCHANGED: list[str] = [
    "密码已经过期了，请重新设置。",
    "密码已经改了，请看 1Password。",
    "改过密码了，现在是新的那个。",
    "密码又错了三次，账号被锁。",
    "密码已设置为必填项。",
    "密码刚刚重置为默认值。",
]

test_a_password_after_an_adverb_is_redacted, test_its_look_alikes_stay = stated_tests(
    STATED, UNCHANGED)


def test_the_cli_refuses_a_pin_stating_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "发布机的密码已经轮换为 Rel-Push-6604", "Rel-Push-6604")
