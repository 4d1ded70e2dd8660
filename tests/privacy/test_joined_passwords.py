"""A password of words and digits joined by hyphens or underscores, stated after a
password's noun ("his temp password is Kq4-Wd8-Mz2", "the legacy db password is still
Ora_Prod_07", "密码 Wiki-Team-0417"): prose's test reads such a value as hyphenated
words (``read-only``) and it went to a remote model in clear. It goes where it ends its
clause and mixes capitals, small letters and digits; a name of a format, an all-capitals
variable and a lower-case slug stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("his temp password is Kq4-Wd8-Mz2", "Kq4-Wd8-Mz2"),
    ("the wiki password was reset to Temp-7731-Now, change it at first login",
     "Temp-7731-Now"),
    ("the legacy db password is still Ora_Prod_07", "Ora_Prod_07"),
    ("the kiosk password is Lobby-Screen-12.", "Lobby-Screen-12"),
    ("the password: Snow_Fall_2031", "Snow_Fall_2031"),
    ("测试账号 qa02,密码:HuaShan_66。", "HuaShan_66"),
    ("共享账号是 team@corp.example,密码 Wiki-Team-0417", "Wiki-Team-0417"),
    ("隧道的密钥是 Tun-Key-Beijing-07", "Tun-Key-Beijing-07"),
    ("ssh deploy@web-1, pw Dep!oy-31", "Dep!oy-31"),
    ("login pw Harbor_Light-9, for now", "Harbor_Light-9"),
    # (a look-alike here before: after a password's noun and "is" it is the password, and
    # went out in clear; denied by default now, core/secret_deny.py)
    ("the password is red-fox-42", "red-fox-42"),
]

UNCHANGED: list[str] = [
    "the password is Base64-encoded",
    "the password is OAuth2-Compatible.",
    "the password is SHA-256 hashed",
    "the password is DB_PASSWORD_2",
    "the password is read-only",
    "the password is Python3-compatible and rotated weekly",
    "password reset_token_v2 expired",
    "the token is Build-2024-Ready",
    "密码是 UTF-8 编码",
]

test_a_joined_password_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_stating_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "the staging password is Kq4-Wd8-Mz2", "Kq4-Wd8-Mz2")
