"""A password named as a word or string before its value (``core/secret_prose.py``): "the
password is literally the word 'X'" went to a remote model in clear, the rule reading
"the" as the value. Prose about a word or string stays."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

test_a_value_named_as_a_word_is_redacted, test_its_look_alikes_stay = stated_tests([
    ("so the db password is literally the word 'Sunflower7', rotate it", "Sunflower7"),
    ('the kiosk password is the string "Kx8-Lobby"', "Kx8-Lobby"),
    ("the wifi passphrase is just the word 'lighthouse'", "lighthouse"),
], [
    'the password is the string "changeme"',
    "The password is the word of the day",
    "the password is a string from the env",
    "the password is the text in the box",
    "The password is the phrase you chose at signup.",
])


def test_the_cli_refuses_a_pin_stating_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "the vpn password is literally the word 'Marigold42'",
                       "Marigold42")
