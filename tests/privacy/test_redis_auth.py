"""Redis's password as its configuration gives it: redis.conf's ``requirepass …`` and
``masterauth …`` directives, ``redis-server --requirepass …`` (a Compose file's command),
``CONFIG SET requirepass …``: the password went to the model in clear, and a pin holding
it was stored (a name, then a space: no rule read it). Judged as an assignment's value on
its own line; a commented-out sample (``# requirepass foobared``) and a reference stay."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f"bind 0.0.0.0\nrequirepass {PW}\n", "bind 0.0.0.0\nrequirepass [REDACTED:secret]\n"),
    (f'masterauth "{PW}"', 'masterauth "[REDACTED:secret]"'),
    (f"    command: redis-server --appendonly yes --requirepass {PW}",
     "    command: redis-server --appendonly yes --requirepass [REDACTED:secret]"),
    (f"127.0.0.1:6379> CONFIG SET requirepass {PW}",
     "127.0.0.1:6379> CONFIG SET requirepass [REDACTED:secret]"),
]

UNCHANGED: list[str] = [
    "# requirepass foobared",  # redis.conf's commented sample
    "command: redis-server --requirepass ${REDIS_PASSWORD}",
    "the requirepass directive sets it",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_password_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_sample_or_reference_stays(text: str) -> None:
    assert redact(text) == (text, 0)
