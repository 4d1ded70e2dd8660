"""A password set in a sentence to a value of parts, digits or capitals, the noun a
variable's name too (``core/secret_logins.py``): "set SMTP_PASSWORD to walnut-meadow-71 in
your .env" went to a remote model in clear (the rule wanted the noun after a space, and
judged a lower-case joined value by its shape). After a password's own noun such a value
is denied by default, as after "the password is"; a plain lower-case word may be a verb and
is judged as before."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

test_a_password_set_is_redacted, test_its_look_alikes_stay = stated_tests([
    ("set SMTP_PASSWORD to walnut-meadow-71 in the .env, then restart", "walnut-meadow-71"),
    ("we changed the ldap bind password to cedar-lake-2 yesterday", "cedar-lake-2"),
    ("update APP_DB_PWD to kestrel_ridge_48 before deploying", "kestrel_ridge_48"),
], [
    "Set the password to expire.",
    "set DB_PASSWORD to the vault value",
    "set the password to something long",
    "set PGPASSWORD to empty",
    "set the ski pass to season-2024",
    "set MAX_PASSWORD_LENGTH to 64",
    "set the password policy to strict-mode",
    "set the password to expire in 90 days",
])


def test_the_cli_refuses_a_pin_stating_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "set RABBIT_PASSWORD to otter-harbor-58 in compose.yaml",
                       "otter-harbor-58")
