"""A password or passphrase of several words after "is now" or "is still" ("the wifi
password is now amber falcon orbit lagoon"): 2c4d4f7f's rule read "is" or "was" alone
before the words, so this went to a remote model in clear while "… is amber falcon orbit
lagoon" was redacted. A clause of prose after "is now" stays."""

from __future__ import annotations

from tests.privacy.digests import stated_tests

STATED = [
    ("the wifi password is now amber falcon orbit lagoon", "amber falcon orbit lagoon"),
    ('the vault passphrase is still "orange tundra piano 88"', "orange tundra piano 88"),
    ("the passphrase is now quartz meadow violin", "quartz meadow violin"),
]

UNCHANGED = [
    "The password is now required for all users.",
    "The passphrase is now long enough.",
    "The password is now different across regions too.",
    "The passphrase is now at least four words.",
]

test_the_words_are_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)
