"""MinIO's client given its keys: ``mc alias set ALIAS URL ACCESS_KEY SECRET_KEY`` (and
its older ``mc config host add``) takes the secret key as the argument after the access
key's, no flag or name before it: it went out in clear, beside an AWS key ID that was
taken. Variables, and the alias with no keys (mc asks for them), stay."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f"mc alias set local http://localhost:9000 backup {PW}",
     "mc alias set local http://localhost:9000 backup [REDACTED:secret]"),
    (f'mc config host add minio http://10.0.0.5:9000 backup "{PW}" --api S3v4',
     'mc config host add minio http://10.0.0.5:9000 backup "[REDACTED:secret]" --api S3v4'),
]

UNCHANGED = [
    "mc alias set local http://localhost:9000 $MINIO_USER $MINIO_PASSWORD",
    "mc alias set myminio https://minio.example.com",
    "mc alias set local http://localhost:9000 backup --insecure",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_secret_key_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


def test_after_an_aws_key_id_the_secret_key_goes_too() -> None:
    text = f"mc alias set s3 https://s3.amazonaws.com AKIAIOSFODNN7EXAMPLE {PW}"
    assert redact(text) == ("mc alias set s3 https://s3.amazonaws.com "
                            "[REDACTED:aws-access-key-id] [REDACTED:secret]", 2)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_variable_or_no_key_stays(text: str) -> None:
    assert redact(text) == (text, 0)
