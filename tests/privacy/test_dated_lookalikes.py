"""A date after a password's noun and a clause saying what happened to it when, then a
colon ("The password of the service account expires at: 2024-12-31", "Password for the
VPN was emailed on: 2024-05-01"): 8f26cac1's ``dated_password`` rule read the clause as
the noun's qualifier and the date as the password, and ``waymarks memory add`` refused
the note (exit 2). A date stated as the password still goes."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_note_recorded, stated_tests

LOOK_ALIKES = [
    "The password of the service account expires at: 2024-12-31",
    "Password for the VPN was emailed on: 2024-05-01",
    "The password for the admin account was last changed: 2024-01-15",
    "password for the db valid until: 2025-06-30",
    "The passcode for the lab was rotated on: 2024.10.01",
]

STILL_SECRET = [
    ("the wifi password is 20.11.2019", "20.11.2019"),
    ("the password for the kiosk: 2024-10-01", "2024-10-01"),
    ("the password for the old NAS was set to 2023.11.04", "2023.11.04"),
    ("Grafana admin 密码就是 2024.10.01，国庆那天设的", "2024.10.01"),
]

test_a_dated_password_still_goes, test_a_look_alike_stays = stated_tests(
    STILL_SECRET, LOOK_ALIKES)


def test_the_cli_records_a_note_saying_when_a_password_expires(tmp_path: Path) -> None:
    assert_note_recorded(tmp_path, "The password of the service account expires at: 2024-12-31",
                         "2024-12-31")
