"""An English credential's noun, or a variable named for one, then a Chinese verb: "把
REDIS_PASSWORD 设成 Rds#Qa2031 就行", "机房门禁 PIN 是 739146", "token 是 …": the Chinese verbs
followed only the Chinese nouns, and each of these went to a remote model in clear. The
value is judged as after that noun in an English sentence (a PIN's 4 to 12 digits; a
password's weak or strong value; a token's random one)."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("把 REDIS_PASSWORD 设成 Rds#Qa2031 就行", "Rds#Qa2031"),
    ("机房门禁 PIN 是 739146", "739146"),
    ("保险柜的 PIN 是 4417", "4417"),
    ("staging 的 db password 改成了 Stg!Pass77", "Stg!Pass77"),
    ("这个服务的 API key 是 q8Vn2LxT5mRw7KcZ3bJd", "q8Vn2LxT5mRw7KcZ3bJd"),
    ("新的 passphrase 为 Harbor-Light-2031", "Harbor-Light-2031"),
]

UNCHANGED: list[str] = [
    "OTP 是 6 位的,30 秒刷新一次",
    "password 是必填字段",
    "token 是 JWT 格式的",
    "PIN 是四位数字",
    "JWT 的 secret 是 JWT_SECRET 环境变量",
    "pin 是 4417 号",
    "password 设成 ${DB_PASSWORD} 就行",
    "token 的过期时间设为 3600",
]

test_the_value_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_stating_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "把 REDIS_PASSWORD 设成 Rds#Qa2031 就行", "Rds#Qa2031")
