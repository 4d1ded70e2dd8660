"""A credential's noun then its value with no verb, glued to its separator or to none:
``passwd hunter2``, ``password hunter2x9``, ``pw=hunter2`` and a Chinese noun then a
space (``密钥 8f3kQ2mLx9Vb``, ``口令 hunter2``). Each was kept by ``memory add`` and shown
to a remote provider in clear (reproduced with the real CLI on 85ebbbd2): the prose rule
wants a verb, the bare noun's rule a 12-character random run, and ``pw=`` a value prose
reads as random. Words, algorithms, paths and short numbers after the same nouns stay."""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import waymarks
from tests.privacy.digests import assert_kept_from_provider, shape_tests

G = "[REDACTED:secret]"

test_each_value_goes_on_every_path, test_each_look_alike_stays = shape_tests([
    ("passwd hunter2", f"passwd {G}"),
    ("password hunter2x9", f"password {G}"),
    ("the wifi password hunter2 works", f"the wifi password {G} works"),
    ("root password Hunter2x9!, user admin", f"root password {G}, user admin"),
    ("pw=hunter2", f"pw={G}"),
    ("pw:hunter2", f"pw:{G}"),
    ("user admin pw hunter2x9", f"user admin pw {G}"),
    ("password 12345678", f"password {G}"),
    ("密钥 8f3kQ2mLx9Vb", f"密钥 {G}"),
    ("密钥 hunter2x9", f"密钥 {G}"),
    ("口令 hunter2", f"口令 {G}"),
    ("密码 hunter2x9，别外传", f"密码 {G}，别外传"),
], [
    "password argon2id hashing", "password sha256", "password 2024", "passwords 123456",
    "the password reset flow", "password policy requires 12 characters",
    "sudo passwd deploy", "pwd /usr/src/app", "GPIO PIN 13 is high", "pin 4821 items",
    "the PIN is 4 digits", "密码长度至少 12 位。", "密钥 256 位", "password 2fa enabled",
    "passwd user1", "password hunter", "密钥 rotation",
    # (the passwd command's argument is a user's name; a column's character set)
    "sudo passwd alice2", "Run passwd alice2 to reset her account.", "$ passwd deploy2",
    "The password utf8mb4 column was migrated.", "password latin1 encoding",
    "password ascii85",
])


def test_the_real_cli_stores_the_passwd_command_and_a_character_set(
        home: Path, project: Path) -> None:
    """Both were refused as credentials (exit 2) by ``memory add`` at 021b15d9."""
    for text in ("Run sudo passwd alice2 to reset her account.",
                 "The password utf8mb4 column was migrated."):
        done = waymarks("--home", str(home), "--cwd", str(project), "--json", "memory",
                        "add", text, cwd=project)
        assert done.returncode == 0, done.stdout
        assert json.loads(done.stdout)["outcome"] == "committed"


def test_a_stored_one_never_reaches_a_remote_provider(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, "zanzibar wifi password hunter2x9 for guests",
                              "hunter2x9", "zanzibar wifi password", G)
