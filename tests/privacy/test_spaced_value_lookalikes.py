"""Sentences about a password that read as one of several words to 2c4d4f7f
(``core/secret_passphrases.py``): plain words that are a clause of prose ("The password was
wrong three times today"), and a message quoted after "is" ('the error message for a wrong
password is "Invalid username or password"', '… passphrase is "at least four words"').
Each was redacted there, and ``waymarks memory add`` refused the note (exit 2). A
passphrase said in the same places still goes."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_note_recorded, stated_tests

LOOK_ALIKES = [
    "The password was wrong three times today.",
    "The password was plaintext until last month.",
    "The password is different across regions too.",
    "The password was wrong again this week.",
    'The error message for a wrong password is "Invalid username or password".',
    'When the password is "Invalid Password Format" we show a toast.',
    'The validation error when the password is "too short (min 12)" appears twice.',
    'The error for a wrong password is "Invalid credentials supplied".',
    'The passphrase is "at least four words" according to the policy doc.',
    'The passphrase for the key is "the usual one".',
]

STILL_SECRET = [
    ("the kiosk password is amber falcon orbit lagoon, ask me if it fails",
     "amber falcon orbit lagoon"),
    ("the wifi password is correct horse battery staple", "correct horse battery staple"),
    ('our wallet passphrase is "orange tundra piano 88" and nobody else knows',
     "orange tundra piano 88"),
    ('the vpn passphrase is "blue river"', "blue river"),
    ("the router password is 'velvet canyon 31 spoon'", "velvet canyon 31 spoon"),
]

test_a_passphrase_still_goes, test_a_look_alike_stays = stated_tests(STILL_SECRET, LOOK_ALIKES)


def test_the_cli_records_a_note_quoting_an_error_message(tmp_path: Path) -> None:
    assert_note_recorded(
        tmp_path, 'The error message for a wrong password is "Invalid username or password".',
        "Invalid username or password")
