"""A login's user and password in a sentence: "try logging into the vpn with mkim and
Autumn!Leaf4", and a pair whose password holds an ``@`` ("账号 admin / Root@Stage9!",
"admin/Admin@456"): the first had no rule, and the pair's password stopped at its ``@``
(Oracle's ``USER/PASSWORD@DB``), leaving a head too short to be judged one; each went to a
remote model in clear. An ``@`` before a database's or host's name still ends it."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("can you try logging into the vpn with mkim and Autumn!Leaf4? mine expired",
     "Autumn!Leaf4"),
    ("log in to the router with netops and Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("sign into grafana with username viewer and Gr4f-View-88.", "Gr4f-View-88"),
    ("staging 的 root 账号 admin / Root@Stage9!", "Root@Stage9"),
    ("the box takes admin/Admin@456", "Admin@456"),
]

UNCHANGED: list[str] = [
    "sign in with Google and Okta",
    "log in with SSO and then MFA",
    "logging into the console with alice and bob is broken",
    "login with your badge and PIN",
    "sqlplus scott/$ORACLE_PASSWORD@orcl",
    "mail admin/reports@example.com for access",
]

test_the_password_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_stating_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "logging into the vpn with mkim and Autumn!Leaf4", "Autumn!Leaf4")


def test_oracle_s_database_still_ends_the_password() -> None:
    from waymarks.core.secrets import redact

    assert redact("sqlplus scott/Tig3r!x9@orcl") == ("sqlplus scott/[REDACTED:secret]@orcl", 1)
