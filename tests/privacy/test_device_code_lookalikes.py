"""Engineering text that names a device's or a call's word, then a plural noun, a date or
a count before digits: a board's pins ("the H-bridge pins 5 6 9 10"), a range of error
codes ("Access error codes 4001-4099"), a date ("Combination: 2024-05-01 release") or a
count with its unit ("the bridge network code 1000 lines"). At c9b27a97 each was redacted
as a lock's code, and ``waymarks memory add`` refused the note (exit 2); a lock's code
stated with a plural noun and a separator ("door codes: 4826") still goes."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_note_recorded, stated_tests

LOOK_ALIKES = [
    "The H-bridge pins 5 6 9 10 drive the two motors.",
    "Keypad row pins 9 8 7 6 connect to the Arduino.",
    "Keypad pins 22-29 on the Mega are wired to the matrix.",
    "The door sensor pins 2 3 4 5 are pulled up internally.",
    "Wire the gate relay pins 17 27 22 23 to the HAT.",
    "The alarm buzzer pins 12 13 share a timer.",
    "The access log codes 200 301 404 are the ones we alert on.",
    "Access error codes 4001-4099 are reserved for auth failures.",
    "Access codes 4001-4003 mean the badge was denied.",
    "package-lock pins 1234 transitive deps.",
    "Combination: 2024-05-01 release plus hotfix.",
    "The gate code 2023-2024 policy moved to Confluence.",
    "The bridge network code 1000 lines were removed.",
    "The alarm code path handles 1200 events per second.",
]

STILL_SECRET = [
    ("door codes: 4826", "4826"),
    ("the keypad codes are 7731", "7731"),
    ("conference bridge pin 889 2071 then #", "889 2071"),
    ("combination: 12-34-56", "12-34-56"),
    ("alarm code 2019.", "2019"),
]


test_a_code_still_goes, test_a_look_alike_stays = stated_tests(STILL_SECRET, LOOK_ALIKES)


def test_the_cli_records_a_note_about_a_board_s_pins(tmp_path: Path) -> None:
    assert_note_recorded(tmp_path, 'The H-bridge pins 5 6 9 10 drive the two motors.', '5 6 9 10')
