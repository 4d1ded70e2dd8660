"""A key's, secret's or token's English name before a Chinese verb
(``core/secret_prose.py``, ``_CJK_NAMED``): a bare "key" ("机器人的 key 是 …") and a name glued
to its qualifier in camel case ("短信平台 AppSecret 为 …", "ClientKey 是 …") went to a remote
model in clear: the rules wanted a qualified key's noun, a secret's or token's alone. The
value is judged as after a token's noun: names, paths, fields and numbers stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("告警机器人的 key 是 9b1d4f7a-2c3e-4d5f-8a6b-7c8d9e0f1a2b",
     "9b1d4f7a-2c3e-4d5f-8a6b-7c8d9e0f1a2b"),
    ("支付渠道 AppSecret 为 a7c9e1f3b5d7092f4e6a8c0b2d4f6e8a", "a7c9e1f3b5d7092f4e6a8c0b2d4f6e8a"),
    ("地图服务的 ClientKey 是 Qm8xT2vL9pR4zW6n", "Qm8xT2vL9pR4zW6n"),
    ("推送 AccessToken 已经更新为 tK4p9QzX2mWv7LrB0s", "tK4p9QzX2mWv7LrB0s"),
]

UNCHANGED: list[str] = [
    "主键 key 是 id",
    "这个 key 是 user_id 字段",
    "token 是 必填的",
    "key 是 sha256 算出来的",
    "Redis 的 key 是 session:abc123",
    "这个 token 是 JWT 格式",
    "key 是 2048 位的",
    "分区 key 是 tenant_id",
    "S3 的 key 是 backups/2026/db.tar.gz",
    "monkey 是 猴子",
]

test_a_key_before_a_chinese_verb_is_redacted, test_its_look_alikes_stay = stated_tests(
    STATED, UNCHANGED)


def test_the_cli_refuses_a_pin_stating_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "短信网关 AppSecret 为 c3e5a7b9d1f3e5a7c9b1d3f5a7c9e1b3",
                       "c3e5a7b9d1f3e5a7c9b1d3f5a7c9e1b3")
