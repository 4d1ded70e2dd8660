"""A credential a tool's configuration command keeps, given on its line with a space, not
an ``=``: ``aws configure set aws_session_token …`` (its secret key's 40 characters were
caught as one; a session token or a shorter key was not), ``dotnet user-secrets set
"ApiKey" "…"``, WP-CLI's ``wp config set DB_PASSWORD …``, and Poetry's ``poetry config
http-basic.REPO USER PASSWORD``: the value
went to the model in clear, and a pin holding it was stored, as npm's ``config set
…:_authToken …`` did before its rule. A setting so kept under another name stays."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f"aws configure set aws_session_token {PW}",
     "aws configure set aws_session_token [REDACTED:secret]"),
    (f"aws configure --profile ci set aws_secret_access_key '{PW}'",
     "aws configure --profile ci set aws_secret_access_key '[REDACTED:secret]'"),
    (f'dotnet user-secrets set "ApiKey" "{PW}" --project src/App',
     'dotnet user-secrets set "ApiKey" "[REDACTED:secret]" --project src/App'),
    (f"dotnet user-secrets set Smtp:Password {PW}",
     "dotnet user-secrets set Smtp:Password [REDACTED:secret]"),
    (f"poetry config http-basic.internal ci {PW}",
     "poetry config http-basic.internal ci [REDACTED:secret]"),
    # WP-CLI's wp-config.php constants (a database password, a salt), which went out in clear
    (f"wp config set DB_PASSWORD {PW}", "wp config set DB_PASSWORD [REDACTED:secret]"),
    (f'wp config set AUTH_KEY "{PW}" --type=constant',
     'wp config set AUTH_KEY "[REDACTED:secret]" --type=constant'),
]

UNCHANGED: list[str] = [
    "aws configure set region eu-west-1",
    "aws configure set default.s3.max_concurrent_requests 20",
    'dotnet user-secrets set "Logging:Level" "Debug"',
    "poetry config http-basic.internal ci",  # asked for
    "aws configure set aws_session_token $AWS_SESSION_TOKEN",
    "wp config set DB_NAME wordpress",
    "wp config get DB_PASSWORD",
    "wp config set DB_PASSWORD $DB_PASS",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_kept_credential_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_setting_stays(text: str) -> None:
    assert redact(text) == (text, 0)
