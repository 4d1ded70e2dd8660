"""Oracle's clients take a login as ``USER/PASSWORD@DATABASE``: ``sqlplus scott/…@orcl``,
Data Pump's ``expdp system/…@db``, SQL*Loader's ``userid=…``, ``rman target sys/…@db``,
SQL*Plus's ``CONNECT USER/…@db`` and a JDBC thin URL (``jdbc:oracle:thin:scott/…@db:1521/
ORCL``), the legacy ``exp``/``imp``, SQLcl's ``sql``, tkprof's ``explain=``. The password
went to the model in clear and a pin holding it was stored (a slash, no URL's ``://``, no
name). ``sqlplus / as sysdba`` holds none; an export or import tool's login with no
database after it needs a parameter after it, or is judged as prose ("impdp and/or
expdp")."""

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
    # the legacy export and import tools, SQLcl, tkprof's explain plan login, and Data
    # Pump's with no database (a parameter after it, or alone): these went out in clear
    "exp app/{} file=app.dmp owner=app",
    "imp app/{}@orcl file=app.dmp full=y",
    "sqlcl app/{}@db",
    "sql -s app/{}@//db.example.com:1521/XEPDB1",
    "tkprof orcl_ora_123.trc out.txt explain=app/{} sys=no",
    "impdp app/{} directory=dp dumpfile=x.dmp",
    "impdp app/{}",
    "rman target sys/{}",
]

UNCHANGED: list[str] = [
    "sqlplus / as sysdba",
    "sqlplus scott/$ORACLE_PASSWORD@orcl",
    "connect the frontend/backend services through the gateway",
    "jdbc:oracle:thin:@db.example.com:1521/ORCL",
    "sqlplus /nolog",
    "impdp and/or expdp",
    "use exp/imp for the old databases",
    "impdp system/manager",
    "exp x/y t=3",
    "run sql queries/reports nightly",
    "sql app/$ORACLE_PASSWORD@db",
    "tkprof orcl_ora_123.trc out.txt explain=app/$PW sys=no",
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
