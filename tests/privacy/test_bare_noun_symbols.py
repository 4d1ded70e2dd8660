"""A credential's noun then its value with no verb, the value holding a symbol
(``core/secret_prose.py``, ``PROSE_BARE``): "… / secret key Mn10…$…2026" went to a remote
model in clear, the run read only letters, digits and ``_+/=~-``. The value must still read
as random: an address, a channel or a word stays."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

test_a_value_with_a_symbol_is_redacted, test_its_look_alikes_stay = stated_tests([
    ("storage access key store-ci / secret key St0rE$ecret2031x", "St0rE$ecret2031x"),
    ("use token A1b2C3d4!@#$xyz9 for staging", "A1b2C3d4!@#$xyz9"),
    ("the backup secret Kp9#mW2$vL7&qR4 expires friday", "Kp9#mW2$vL7&qR4"),
], [
    "the secret key user@example.com is wrong",
    "token dev-team@corp.example.com",
    "secret key ops-team#channel",
    "the token expires at 2026-12-01T10:00",
])


def test_the_cli_refuses_a_pin_stating_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "bucket access key ci-bot / secret key Bk7$ecretKey2030zz",
                       "Bk7$ecretKey2030zz")
