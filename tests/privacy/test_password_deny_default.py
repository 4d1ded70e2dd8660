"""Deny by default after a password's noun and an assignment (``core/secret_deny.py``): the
value is redacted unless it is known to be harmless. Judged by its shape before, a value
reading as words went to a remote model in clear: words joined by hyphens, a plain word, a
quoted dictionary word after "literally", a value after "rotated to", Chinese 现在是 / 统一是
/ 轮换为. Ordinary prose about passwords (policies, resets, hashing, errors, labels, code)
stays."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("the vault passphrase is Tiger-Lily-Moon-8", "Tiger-Lily-Moon-8"),
    ("The admin password is opensesame.", "opensesame"),
    ("the wifi password is bluebird, ask at the desk", "bluebird"),
    ("the db password is literally 'Password1'", "Password1"),
    ('the pooler password is "pgbouncer123"', "pgbouncer123"),
    ("the grafana password was rotated to gorilla", "gorilla"),
    ("The password for the KeePass vault is Marmalade.", "Marmalade"),
    ("pwd -> sunflower", "sunflower"),
    ("测试库密码现在是 bluesky", "bluesky"),
    ("所有跳板机密码统一是 harbor", "harbor"),
    ("redis 密码轮换为 Moonlight", "Moonlight"),
    ("口令为 lantern", "lantern"),
]

UNCHANGED: list[str] = [
    "The password is required for all admin accounts.",
    "The password is stored in Vault under secret/prod/db.",
    "The password is salted and hashed with argon2id.",
    "The password is rotated every 90 days.",
    "The password is wrong, check caps lock.",
    "The password is the same as the one for staging.",
    "The password is at least 12 characters long.",
    "The password is case-sensitive.",
    "The password is sha256-hashed.",
    "The password is base64-encoded in the secret.",
    "The password is whatever the operator chose at install.",
    "The password was changed to a stronger one.",
    "The password is read from ~/.pgpass.",
    "The password is ${DB_PASSWORD} in the template.",
    "The password is <password> in the docs.",
    "The password is 16 characters long.",
    "a password's noun",
    "self.password = password",
    "password = get_password()",
    "get_password = (lambda: password) if password else None",
    "the policy for passwords of all staff is strict",
    "the SSH key passphrase is Release Signing Key",
    "The passcode is 2024 compliant.",
    "The boarding pass is gold.",
    "the token is include",
    "密码是必填项。",
    "密码错误，请重试。",
    "密码设置为 16 个字符",
]

test_a_denied_password_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_stating_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "the vault passphrase is marmalade-harbor", "marmalade-harbor")
