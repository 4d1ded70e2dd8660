"""Text that only looks like a credential, redacted (and refused by ``memory add``) before:
each test failed before its fix. What a real credential beside it looks like still goes."""

from __future__ import annotations

import pytest

from waymarks.core.secrets import redact


@pytest.mark.parametrize("text", [
    "secret_v1 = SecretV1()",
    "token_v2 = TokenV2(config)",
    "api_key = ApiKey2024.load(path)",
    "self.password = Password8Hasher(rounds=12)",
    "password_hash = bcrypt2(pw)",
])
def test_a_call_assigned_to_a_credential_name_is_code(text: str) -> None:
    """``secret_v1 = SecretV1()`` assigns a constructor's result: the value ended at its
    ``(`` and, a word with a digit in it, was read as a password."""
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", [
    "secret_v1 = Xq9vT2mLp4Rz",
    "token = Xq9vT2mLp4Rz  # (rotated)",
    'password = "S3cr3t(x)"',
])
def test_a_value_beside_a_call_still_goes(text: str) -> None:
    redacted, count = redact(text)
    assert count == 1 and "Xq9vT2mLp4Rz" not in redacted and "S3cr3t" not in redacted
