"""A container's environment written in another way its CLI reads it: ``docker run
-eDB=…`` (the pair glued to its short flag, as pflag allows for any shorthand). The value
went to the model in clear, and a pin holding it was stored, where ``-e DB=…`` was
redacted. Each value is judged as a config var's (a setting stays)."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

RANDOM = "Xk9mQ2pL7vR3tY8wZ5nB"

CASES: list[tuple[str, str]] = [
    (f"docker run -eDB={RANDOM} nginx", "docker run -eDB=[REDACTED:secret] nginx"),
    (f"podman run --rm -eTZ=UTC -eDB='{RANDOM}' app",
     "podman run --rm -eTZ=UTC -eDB='[REDACTED:secret]' app"),
]

UNCHANGED: list[str] = [
    "docker run -eTZ=Europe/Berlin -eNODE_ENV=production nginx",
    "docker run -e$DB nginx",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_value_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_setting_stays(text: str) -> None:
    assert redact(text) == (text, 0)
