"""A password changed from one value to another: "switched the grafana admin password
from the default to Xq9#mLp2Tz", "the wifi password changed from autumn31 to autumn32":
both rules wanted "to" right after the noun or its verb, and the new password went to a
remote model in clear. What it changed from may be up to three words. The value it was
changed from goes too (``core/secret_clauses.py``): it went out in clear, and is often still
valid somewhere (another host, a replica not yet rotated)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_pin_refused, stated_tests
from waymarks.core.secrets import credential_kinds, redact

STATED: list[tuple[str, str]] = [
    ("changed the grafana admin password from the default to Xq9#mLp2Tz yesterday",
     "Xq9#mLp2Tz"),
    ("the api token was changed from the old one to q8Vn2LxT5mRw7KcZ3bJd",
     "q8Vn2LxT5mRw7KcZ3bJd"),
]

UNCHANGED: list[str] = [
    "the password changed from 8 to 12 characters",
    "we changed the password policy from 90 days to 180 days",
    "the token was changed from JWT to opaque",
    "reset the password from the login page to get a link",
    "the password was changed from plain text to bcrypt hashing",
    "the password policy changed from weekly to monthly",
    "password length changed from 8 to 12",
]

test_the_new_password_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


@pytest.mark.parametrize(("text", "kept"), [
    # (both values now: the old one is often still valid somewhere; these two cases were
    # in STATED, the old value kept)
    ("the wifi password changed from autumn31 to autumn32",
     "the wifi password changed from [REDACTED:secret] to [REDACTED:secret]"),
    ("reset the db password from Old-Pass-1 to Kq4-Wd8-Mz2.",
     "reset the db password from [REDACTED:secret] to [REDACTED:secret]."),
    ("we rotated the vpn password from Vpn-Old-2025 to Vpn-New-2026",
     "we rotated the vpn password from [REDACTED:secret] to [REDACTED:secret]"),
    ("the pw went from hunter22 to Hunter-23x",
     "the pw went from [REDACTED:secret] to [REDACTED:secret]"),
])
def test_both_values_are_redacted(text: str, kept: str) -> None:
    assert redact(text) == (kept, 2)
    assert credential_kinds(text) == ["secret"]


def test_a_pin_stating_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "changed the grafana admin password from the default to "
                                 "Xq9#mLp2Tz", "Xq9#mLp2Tz")
