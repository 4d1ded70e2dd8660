"""A code that opens a door, arms an alarm, opens a safe or joins a call, written as its
digits right after what it opens with no verb, or spaced and dashed as a keypad's, a
bridge's PIN and a safe's combination are: "arm/disarm code 4826", "conference bridge pin
889 2071 then #", "Loading dock keypad: 8 0 6 1 then enter", "档案室保险柜密码 37-12-58". Each
went to a remote model in clear at eaddfd3d (``redact`` returned the text unchanged). A
code of no lock's word, a bank's PIN with no verb, a version and a year naming a standard
stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_kept_from_provider, assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("Building B alarm panel -- arm/disarm code 4826. Call facilities if it beeps twice.",
     "4826"),
    ("conference bridge pin 889 2071 then #", "889 2071"),
    ("Loading dock keypad: 8 0 6 1 then enter", "8 0 6 1"),
    ("档案室保险柜密码 37-12-58，左右左", "37-12-58"),
    ("the garage door code 7 7 3 1# opens both doors", "7 7 3 1"),
    ("voicemail pin 30 41 19", "30 41 19"),
    ("lockbox: 5521 (key for the cabin)", "5521"),
    ("combination: 12-34-56", "12-34-56"),
    ("gate code - 48213", "48213"),
    ("dial-in passcode 884 112 9931#", "884 112 9931"),
    ("储物柜密码是 1-2-3-4", "1-2-3-4"),
    ("alarm code 2019.", "2019"),
]

UNCHANGED: list[str] = [
    "status code 404",
    "error code E1234",
    "exit code 137",
    "zip code 94107",
    "area code 415",
    "code review 2024",
    "ask Marco for the alarm code, it's not written down anywhere on purpose",
    "Bank PIN 4321",
    "PIN 9999",
    "bridge pin 3.2.1",
    "the door code is in the vault",
    "access code 403 page",
    "gate 12 at terminal 3",
    "the fire alarm code 2019 edition",
    "the door lock 1234",
    "the lock file 12345",
    "safe mode 2 retries",
    "门禁密码只有行政知道，需要的话找她要",
    "the combination of 2 and 3 works",
    "keypad layout 3x4",
    "alarm at 07:30 every day",
]

test_the_code_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_holding_a_device_code_is_refused_by_the_cli(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "conference bridge pin 889 2071 then #", "2071")


def test_a_stored_device_code_is_kept_from_a_remote_model(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, "Loading dock keypad: 8 0 6 1 then enter",
                              "8 0 6 1", "keypad", "[REDACTED:secret]")


def test_every_group_of_a_spaced_code_goes() -> None:
    from waymarks.core.secrets import redact

    assert redact("bridge pin 8890 2071 then #") == ("bridge pin [REDACTED:secret] then #", 1)
