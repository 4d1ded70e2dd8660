"""A passcode whose four digits read as a year (1900-2099) is still a passcode.

9cf269db let "The passcode is 2024." pass as a year, so "The door passcode is 2019."
and "the safe's passcode is 1987." reached the remote model in clear, while "The alarm
PIN is 1987." was redacted: a birth year is among the commonest four-digit codes people
choose. After "passcode is" and before the clause's end, four digits are the code."""

from __future__ import annotations

from tests.privacy.digests import stated_tests

STATED: list[tuple[str, str]] = [
    ("The door passcode is 2019.", "2019"),
    ("the safe's passcode is 1987.", "1987"),
    ("The passcode is 2024.", "2024"),
    ("the garage passcode is 1999", "1999"),
    ("The alarm PIN is 1987.", "1987"),
]

UNCHANGED: list[str] = [
    "The passcode scheme changed in 2024.",
    "The passcode is 2024 compliant.",
    "Passcodes were introduced in 2019.",
    "The passcode policy dates from 1999.",
]

test_the_code_is_redacted, test_the_year_stays = stated_tests(STATED, UNCHANGED)
