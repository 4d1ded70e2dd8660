"""A private key pasted in part: the tail of its block (the BEGIN line in another
message, or cut off) whose last base64 line is short, as a key's length leaves it
(``…\\nAb12==\\n-----END RSA PRIVATE KEY-----``): the whole run went out in clear, since
only lines of 16 characters or more were read before the END line."""

from __future__ import annotations

import base64
import random

import pytest

from waymarks.core.secrets import find_secrets, redact


def key_lines(size: int) -> list[str]:
    """A fake key body of ``size`` bytes (seeded), in 64-character lines."""
    body = base64.b64encode(random.Random(size).randbytes(size)).decode()
    return [body[i:i + 64] for i in range(0, len(body), 64)]


@pytest.mark.parametrize("size", [337, 340, 350, 1190])  # last lines of 4, 8, 20, 52
def test_a_tail_ending_in_a_short_line_goes_whole(size: int) -> None:
    lines = key_lines(size)
    text = ("the rest of the key:\n" + "\n".join(lines[2:])
            + "\n-----END RSA PRIVATE KEY-----\nthat is all")
    assert redact(text) == ("the rest of the key:\n[REDACTED:private-key]\nthat is all", 1)


def test_a_short_line_after_a_certificate_stays() -> None:
    lines = key_lines(337)
    text = "\n".join(lines[2:]) + "\n-----END CERTIFICATE-----"
    assert find_secrets(text) == []
