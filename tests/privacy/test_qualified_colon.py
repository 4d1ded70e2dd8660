"""A credential's noun qualified by what it is for, then a colon ("the passphrase for the
nightly backups: "cobalt-harbor-lantern-5512"", "auth token for the pager bridge: 4c7e…")
or a verb after a qualifier of four or five words ("the signing password for the ios
release build is "…""): the prose rule read a verb only, after three words at most, and
each went to a remote model in clear. The value is judged as after "is"."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

HEX = "4c7e1a9d2b8f6e3c5a0d7b9e1f2c4a6d"

STATED: list[tuple[str, str]] = [
    ('the passphrase for the nightly backups: "cobalt-harbor-lantern-5512"',
     "cobalt-harbor-lantern-5512"),
    (f"auth token for the pager bridge: {HEX}", HEX),
    ("the password for the prod db: Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("the password for root: toor", "toor"),
    ('The signing password for the ios release build is "k3ychain-Sh1p".', "k3ychain-Sh1p"),
    ("the api key of the eu billing sandbox: q8Vn2LxT5mRw7KcZ3bJd", "q8Vn2LxT5mRw7KcZ3bJd"),
]

UNCHANGED: list[str] = [
    "the password for prod db: see the vault",
    "the token for the API: Bearer",
    "notes on password for new users: at least 12 characters",
    "the key for the dashboard: ask ops",
    "the secret for staging: SESSION_SECRET",
    "the token for the build: ${CI_TOKEN}",
    "password for the admin account: <password>",
    "docs for the password of the week: https://wiki.example/pw",
    "the policy for passwords of all staff is strict",
    # (an instruction's heading: tests/privacy/test_prompt_typed.py keeps it too)
    "Reset the password for the admin account: Xk9vT2pQ7mLwR4sZ",
    "change the token for the deploy bot: q8Vn2LxT5mRw7KcZ3bJd",
]

test_the_value_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_stating_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"auth token for the pager bridge: {HEX}", HEX)
