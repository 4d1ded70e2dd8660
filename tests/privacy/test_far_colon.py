"""A credential's noun, a clause about it, then a colon and its value
(``core/secret_clauses.py``): "the master password for the archive db on the old file
server: Kite-Rain-Oak-5" (a qualifier of six words) and "the BMC password on shelf 3 is
written on the label: BMC7Q2ZX8K" (a verb in the clause) went to a remote model in clear.
The value must read as a credential by its shape: a word, a path, a URL, a date or a
number after such a clause's colon stays, and so does a step's heading."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("the master password for the archive db on the old file server: Kite-Rain-Oak-5",
     "Kite-Rain-Oak-5"),
    ("the BMC password on shelf 3 is written on the label: BMC7Q2ZX8K", "BMC7Q2ZX8K"),
    ("api key for the billing sandbox in eu west: q8Zr2LmX0vTy7Kp4", "q8Zr2LmX0vTy7Kp4"),
    ("the token that we gave the release bot last friday: Rb7xKq2Lm9Tz", "Rb7xKq2Lm9Tz"),
    ("The passcode to the server room door is on the whiteboard: 77Qx-Door-41",
     "77Qx-Door-41"),
]

UNCHANGED: list[str] = [
    "Reset the password for the admin account: Admin-Portal-2",
    "the token endpoint for prod: https://auth.example.com/token",
    "the password for the account is in the vault: see secret/prod",
    "token usage for the last week: 1234567 tokens",
    "the api key for staging was rotated on: 2026-12-01",
    "the password for the wifi in the lobby: ask reception",
    "the secret for the webhook is kept in: config/hooks.yaml",
    "the token budget for the model in this long run: 128000",
    "the password of the service account is set by: Terraform",
    "password hashing on the new cluster: Argon2id",
]

test_a_value_after_a_far_colon_is_redacted, test_its_look_alikes_stay = stated_tests(
    STATED, UNCHANGED)


def test_the_cli_refuses_a_pin_stating_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "the root password on the spare node in rack 9: Spare9Q-Node-3x",
                       "Spare9Q-Node-3x")
