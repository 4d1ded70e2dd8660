"""The password ``openssl passwd -stdin`` reads on its standard input, to hash it for
``/etc/shadow`` or ``usermod -p`` (``echo … | openssl passwd -6 -stdin``, a here-string
too): it went out in clear, the hash's input being the password itself. A reference, a
file and a flag that is not ``-stdin`` stay."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f"echo {PW} | openssl passwd -6 -stdin", "echo [REDACTED:secret] | openssl passwd -6 -stdin"),
    (f'printf "%s" "{PW}" | openssl passwd -6 -salt Qx7r -stdin > hash.txt',
     'printf "%s" "[REDACTED:secret]" | openssl passwd -6 -salt Qx7r -stdin > hash.txt'),
    (f"openssl passwd -6 -stdin <<< {PW}", "openssl passwd -6 -stdin <<< [REDACTED:secret]"),
]

UNCHANGED = [
    'echo "$NEW_PASSWORD" | openssl passwd -6 -stdin',
    "openssl passwd -6 -stdin < password.txt",
    "echo Qx7rTq2mWz8rLp4n | openssl passwd -stdin-like",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_password_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_reference_or_a_file_stays(text: str) -> None:
    assert redact(text) == (text, 0)
