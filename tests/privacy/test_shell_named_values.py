"""A password a shell is given that reads as a name in code: ``export
DB_PASS=Xiaomi_Router9  # 临时用一下，明天删`` went to a remote model in clear at eaddfd3d
(the assignment rule keeps a value shaped as code's snake_case name, ``Config_V2``, which
``NAME=VALUE`` in Python may be; a shell has no such names). References, variables' names,
lower-case words, names of no digit, a name saying where the secret is, and a keyword
argument in code stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_kept_from_provider, assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("export DB_PASS=Xiaomi_Router9  # 临时用一下，明天删", "Xiaomi_Router9"),
    ("docker run -e API_KEY=Otter_Pond2 img", "Otter_Pond2"),
    ("set DB_PASSWORD=Blue_Sky7", "Blue_Sky7"),
    ("export TOKEN=Blue_Sky7", "Blue_Sky7"),
    ("export SECRET_KEY_BASE=Abc_Def1", "Abc_Def1"),
]

UNCHANGED: list[str] = [
    "export PGPASSWORD=$(cat /run/secrets/pg_password)",
    "export DB_PASSWORD=DB_PASSWORD_DEFAULT",
    "export DB_PASS=app_user1",
    "export DB_PASS=Db_Password",
    "export TOKEN_FILE=Token_File2",
    "x = dict(API_KEY=Config_V2)",
    "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY come from the instance role",
]

test_the_value_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_holding_a_shell_password_is_refused_by_the_cli(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "export DB_PASS=Xiaomi_Router9  # temporary",
                       "Xiaomi_Router9")


def test_a_stored_shell_password_is_kept_from_a_remote_model(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, "export DB_PASS=Xiaomi_Router9  # 临时用一下，明天删",
                              "Xiaomi_Router9", "DB_PASS", "[REDACTED:secret]")
