"""A login's user and password side by side, after the Chinese verb of logging in ("登录
airflow / …") or as a user's word and name then a password's, a bare "pass" among them
("user sensor, pass …") (``core/secret_logins.py``): each went to a remote model in
clear. The password must read as one; a role, a word or a phrase stays."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

test_a_logins_password_is_redacted, test_its_look_alikes_stay = stated_tests([
    ("jenkins 控制台 登录 builder / Bu1ld!-Ci9", "Bu1ld!-Ci9"),
    ("测试环境登陆 qa_user / Qa#2031-x", "Qa#2031-x"),
    ("greenhouse sensors broker user probe, pass Pr0be$77x", "Pr0be$77x"),
    ("username bob; password Hunter-22x", "Hunter-22x"),
    ("login admin, pass Xk9-Lm2-Qz7.", "Xk9-Lm2-Qz7"),
], [
    "user alice, pass the salt",
    "the user count, password resets and logins",
    "登录 admin / viewer",
    "login: ops, pass: first-pass",
    "登录后台 / 设置页面",
    "for each user, pass the request id along",
])


def test_the_cli_refuses_a_pin_stating_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "nas 登录 backup / Bk!9-Nas-2030", "Bk!9-Nas-2030")
