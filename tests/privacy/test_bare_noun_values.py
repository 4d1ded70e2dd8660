"""A credential's noun then its value, no verb nor separator between: "use token Xk9v… for
the staging API", "the CI token Xk9v… expires Friday", Twilio's "auth token 3f9a…",
``VERCEL_TOKEN Xk9v…``. Each went out in clear (the prose rule wants ``is``, ``:`` or ``=``
after the noun). Only a value that reads as random goes: after a bare noun most words are
prose ("token usage", "password reset", "token 4096", a model's or an encoding's name)."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vT2pQ" + "7mLwR4sZ"
HEX = "fedcba98" * 4
GONE = "[REDACTED:secret]"

#: each holds PW or HEX once
GIVEN = [
    f"use token {PW} for the staging API",
    f"The CI token {PW} expires Friday.",
    f"Twilio: account AC0123 with auth token {HEX}",
    f"VERCEL_TOKEN {PW}",
    f"the deploy key {PW}, rotated monthly",
    f"the new passwords {PW} and the rest",
]

KEPT = [
    "token usage grew 20 % this week",
    "the password reset flow sends a link",
    "token 4096 is the context cap",
    "count tokens with cl100k_base or o200k_base",
    "the api key rotation-schedule-2026 runs nightly",
    "the token 3f2504e0-4f89-11d3-9a0c-0305e82c3301 is a request ID",
    "pass the secret GITHUB_TOKEN to the job",
    "Run the secret-scanning job before merging",
    "token expires_in_seconds is returned",
]


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"for staging use token {PW} please", PW)


test_a_random_value_after_the_noun_is_redacted, test_prose_after_the_noun_stays = shape_tests(
    [(text, text.replace(PW, GONE).replace(HEX, GONE)) for text in GIVEN], KEPT)
