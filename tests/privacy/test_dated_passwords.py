"""A password that reads as a date or a long version, right after a password's noun and a
verb or as a login's second half: "Grafana admin 密码就是 2024.10.01，国庆那天设的", "jenkins
login is admin / 2023-11-04 , the day they set it up". Each went to a remote model in
clear at eaddfd3d (a version or a date was kept after a password's noun). A date after any
other word, a short version and a pair with no login's word stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_kept_from_provider, assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("jenkins login is admin / 2023-11-04 , the day they set it up lol", "2023-11-04"),
    ("Grafana admin 密码就是 2024.10.01，国庆那天设的", "2024.10.01"),
    ("the wifi password is 20.11.2019", "20.11.2019"),
    ("the password is 2024-10-01.", "2024-10-01"),
    ("密码是 1999.12.31", "1999.12.31"),
    ("password changed to 2024.01.05", "2024.01.05"),
    ("the passphrase for the nas is literally 1987/06/15", "1987/06/15"),
    ("sign in: root / 2019.08.01", "2019.08.01"),
    ("账号 ops / 2020-02-02，别外传", "2020-02-02"),
]

UNCHANGED: list[str] = [
    "the password was rotated on 2024-10-01",
    "the password expires 2024-12-31",
    "密码有效期到 2024-12-31",
    "pw is 1.2",
    "admin/2023-11-04",
    "password: 2024-01-01 10:00:00",
    "the password is 1.2.3-rc1",
    "bumped fastapi to 0.110.1 and pydantic to 2.6.4",
    "这次升级到 v3.8.2，修复了分页的 bug",
    "password policy v2.1.0 was published 2024-01-01",
    "the password last changed 2024-01-01",
    "login on 2024-01-01 failed",
    "account created 2024/01/02",
    "mobile build 4.12.0 (1187) went out to testflight",
]

test_the_dated_password_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_holding_a_dated_password_is_refused_by_the_cli(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "jenkins login is admin / 2023-11-04 , the day they set it up",
                       "2023-11-04")


def test_a_stored_dated_password_is_kept_from_a_remote_model(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, "Grafana admin 密码就是 2024.10.01，国庆那天设的",
                              "2024.10.01", "Grafana", "[REDACTED:secret]")
