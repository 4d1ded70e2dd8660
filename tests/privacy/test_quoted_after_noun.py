"""A password quoted or backticked right after its noun, no verb between: "Web console
-> user `ops`, password `W3b-C0ns0le!`", 'the kiosk passphrase "Lobby#Screen12"': the
no-verb rule read a bare value only, and each went to a remote model in clear. The value
is judged as a quoted one after "the password is"."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("Web console -> user `ops`, password `W3b-C0ns0le!`", "W3b-C0ns0le!"),
    ('the kiosk passphrase "Lobby#Screen12" works again', "Lobby#Screen12"),
    ("router pw `Rt9!lan-22`", "Rt9!lan-22"),
]

UNCHANGED: list[str] = [
    "the password `<password>` placeholder",
    "password `$DB_PASSWORD` from the environment",
    "password `********` in the screenshot",
    "the `password` field",
    "password `${{ secrets.DB_PASSWORD }}`",
    'the password "field" is required',
    "run `passwd` `alice` to reset it",
]

test_the_password_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_stating_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "Web console -> user `ops`, password `W3b-C0ns0le!`",
                       "W3b-C0ns0le!")
