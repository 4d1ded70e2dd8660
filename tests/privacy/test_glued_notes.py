"""A password with a note in brackets glued to it (``core/secret_prose.py``, ``_VALUE``):
"新密码:X(注意大小写)" and "the password is X(case matters)" went to a remote model in clear:
the value ran into the bracket and was read as a call in code. Code's calls stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

test_a_password_before_a_note_is_redacted, test_code_stays = stated_tests([
    ("新的门禁密码:Men.Jin.2030(区分大小写)", "Men.Jin.2030"),
    ("the kiosk password is Kq7Lm2031(case matters)", "Kq7Lm2031"),
    ("测试账号密码是 Ce-Shi-88x(临时的)", "Ce-Shi-88x"),
], [
    "password = get_password()",
    "the password is hash(pw) always",
    "self.password = password(x)",
    "the password is bcrypt(salt, pw) here",
])


def test_the_cli_refuses_a_pin_stating_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "新密码:Lou.Dao.2029(注意大小写)", "Lou.Dao.2029")
