"""A database client given its password on its command line by a short flag: SQL
Server's ``sqlcmd -P`` (and ``bcp``), MongoDB's shell and tools ``-p`` (``mongosh -u admin
-p …``, ``mongodump``): the password went to the model in clear, and a pin holding it was
stored, where ``mysql -p…`` and ``--password …`` were redacted. Each flag's value is
judged as a registry login's is: a flag after it (``-p`` alone prompts), a reference and
another command's ``-p`` (a port) stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f"sqlcmd -S db -U sa -P {PW} -Q 'SELECT 1'",
     "sqlcmd -S db -U sa -P [REDACTED:secret] -Q 'SELECT 1'"),
    (f"bcp dbo.t out t.dat -S db -U sa -P '{PW}' -c", "bcp dbo.t out t.dat -S db -U sa -P "
     "'[REDACTED:secret]' -c"),
    (f"mongosh -u admin -p {PW} --authenticationDatabase admin",
     "mongosh -u admin -p [REDACTED:secret] --authenticationDatabase admin"),
    (f"mongodump --host db -u app -p \"{PW}\" --out /backup",
     "mongodump --host db -u app -p \"[REDACTED:secret]\" --out /backup"),
]

UNCHANGED: list[str] = [
    "mongosh -u admin -p --authenticationDatabase admin",  # prompts
    "sqlcmd -S db -U sa -P $SA_PASSWORD",
    "mongosh --port 27017 && docker run -p 27017:27017 mongo",
    "sqlcmd -S db -E -Q 'SELECT 1'",  # Windows authentication
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_password_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_what_is_no_password_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"restore: mongorestore -u app -p {PW} /backup", PW)
