"""What a login's password became, said after its change: "the jira admin/admin login was
reset, it's now Jr4!-Desk-77", "rotated the root creds; it is now Qx7#vB2mLp": no rule
read "it's now" after a change, and each went to a remote model in clear. Only a strong
value goes, and only where a login's words stand before the change."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("the jira admin/admin login was reset, it's now Jr4!-Desk-77", "Jr4!-Desk-77"),
    ("rotated the root creds; it is now Qx7#vB2mLp", "Qx7#vB2mLp"),
    ("the wifi password changed, now it's Kq4-Wd8-Mz2.", "Kq4-Wd8-Mz2"),
]

UNCHANGED: list[str] = [
    "the checksum changed, it's now 9b2e4f6a8c1d3e5f7a9b0c2d4e6f8a1b",
    "the admin build number was updated, it's now 20261207",
    "the admin page changed, it's now Rate-Limited!",
    "the schedule changed, it's now 3pm",
    "the admin API was updated, it's now v2.3.1-beta",
    "the login flow changed, it's now passwordless",
]

test_the_new_password_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_stating_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "rotated the root creds; it is now Qx7#vB2mLp", "Qx7#vB2mLp")
