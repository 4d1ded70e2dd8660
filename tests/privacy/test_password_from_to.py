"""A password changed from one value to another: "switched the grafana admin password
from the default to Xq9#mLp2Tz", "the wifi password changed from autumn31 to autumn32":
both rules wanted "to" right after the noun or its verb, and the new password went to a
remote model in clear. What it changed from may be up to three words."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("changed the grafana admin password from the default to Xq9#mLp2Tz yesterday",
     "Xq9#mLp2Tz"),
    ("the wifi password changed from autumn31 to autumn32", "autumn32"),
    ("reset the db password from Old-Pass-1 to Kq4-Wd8-Mz2.", "Kq4-Wd8-Mz2"),
    ("the api token was changed from the old one to q8Vn2LxT5mRw7KcZ3bJd",
     "q8Vn2LxT5mRw7KcZ3bJd"),
]

UNCHANGED: list[str] = [
    "the password changed from 8 to 12 characters",
    "we changed the password policy from 90 days to 180 days",
    "the token was changed from JWT to opaque",
    "reset the password from the login page to get a link",
    "the password was changed from plain text to bcrypt hashing",
]

test_the_new_password_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_stating_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "changed the grafana admin password from the default to "
                                 "Xq9#mLp2Tz", "Xq9#mLp2Tz")
