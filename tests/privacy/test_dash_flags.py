"""A password given by a single-dash flag named for it: Java's keytool and jarsigner
(``-storepass …``, ``-keypass …``, ``-srcstorepass``), Go's flag package and PowerShell
(``-password=…``, ``-Password …``, ``-token …``): the value went to the model in clear,
and a pin holding it was stored, where ``--password …`` was redacted. Judged as prose's
value is unless quoted (a word after "the -token flag" is no password); keytool's
``-storepass:env VAR`` names one, and a reference stays."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f"keytool -importcert -file c.crt -keystore k.jks -storepass {PW} -noprompt",
     "keytool -importcert -file c.crt -keystore k.jks -storepass [REDACTED:secret] -noprompt"),
    (f"jarsigner -keystore k.jks -keypass '{PW}' app.jar alias",
     "jarsigner -keystore k.jks -keypass '[REDACTED:secret]' app.jar alias"),
    (f"./server -listen :8080 -password={PW}",
     "./server -listen :8080 -password=[REDACTED:secret]"),  # (redacted before: an "=")
    (f"New-Thing -Name db -Password \"{PW}\"",
     "New-Thing -Name db -Password \"[REDACTED:secret]\""),
    (f"mc alias set s3 https://s3 admin -token {PW}",
     "mc alias set s3 https://s3 admin -token [REDACTED:secret]"),
    # the flag first in the text, or after a line break or a quote: no space before its
    # dash, which the pre-test asked for, so the rule never ran and it went in clear
    (f"-storepass {PW} opens the staging keystore",
     "-storepass [REDACTED:secret] opens the staging keystore"),
    (f"keytool\n-storepass {PW}", "keytool\n-storepass [REDACTED:secret]"),
    (f'"-Password {PW}"', '"-Password [REDACTED:secret]"'),
]

UNCHANGED: list[str] = [
    "keytool -list -keystore k.jks -storepass:env STOREPASS",
    "New-LocalUser -Name bob -Password $pw",
    "pass the -token flag to the tool, or set -password yourself",
    "keytool -list -keystore cacerts -storepass changeit",  # the JDK's documented default
    "x -secret-file /run/secrets/db -token-ttl 3600",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_flag_s_value_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_what_is_no_password_stays(text: str) -> None:
    assert redact(text) == (text, 0)
