"""Words joined by hyphens whose last is a number in words (``core/secret_deny.py``,
``_NUMBER_WORDS``): "the passphrase is green-heron-fifteen" went to a remote model in
clear, "seventeen" ending like a participle (-en), so the value read as a compound
adjective ("case-sensitive", "sha256-hashed"), which stays."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

test_a_joined_passphrase_is_redacted, test_a_compound_adjective_stays = stated_tests([
    ("the archive passphrase is green-heron-fifteen", "green-heron-fifteen"),
    ("the lab password is copper-moth-eleven, ask me", "copper-moth-eleven"),
    ("the kiosk passcode is seven", "seven"),
], [
    "The password is case-sensitive.",
    "The password is sha256-hashed.",
    "the password is long-lived",
    "The password is hidden.",
    "The password is base64-encoded in the secret.",
])


def test_the_cli_refuses_a_pin_stating_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "the backup passphrase is amber-lynx-nineteen",
                       "amber-lynx-nineteen")
