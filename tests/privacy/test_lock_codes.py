"""A lock's code stated in a sentence: "the gate code for the loading dock is 558213",
"the garage door code is 4417.", "机房的 alarm code 是 9082": no rule read "code", and each
went to a remote model in clear. Judged as a PIN (4 to 12 digits); an error's, exit's,
zip's, area's or a program's code stays."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("the gate code for the loading dock is 558213", "558213"),
    ("the garage door code is 4417.", "4417"),
    ("机房的 alarm code 是 9082", "9082"),
]

UNCHANGED: list[str] = [
    "the error code is 401",
    "the exit code is 137",
    "the zip code is 94107",
    "the area code is 415",
    "the door code is in the vault",
    "the access code is sent by SMS",
    "the source code is 4000 lines",
    "the panel code is written in React",
]

test_the_code_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_stating_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "the gate code for the loading dock is 558213", "558213")
