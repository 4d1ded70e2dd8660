"""Oracle's clients take a login as ``USER/PASSWORD@DATABASE``: ``sqlplus scott/…@orcl``,
Data Pump's ``expdp system/…@db``, SQL*Loader's ``userid=…``, ``rman target sys/…@db``,
SQL*Plus's ``CONNECT USER/…@db`` and a JDBC thin URL (``jdbc:oracle:thin:scott/…@db:1521/
ORCL``). The password went to the model in clear and a pin holding it was stored (a
slash, no URL's ``://``, no name). ``sqlplus / as sysdba`` holds none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"
R = "[REDACTED:secret]"

#: texts with the password as ``{}``
CASES: list[str] = [
    "sqlplus scott/{}@orcl",
    "sqlplus -s system/{}@//db.example.com:1521/XEPDB1 @migrate.sql",
    "sqlplus sys/{} as sysdba",
    "expdp system/{}@db schemas=app directory=dump dumpfile=app.dmp",
    "sqlldr userid=app/{}@db control=load.ctl",
    "rman target sys/{}@prod",
    "SQL> connect app/{}@//db:1521/svc",
    "url=jdbc:oracle:thin:scott/{}@db.example.com:1521:ORCL",
]

UNCHANGED: list[str] = [
    "sqlplus / as sysdba",
    "sqlplus scott/$ORACLE_PASSWORD@orcl",
    "connect the frontend/backend services through the gateway",
    "jdbc:oracle:thin:@db.example.com:1521/ORCL",
    "sqlplus /nolog",
]


@pytest.mark.parametrize("template", CASES)
def test_the_password_is_redacted(template: str) -> None:
    assert_one_secret_redacted(template.format(PW), template.format(R))


def test_a_weak_password_given_to_the_client_goes_too() -> None:
    assert_one_secret_redacted("sqlplus scott/tiger@orcl", f"sqlplus scott/{R}@orcl")


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_login_holding_none_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"reports db: sqlplus app/{PW}@reports", PW)
