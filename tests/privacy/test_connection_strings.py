"""A connection string in another syntax than a URL's: Go's MySQL driver's DSN,
``USER:PASSWORD@tcp(HOST:PORT)/DB`` (no scheme: the URL rule never read it), in a
``sql.Open`` call, a ``DSN=`` line or a config, went out with its password in clear. The
password goes; a reference, a format, the field's name and an empty one stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests
from waymarks.core.secrets import redact

PW = "Xk9vT2pQ" + "7mLwR4sZ"

#: each holds PW once, the DSN's password: what stays is the text with PW redacted
DSNS = [
    f'db, err := sql.Open("mysql", "root:{PW}@tcp(127.0.0.1:3306)/app")',
    f"DSN=app:{PW}@tcp(db:3306)/app?parseTime=true",
    f"  dsn: app:{PW}@unix(/var/run/mysqld/mysqld.sock)/app",
    f"export MYSQL_DSN='deploy:{PW}@tcp6([::1]:3306)/app'",
]

UNCHANGED = """dsn := "root:${DB_PASS}@tcp(db:3306)/app"
fmt.Sprintf("%s:%s@tcp(%s)/%s", user, pass, host, db)
user:password@tcp(localhost:3306)/dbname
root:@tcp(127.0.0.1:3306)/test
see the driver's docs for user:pass@tcp(""".splitlines()


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"Local DB: root:{PW}@tcp(127.0.0.1:3306)/app", PW)


test_the_dsn_password_is_redacted, test_a_reference_or_field_name_stays = shape_tests(
    [(text, text.replace(PW, "[REDACTED:secret]")) for text in DSNS], UNCHANGED)


def test_dsns_glued_together_are_redacted_once() -> None:
    # a run with no word's end: each DSN's password back to the first ``:`` ran over the
    # ones before it, and the redaction's own placeholder was read as a password again
    once, count = redact("a:b@tcp(x)" * 50)
    assert count == 1 and redact(once) == (once, 0)


def test_an_odbc_password_in_braces_is_redacted(tmp_path: Path) -> None:
    # ``PWD={…}``: no assignment's value starts with a brace, and it went out in clear
    for text in (f"Driver={{ODBC Driver 18 for SQL Server}};Server=db;UID=sa;PWD={{{PW}}};",
                 f"DSN=prod;Uid=app;Pwd={{{PW}}}", f"Password={{{PW};x}}}}y}};"):
        kept = text.replace(f"{PW};x}}}}y", PW).replace(PW, "[REDACTED:secret]")
        assert redact(text) == (kept, 1), text
    for text in ("<Input password={password} />", "<Login password={this.state.pw} />",
                 "PWD={};"):
        assert redact(text) == (text, 0), text
    assert_pin_refused(tmp_path, f"The ODBC string: Server=db;UID=sa;PWD={{{PW}}};", PW)
