"""A password or passphrase of several words (``core/secret_passphrases.py``): after a
qualified noun and its colon ("passphrase for the signing key: four plain words"), in ASCII
quotes after "is" ('… passphrase is "words with 42"'), or, after a password's noun, four to
eight plain words that are the whole clause. Each went to a remote model in clear: the
prose rule reads one word after "is", the passphrase rule wanted its colon right after the
noun and left ASCII quotes to the assignment rule, which reads none after "is". Notes about
a password in words (where it is, what it is like, a step's heading) stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("passphrase for the release signing key: maple cobalt ferry anthem",
     "maple cobalt ferry anthem"),
    ("the passphrase of the backup vault: quartz meadow violin",
     "quartz meadow violin"),
    ('our wallet passphrase is "orange tundra piano 88" and nobody else knows',
     "orange tundra piano 88"),
    ("the router password is 'velvet canyon 31 spoon'", "velvet canyon 31 spoon"),
    ("the kiosk password is amber falcon orbit lagoon, ask me if it fails",
     "amber falcon orbit lagoon"),
    ("the printer password on floor two is: lemon arrow basket tiger",
     "lemon arrow basket tiger"),
]

UNCHANGED: list[str] = [
    'the password is "see the vault"',
    "the password is 'the same as staging'",
    'The password prompt says "Enter your password"',
    'The password is "Enter your password" in the old docs',
    "The password is changing next week",
    "The password is quite long and random",
    "The password is salted and hashed with argon2id.",
    "the password for the admin account: see the runbook",
    "Reset the passphrase for the admin account: open the console first",
    "the password is too short for production use",
    "The password is Release Signing Key",
    "the passphrase for the signing key is stored in the vault",
]

test_a_value_of_words_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_the_cli_refuses_a_pin_stating_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "passphrase for the archive key: walnut prairie signal drum",
                       "walnut prairie signal drum")
