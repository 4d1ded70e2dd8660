"""After a password's noun, a value that names something else: a character set's name
("the password is utf8mb4 encoded", redacted since ec5c421f) lost its words to
``[REDACTED:secret]``; it stays now. A passcode's digits (a year's too:
tests/privacy/test_year_shaped_passcodes.py) and a weak password still go."""

from __future__ import annotations

from tests.privacy.digests import stated_tests

STATED: list[tuple[str, str]] = [
    ("The passcode is 9931.", "9931"),
    ("the password is utf8mb4x9", "utf8mb4x9"),
    ("the password is hunter22", "hunter22"),
    ("the door passcode is 18842.", "18842"),
]

UNCHANGED: list[str] = [
    "the password is utf8mb4 encoded",
    "the password column is latin1 encoded",
    "the password is sha256 hashed",
]

test_the_value_is_redacted, test_its_name_stays = stated_tests(STATED, UNCHANGED)
